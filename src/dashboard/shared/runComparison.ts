// The dashboard's run-comparison table (as W&B's runs table): the configuration keys on which the overlaid runs
// differ, and each run's final metrics, side by side. No DOM, no `vscode`.
import type { MetricRow } from '../../runs/shared/types';

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

/** The metrics the table lists, in order, with their label. */
export const FINAL_METRICS: ReadonlyArray<[metric: string, label: string]> = [
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
      const value = row[metric as `${string}/${string}`];
      if (typeof value === 'number' && Number.isFinite(value)) values[metric] = value;
    }
  }
  return { step, values, evaluations };
}
