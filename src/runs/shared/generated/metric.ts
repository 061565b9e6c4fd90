// Generated from schemas/metric.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Timestamp } from './common';

/**
 * One row per Stage-2 update, SFT step, collection batch or evaluation. Reserved keys have no slash; every metric name is namespaced (`group/name`, e.g. success/overall, loss/pg, time/rollout). Units per name are listed in docs/run-format.md.
 */
export interface MetricRow {
  /**
   * x-axis: the update number (kind update, from 1), the optimizer step (sft), the batch (collect) or the update whose weights were evaluated (eval).
   */
  step: number;
  /**
   * When the row was written (UTC).
   */
  time: Timestamp;
  /**
   * Which series the row belongs to.
   */
  kind: 'collect' | 'sft' | 'update' | 'eval';
  /**
   * Optional (sft). Fractional epoch at this step.
   */
  epoch?: number;
  /**
   * Optional (eval). The split evaluated.
   */
  split?: string;
  /**
   * A metric value; null when undefined at this step (e.g. loss/opd without a teacher pass). NaN/Infinity are written as null.
   *
   * This interface was referenced by `MetricRow`'s JSON-Schema definition
   * via the `patternProperty` "^[A-Za-z0-9_.-]+(/[^/\s]+)+$".
   *
   * Quantiles of the gate g = σ(β·Δ) over the update's distilled tokens (docs/run-format.md §6): in [0, 1]; null when no token was distilled.
   *
   * This interface was referenced by `MetricRow`'s JSON-Schema definition
   * via the `patternProperty` "^gate/(min|p05|p25|p50|p75|p95|max)$".
   *
   * The distilled tokens the quantiles of g and Δ summarize (0: none, the quantiles are null).
   *
   * This interface was referenced by `MetricRow`'s JSON-Schema definition
   * via the `patternProperty` "^(gate|delta)/count$".
   */
  [metric: `${string}/${string}`]: number | null;
}
