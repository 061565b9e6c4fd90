// Per-update quantile metrics (docs/run-format.md §6, "Quantiles of g and Δ"): a family such as `gate` writes
// `<family>/min`, `/p05`, `/p25`, `/p50`, `/p75`, `/p95`, `/max` (null when it summarizes no value) and `/count`.
// The same names and rules as seed_trainer/runlog/quantiles.py. No DOM, no Node: the dashboard bundle uses it too.
import type { MetricRow } from './types';

/** Families the trainer writes: the gate g and Δ = ℓ^skill − ℓ^old over an update's distilled tokens. */
export const QUANTILE_FAMILIES = ['gate', 'delta'] as const;
export type QuantileFamily = (typeof QUANTILE_FAMILIES)[number];

/** The summary's keys from the lowest value to the highest. */
export const QUANTILE_KEYS = ['min', 'p05', 'p25', 'p50', 'p75', 'p95', 'max'] as const;
type QuantileKey = (typeof QUANTILE_KEYS)[number];

export type QuantileSummary = Record<QuantileKey, number> & { count: number };

/** The family's summary in a metrics row, or undefined when the row has none (no teacher pass, no distilled token). */
export function quantileSummary(row: MetricRow, family: string): QuantileSummary | undefined {
  const count = row[`${family}/count`];
  if (typeof count !== 'number' || !Number.isInteger(count) || count <= 0) return undefined;
  const summary: Partial<QuantileSummary> = { count };
  for (const key of QUANTILE_KEYS) {
    const value = row[`${family}/${key}`];
    if (typeof value !== 'number') return undefined;
    summary[key] = value;
  }
  return summary as QuantileSummary;
}

/** The first key of a family in `row` whose value is below the one before it (nulls skipped), with that one. */
export function quantileDisorder(row: MetricRow): { key: string; value: number; previousKey: string; previous: number } | undefined {
  for (const family of QUANTILE_FAMILIES) {
    let previous: [string, number] | undefined;
    for (const key of QUANTILE_KEYS) {
      const name = `${family}/${key}` as const;
      const value = row[name];
      if (typeof value !== 'number') continue;
      if (previous && value < previous[1]) return { key: name, value, previousKey: previous[0], previous: previous[1] };
      previous = [name, value];
    }
  }
  return undefined;
}
