// Reads every file of a run directory and reports each file's first problem, what breaks resume across files
// (runConsistency.ts), every torn line, every metric name the schema does not list and every stale temporary file —
// the same procedure as the trainer's `check_run`, so both sides agree on test/fixtures/runs/expectations.json.
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { RunFormatError, type StaleFile, type TornLine, type UnknownMetric } from './errors';
import { checkpointErrors, indexErrors, lostIndexRows, metricSequenceError, quantileOrderError, staleFiles, unknownMetrics } from './runConsistency';
import { RUN_FILES, trajectoryRelative } from './runFiles';
import { RunReader } from './runReader';
import type { RunSchemas } from './schemas';
import type { MetricRow, RunManifest, TrajectoryIndexRow } from '../shared/types';

export interface RunCheckReport {
  errors: RunFormatError[];
  warnings: (TornLine | UnknownMetric | StaleFile)[];
  counts: {
    events?: number;
    metrics?: number;
    skills?: number;
    trajectory_index?: number;
    trajectories?: number;
    eval?: string[];
    checkpoints?: number;
  };
}

async function readRange(filePath: string, offset: number, size: number): Promise<Buffer> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The row must point at a whole line of its file that holds the trajectory with its id. */
async function checkIndexRow(reader: RunReader, line: number, row: TrajectoryIndexRow): Promise<RunFormatError | undefined> {
  const filePath = path.join(reader.paths.trajectories, row.file);
  let problem: string | undefined;
  const exists = await stat(filePath).then((s) => s.isFile(), () => false);
  if (!exists) {
    problem = `points into ${trajectoryRelative(row.file)}, which does not exist`;
  } else {
    const bytes = await readRange(filePath, row.offset, row.size);
    const before = row.offset > 0 ? await readRange(filePath, row.offset - 1, 1) : Buffer.from('\n');
    if (bytes.length !== row.size || bytes[bytes.length - 1] !== 0x0a || before[0] !== 0x0a) {
      problem = `bytes ${row.offset}+${row.size} of ${row.file} are not a whole line`;
    } else {
      let found: unknown;
      try {
        found = (JSON.parse(bytes.toString('utf8')) as { id?: unknown }).id;
      } catch {
        found = undefined;
      }
      if (found !== row.id) problem = `${row.file} holds ${JSON.stringify(found)} at offset ${row.offset}, not ${JSON.stringify(row.id)}`;
    }
  }
  return problem === undefined
    ? undefined
    : new RunFormatError('index', { file: RUN_FILES.trajectoryIndex, line, field: 'offset', path: reader.paths.trajectoryIndex }, problem);
}

function collect(errors: RunFormatError[], error: unknown): void {
  if (error instanceof RunFormatError) errors.push(error);
  else throw error;
}

/** Validates a whole run directory. A bad run.json stops the check: nothing else can be interpreted. */
export async function checkRun(runDir: string, schemas: RunSchemas): Promise<RunCheckReport> {
  const reader = new RunReader(runDir, schemas);
  const report: RunCheckReport = { errors: [], warnings: [], counts: {} };
  let manifest: RunManifest;
  try {
    manifest = await reader.readManifest();
  } catch (error) {
    collect(report.errors, error);
    return report;
  }
  const counted = [
    ['events', 'events'],
    ['metrics', 'metrics'],
    ['skills', 'skills'],
    ['trajectoryIndex', 'trajectory_index'],
  ] as const;
  let indexRows: { line: number; value: TrajectoryIndexRow }[] = [];
  let metricUpdates: Set<number> | undefined;
  let unknown: UnknownMetric[] = [];
  for (const [name, key] of counted) {
    try {
      const result = await reader.readJsonl(name);
      report.counts[key] = result.records.length;
      if (name === 'trajectoryIndex') indexRows = result.records as { line: number; value: TrajectoryIndexRow }[];
      if (name === 'metrics') {
        const rows = result.records as { line: number; value: MetricRow }[];
        const sequence = metricSequenceError(rows);
        if (sequence) report.errors.push(sequence);
        const disorder = quantileOrderError(rows);
        if (disorder) report.errors.push(disorder);
        unknown = unknownMetrics(rows);
        // partial directories (fixtures, a copy) may lack metrics.jsonl: nothing to compare trajectories with
        if (await stat(reader.paths.metrics).then(() => true, () => false)) {
          metricUpdates = new Set(rows.filter((r) => r.value.kind === 'update').map((r) => r.value.step));
        }
      }
    } catch (error) {
      collect(report.errors, error);
    }
  }
  let total = 0;
  for (const name of await reader.listTrajectoryFiles()) {
    try {
      total += (await reader.readTrajectoryFile(name)).records.length;
    } catch (error) {
      collect(report.errors, error);
    }
  }
  report.counts.trajectories = total;
  for (const { line, value } of indexRows) {
    const error = await checkIndexRow(reader, line, value);
    if (error) {
      report.errors.push(error);
      break;
    }
  }
  report.errors.push(...indexErrors(indexRows, metricUpdates));
  const lost = lostIndexRows(manifest.status, report.counts.trajectory_index !== undefined, indexRows.length, total);
  if (lost) report.errors.push(lost);
  report.counts.eval = await reader.listEvalSplits();
  for (const split of report.counts.eval) {
    try {
      await reader.readEval(split);
    } catch (error) {
      collect(report.errors, error);
    }
  }
  try {
    await reader.readControl();
  } catch (error) {
    collect(report.errors, error);
  }
  try {
    await reader.readTags();
  } catch (error) {
    collect(report.errors, error);
  }
  report.errors.push(...(await checkpointErrors(runDir, schemas)));
  report.counts.checkpoints = (await reader.listCheckpoints()).length;
  report.warnings = [...reader.warnings, ...unknown, ...(await staleFiles(runDir, manifest.status))];
  return report;
}
