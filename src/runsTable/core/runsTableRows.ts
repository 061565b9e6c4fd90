// A run of the runs layer as a row of the runs table: manifest facts, the flattened config, the last value of each
// training metric, the latest evaluation of each split (eval/<split>.json, else its last eval metrics row without n)
// and the tags (tags.json). Beside the row, what of each report a paired change needs (its overall success and each
// episode's task and outcome), so the Δ against a baseline (core/runsTableStore.ts) reads no report again. No `vscode`.
import path from 'node:path';
import type { RunEntry } from '../../runs/core/runsCore';
import type { EvalSample } from '../../runs/shared/pairedChange';
import { flattenConfig } from '../../dashboard/shared/runComparison';
import { summarizeEval, wilsonInterval, type EvalCell } from '../../dashboard/shared/evaluation';
import type { RunsTableRow } from '../shared/runsTable';

export async function runsTableRow(entry: RunEntry, title: string): Promise<RunsTableRow> {
  return (await readRunsTableRow(entry, title)).row;
}

/** The row, and each split's report as a paired change reads it (split → sample). */
export async function readRunsTableRow(entry: RunEntry, title: string): Promise<{ row: RunsTableRow; samples: Map<string, EvalSample> }> {
  const index = entry.index;
  const manifest = index.manifest;
  const metrics: Record<string, number> = {};
  const evals: Record<string, EvalCell> = {};
  let step: number | undefined;
  for (const row of index.metrics) {
    if (row.kind === 'eval') {
      const success = row['success/overall'];
      // n is not in a metrics row: an interval needs the report; until it is read the cell has n = 0 ([0, 1]).
      if (typeof success === 'number') evals[row.split ?? 'eval'] = { success, n: 0, interval: wilsonInterval(0, 0) };
      continue;
    }
    step = row.step;
    for (const [key, value] of Object.entries(row)) {
      if (key.includes('/') && typeof value === 'number' && Number.isFinite(value)) metrics[key] = value;
    }
  }
  const reader = index.reader;
  const splits = await reader.listEvalSplits().catch(() => []);
  const samples = new Map<string, EvalSample>();
  for (const split of splits) {
    const report = await reader.readEval(split).catch(() => undefined);
    if (!report) continue;
    evals[split] = summarizeEval(report).overall;
    samples.set(split, { overall: { success: report.overall.success, n: report.overall.n }, episodes: report.episodes.map((e) => ({ task: { id: e.task.id }, success: e.success })) });
  }
  const tags = await reader.readTags().catch(() => []);
  const row: RunsTableRow = {
    key: entry.dir,
    id: manifest?.id ?? path.basename(entry.dir),
    title,
    stage: manifest?.stage ?? '?',
    algorithm: manifest?.algorithm ?? '?',
    status: entry.state,
    ...(manifest?.started ? { started: manifest.started } : {}),
    ...(step !== undefined ? { step } : {}),
    tags,
    config: manifest?.config ? flattenConfig(manifest.config) : {},
    metrics,
    evals,
    changes: {},
  };
  return { row, samples };
}
