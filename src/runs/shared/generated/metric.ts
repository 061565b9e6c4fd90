// Generated from schemas/metric.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Timestamp } from './common';

/**
 * One row per Stage-2 update, SFT step, collection batch or evaluation. Reserved keys have no slash; every other key is a metric name (`group/name`) listed here: the one list of the names the trainer writes (`properties` with a slash, and the per-task-type family of `patternProperties`), each with its unit (`x-unit`, one of `x-units`) and the dashboard chart that draws it (`x-chart`, a chart id of src/dashboard/shared/charts.ts; false: no chart). A name the trainer no longer writes stays listed, `deprecated`, so that older runs still read. Any other namespaced name (a newer trainer's) still reads, as a number or null: checkers report it as an `unknown_metric` warning, the trainer's writer refuses it (docs/run-format.md §6).
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
   * Episodes with reward ≥ 1 among the row's rollouts (an update's, a collection batch's, or the evaluated split's).
   */
  'success/overall'?: MetricValue;
  /**
   * Mean episode length.
   */
  'episode/length'?: MetricValue;
  /**
   * Steps whose response held a well-formed `<action>`.
   */
  'episode/valid_action_ratio'?: MetricValue;
  /**
   * Steps whose action was one of the admissible actions listed to the policy (only for environments that list them).
   */
  'episode/admissible_action_ratio'?: MetricValue;
  /**
   * Mean response length per step (every kind with rollouts).
   */
  'episode/response_tokens'?: MetricValue;
  /**
   * Mean of the environment's own task score, when it reports one (WebShop's score in [0, 1]; success needs 1).
   */
  'episode/task_score'?: MetricValue;
  /**
   * Episodes of the row whose environment failed (present only when some did).
   */
  'episode/environment_failures'?: MetricValue;
  /**
   * L = L_rl + λ_opd·L_opd as optimized (token-mean).
   */
  'loss/total'?: MetricValue;
  /**
   * PPO clipped (dual-clip) surrogate, token-mean.
   */
  'loss/pg'?: MetricValue;
  /**
   * k3 KL to the reference, before its coefficient.
   */
  'loss/kl'?: MetricValue;
  /**
   * Mean token entropy, before its coefficient; logged whatever `rl.entropy_coef` is (0 and negative too: with 0 it is measured and not back-propagated).
   */
  'loss/entropy'?: MetricValue;
  /**
   * L_opd: token-mean over the OPD mask of g·(ℓ^skill − ℓ^θ), before λ_opd (paper-rerun sanity range ≈ 0.02); null without a teacher pass. With `opd.estimator` centred / baseline the weight is g − ½ / g − b(s); with expected the term is −Σ_v w(v)·ℓ^θ(v) (docs/trainer.md, "OPD estimator"): not comparable across estimators.
   */
  'loss/opd'?: MetricValue;
  /**
   * Stage-1 SFT loss on response tokens, token-mean over the batch (sft rows).
   */
  'loss/sft'?: MetricValue;
  /**
   * Stage-1 SFT validation loss (sft rows: step 0 and the last step of each epoch).
   */
  'loss/sft_val'?: MetricValue;
  /**
   * Tokens whose ratio was clipped.
   */
  'ppo/clip_frac'?: MetricValue;
  /**
   * Tokens bounded by the dual clip.
   */
  'ppo/clip_frac_lower'?: MetricValue;
  /**
   * Mean ρ-based KL estimate to π_old.
   */
  'ppo/approx_kl'?: MetricValue;
  /**
   * @deprecated
   * What optim/grad_norm was called by the first Stage-2 trainer; no longer written.
   */
  'ppo/grad_norm'?: MetricValue;
  /**
   * Mean gate g = σ(β·Δ) over the OPD-active tokens; null when no skill was valid.
   */
  'gate/mean'?: MetricValue;
  /**
   * OPD-active tokens with g > 0.5 (≈ 0.33 in the rerun).
   */
  'gate/frac_gt_half'?: MetricValue;
  'gate/min'?: GateQuantile;
  'gate/p05'?: GateQuantile;
  'gate/p25'?: GateQuantile;
  'gate/p50'?: GateQuantile;
  'gate/p75'?: GateQuantile;
  'gate/p95'?: GateQuantile;
  'gate/max'?: GateQuantile;
  'gate/count'?: QuantileCount;
  /**
   * Mean Δ = ℓ^skill − ℓ^θ over the OPD-active tokens; null when no skill was valid.
   */
  'delta/mean'?: MetricValue;
  'delta/min'?: DeltaQuantile;
  'delta/p05'?: DeltaQuantile;
  'delta/p25'?: DeltaQuantile;
  'delta/p50'?: DeltaQuantile;
  'delta/p75'?: DeltaQuantile;
  'delta/p95'?: DeltaQuantile;
  'delta/max'?: DeltaQuantile;
  'delta/count'?: QuantileCount;
  /**
   * OPD-active tokens (valid skill) / response tokens (≈ 0.61 in the rerun).
   */
  'opd/active_ratio'?: MetricValue;
  /**
   * With `opd.estimator` centred, baseline or expected: mean over the OPD-active tokens of what the estimator subtracts from g (½, or b(s) = Σ_v π_old(v|s)·g(v)); null when no skill was valid.
   */
  'opd/gate_baseline_mean'?: MetricValue;
  /**
   * With `opd.estimator: expected`: the share of Σ_v π_old(v|s)·g(v) over the OPD-active tokens that the top-k left out (0 when the whole vocabulary is kept).
   */
  'opd/tail_mass'?: MetricValue;
  /**
   * With `rollout.engine: vllm`: largest |ℓ^vLLM − ℓ^old| over the update's sampled tokens — the engine's log-probs against the trainer's scoring of the same tokens (fp32 on the CPU: ~1e-6; much larger means other weights or another distribution).
   */
  'rollout/logprob_diff_max'?: MetricValue;
  /**
   * With `rollout.engine: vllm`: mean |ℓ^vLLM − ℓ^old| over the update's sampled tokens.
   */
  'rollout/logprob_diff_mean'?: MetricValue;
  /**
   * Analyses that passed format verification (update and collect rows).
   */
  'skill/parse_rate'?: MetricValue;
  /**
   * Of the row's valid skills, those whose episode summary names every content word of the trajectory's own task (seed_trainer/algo/skill_relevance.py; docs/run-format.md §6); null when no skill was valid.
   */
  'skill/summary_names_task'?: MetricValue;
  /**
   * Of the row's valid skills, those whose skill text names the task's object or its receptacle (at least one of its content words); null when no skill was valid.
   */
  'skill/names_task_target'?: MetricValue;
  /**
   * Collect rows: external-analyzer requests retried in the batch (429, 5xx, timeouts).
   */
  'analyzer/retries'?: MetricValue;
  /**
   * Response tokens of the SFT step's batch (sft rows).
   */
  'tokens/total'?: MetricValue;
  /**
   * The learning rate of the row's optimizer steps (update and sft rows).
   */
  'optim/lr'?: MetricValue;
  /**
   * Global gradient norm before clipping, mean over the row's optimizer steps taken (update and sft rows); null when every step was skipped.
   */
  'optim/grad_norm'?: MetricValue;
  /**
   * Optimizer steps of this update (or SFT step) skipped because a loss term or the gradient norm was not finite (docs/trainer.md, "Non-finite guard").
   */
  'optim/skipped_steps'?: MetricValue;
  /**
   * Wall time of the rollout (update and collect rows).
   */
  'time/rollout'?: MetricValue;
  /**
   * Wall time of the advantages and the π_old and reference log-probs.
   */
  'time/logprobs'?: MetricValue;
  /**
   * Wall time of the self-analysis (update and collect rows).
   */
  'time/analysis'?: MetricValue;
  /**
   * Wall time of the teacher pass.
   */
  'time/teacher'?: MetricValue;
  /**
   * Wall time of the PPO update.
   */
  'time/update'?: MetricValue;
  /**
   * Wall time of the whole update (collect rows: of the batch).
   */
  'time/total'?: MetricValue;
  /**
   * Wall time of one SFT optimizer step (sft rows).
   */
  'time/step'?: MetricValue;
  /**
   * Wall time of one evaluation of a split (eval rows, which the dashboard draws only in its evaluation chart).
   */
  'time/eval'?: MetricValue;
  /**
   * success/<task_type>: success/overall among the episodes of one task type, the type as the environment names it with spaces and slashes replaced by `_` (`metric_name()`).
   *
   * This interface was referenced by `MetricRow`'s JSON-Schema definition
   * via the `patternProperty` "^success/[^/\s]+$".
   *
   * This interface was referenced by `MetricRow`'s JSON-Schema definition
   * via the `patternProperty` "^[A-Za-z0-9_.-]+(/[^/\s]+)+$".
   */
  [metric: `${string}/${string}`]: number | null | undefined;
}

/**
 * Any namespaced metric name (`group/name`, segments without `/` or spaces), listed or not: a name this schema does not list is a newer trainer's (or a typo), read without a unit or a chart, and reported by checkers as an `unknown_metric` warning rather than refused, since a new metric name keeps the format version (docs/run-format.md §1).
 */
export type UnlistedMetric = number | null;

/**
 * A metric value; null when undefined at this step (e.g. loss/opd without a teacher pass). NaN/Infinity are written as null.
 */
export type MetricValue = number | null;

/**
 * A quantile (min, p05, p25, p50, p75, p95, max) of the gate g = σ(β·Δ) over the update's distilled tokens (docs/run-format.md §6): in [0, 1]; null when no token was distilled.
 */
export type GateQuantile = number | null;

/**
 * A quantile (min, p05, p25, p50, p75, p95, max) of Δ = ℓ^skill − ℓ^old over the update's distilled tokens; null when no token was distilled.
 */
export type DeltaQuantile = number | null;

/**
 * The distilled tokens the quantiles of g and Δ summarize (0: none, the quantiles are null).
 */
export type QuantileCount = number;
