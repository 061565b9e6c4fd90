// Generated from schemas/common.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/**
 * ISO-8601 instant in UTC with a Z suffix, e.g. 2026-03-01T12:00:00.000Z (fractional seconds optional).
 */
export type Timestamp = string;

/**
 * Where a trajectory came from: Stage-1 collection, a Stage-2 update, or an evaluation.
 */
export type Phase = 'collect' | 'train' | 'eval';

/**
 * Who wrote a skill: `self` (the policy being trained), `external` (an OpenAI-compatible endpoint), `oracle` (an environment that knows the answer), `static` (a fixed skill bank, SDAR and the static-library ablation).
 */
export type AnalyzerSource = 'self' | 'external' | 'oracle' | 'static';

/**
 * The task an episode attempted.
 */
export interface Task {
  /**
   * Task identifier, stable across runs of the same environment (e.g. a game file or seed).
   */
  id: string;
  /**
   * Task type as the environment names it (ALFWorld: pick_and_place, look_at_obj_in_light, …); per-type metrics use it.
   */
  type: string;
  /**
   * The task line shown to the agent ("Your task is to: …").
   */
  description?: string;
  /**
   * Environment split the task was drawn from (train, eval_in_distribution, eval_out_of_distribution, …).
   */
  split?: string;
}

/**
 * The hindsight skill written for a trajectory by the analyzer (Stage 2: the policy itself).
 */
export interface TrajectorySkill {
  /**
   * `episode_skill` of the analysis after JSON repair; null when none could be parsed.
   */
  text: string | null;
  /**
   * `episode_summary` of the analysis; null when absent.
   */
  summary?: string | null;
  /**
   * True iff the analysis passed format verification (non-empty episode_skill). Invalid: the trajectory gets no distillation (mask 0).
   */
  valid: boolean;
  source: AnalyzerSource;
  /**
   * Why the analysis is invalid (e.g. `no JSON object`, `episode_skill empty`); null when valid.
   */
  reason?: string | null;
  /**
   * The analyzer's raw reply. Optional; written when the analysis is invalid so the reason can be inspected.
   */
  raw?: string;
}

/**
 * Standard base64 (RFC 4648, padded) of little-endian 32-bit signed integers; `count` items.
 */
export type Base64Int32 = string;

/**
 * Standard base64 (RFC 4648, padded) of little-endian IEEE-754 float32 values; `count` items.
 */
export type Base64Float32 = string;

/**
 * A POSIX path relative to the run directory, without `..` segments.
 */
export type RunRelativePath = string;
