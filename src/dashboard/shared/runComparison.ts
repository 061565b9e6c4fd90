// The dashboard's run-comparison table (as W&B's runs table): the configuration keys on which the overlaid runs
// differ, and each run's final metrics, side by side. No DOM, no `vscode`.
import type { ListedMetricName } from '../../runs/shared/generated/metricNames';
import type { ExperimentConfig, MetricRow, RecordedExperiment, Stage } from '../../runs/shared/types';

/** `{a: {b: 1}}` → `{'a.b': 1}`; lists are compared as their JSON. */
export function flattenConfig(value: unknown, prefix = '', into: Record<string, string> = {}): Record<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) flattenConfig(child, prefix ? `${prefix}.${key}` : key, into);
  } else if (prefix) {
    into[prefix] = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return into;
}

/** Keys whose value is not the same in every config (a key missing from one run counts as different), sorted. */
export function differingKeys(configs: readonly Record<string, string>[]): string[] {
  const keys = new Set(configs.flatMap((config) => Object.keys(config)));
  return [...keys].filter((key) => new Set(configs.map((config) => config[key] ?? '∅')).size > 1).sort();
}

/**
 * The top-level config sections each stage's trainer never reads (trainer/seed_trainer/stages/: a Stage-2 run reads
 * no `collect.*` and no `sft.*`; an evaluation plays the plain prompt, without skills, analyzer or updates). A run's
 * value there is not part of what it did, so the comparison leaves those keys out for it. (Checked against the run
 * stages and the experiment's top-level keys, so a renamed section cannot linger here.)
 */
export const UNREAD_SECTIONS: Readonly<Record<string, readonly string[]>> = {
  collect: ['sft', 'rl', 'eval', 'updates', 'checkpoint', 'distributed'],
  sft: ['collect', 'environment', 'rollout', 'opd', 'analyzer', 'eval', 'sdar', 'updates', 'checkpoint', 'distributed'],
  train: ['collect', 'sft'],
  eval: ['collect', 'sft', 'rl', 'opd', 'analyzer', 'sdar', 'updates', 'checkpoint', 'distributed'],
} satisfies Record<Stage, ReadonlyArray<keyof ExperimentConfig>>;

/** Whether a run of `stage` reads the flattened config key `key` (an unknown stage reads every key). */
export function stageReads(stage: string, key: string): boolean {
  const section = key.split('.', 1)[0] ?? key;
  return !(UNREAD_SECTIONS[stage] ?? []).includes(section);
}

/** What a run's cell says for a key its stage does not read. */
export const NOT_READ = 'not read';

/**
 * The config rows of the comparison: each key on which the runs whose stage reads it differ (a key missing from one
 * of them counts as different, `∅`), with one cell per run, `not read` for a run whose stage does not read it. A key
 * that at most one run reads is no difference. Sorted by key.
 */
export function configDifferences(runs: ReadonlyArray<{ stage: string; config?: RecordedExperiment }>): Array<{ key: string; cells: string[] }> {
  const configs = runs.map((run) => flattenConfig(run.config ?? {}));
  const keys = [...new Set(configs.flatMap((config) => Object.keys(config)))].sort();
  const rows: Array<{ key: string; cells: string[] }> = [];
  for (const key of keys) {
    const cells = runs.map((run, i) => (stageReads(run.stage, key) ? (configs[i]?.[key] ?? '∅') : NOT_READ));
    const read = cells.filter((_, i) => stageReads(runs[i]!.stage, key));
    if (read.length > 1 && new Set(read).size > 1) rows.push({ key, cells });
  }
  return rows;
}

/** The metrics the table lists, in order, with their label (a name schemas/metric.schema.json does not list fails to
 * compile: ListedMetricName is generated from it). */
export const FINAL_METRICS: ReadonlyArray<[metric: ListedMetricName, label: string]> = [
  ['success/overall', 'success (last update)'],
  ['episode/length', 'episode length'],
  ['loss/pg', 'pg loss'],
  ['loss/kl', 'KL'],
  ['loss/opd', 'OPD loss'],
  ['gate/mean', 'gate mean'],
  ['opd/gate_baseline_mean', 'gate baseline b mean'],
  ['skill/parse_rate', 'skill parse rate'],
  ['skill/summary_names_task', 'summary names own task'],
  ['skill/names_task_target', 'skill names own target'],
  ['loss/sft', 'SFT loss'],
];

export interface FinalMetrics {
  /** Last training step seen. */
  step: number | undefined;
  /** metric → its last non-null training value. */
  values: Record<string, number>;
  /** split → last evaluation success. */
  evaluations: Record<string, number>;
}

export function finalMetrics(rows: readonly MetricRow[]): FinalMetrics {
  const values: Record<string, number> = {};
  const evaluations: Record<string, number> = {};
  let step: number | undefined;
  for (const row of rows) {
    if (row.kind === 'eval') {
      const success = row['success/overall'];
      if (typeof success === 'number') evaluations[row.split ?? 'eval'] = success;
      continue;
    }
    step = row.step;
    for (const [metric] of FINAL_METRICS) {
      const value = row[metric];
      if (typeof value === 'number' && Number.isFinite(value)) values[metric] = value;
    }
  }
  return { step, values, evaluations };
}
