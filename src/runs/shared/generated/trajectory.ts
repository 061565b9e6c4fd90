// Generated from schemas/trajectory.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Base64Float32, Base64Int32, Phase, Task, TrajectorySkill } from './common';

/**
 * One episode with every step's prompt context, response, action and per-token arrays. Large: readers open one line by the byte range in trajectories/index.jsonl.
 */
export interface Trajectory {
  /**
   * Trajectory id, unique in the run (writer default: <file stem>-<index in file>, e.g. it-000001-0007).
   */
  id: string;
  phase: Phase;
  /**
   * The Stage-2 update that sampled it (1-based), the collection batch for phase collect; for eval the update whose weights were evaluated, null for a model that is not a Stage-2 update.
   */
  update: number | null;
  task: Task;
  /**
   * Optional. Index of the GRPO group (one task × N copies) within the update.
   */
  group?: number;
  /**
   * Optional. Index of this copy within its group (0..N-1).
   */
  sample?: number;
  /**
   * Episode outcome: environment reward ≥ 1 on the 0/1 scale.
   */
  success: boolean;
  /**
   * Episode reward from the environment on its 0/1 scale (1 = success). The scaled reward R = reward_scale × success minus penalties is each step's `score`.
   */
  reward: number;
  /**
   * Environment steps taken (= steps.length).
   */
  length: number;
  /**
   * The hindsight skill written for this trajectory; null or absent when no analysis ran (grpo, eval).
   */
  skill?: TrajectorySkill | null;
  /**
   * Optional. The environment's reply to the last action.
   */
  final_observation?: string;
  /**
   * The environment steps in order; each step is one training sample.
   */
  steps: TrajectoryStep[];
}

export interface TrajectoryStep {
  /**
   * Step index from 0.
   */
  t: number;
  /**
   * The current observation shown in the step's prompt (raw environment text).
   */
  observation: string;
  /**
   * Optional. The step prompt h_t: the user turn before the chat template. The trainer writes it for every training, Stage-1 collection and evaluation step, so what-if rescoring can rebuild the teacher prompt H(h_t, s).
   */
  prompt?: string;
  /**
   * The sampled response a_t, decoded without special tokens.
   */
  response: string;
  /**
   * The text inside <action>…</action>; null when the response has no well-formed action.
   */
  action: string | null;
  /**
   * Whether the response held a well-formed action.
   */
  valid: boolean;
  /**
   * Optional. The environment's reward for this step.
   */
  env_reward?: number;
  /**
   * Optional. The step score used for the advantage: episode reward minus the invalid-action penalty.
   */
  score?: number;
  /**
   * Optional. GRPO advantage A broadcast to this step's tokens; null outside training.
   */
  advantage?: number | null;
  /**
   * Optional. Length of the student prompt in tokens after truncation.
   */
  prompt_tokens?: number;
  /**
   * Optional. The response hit max_response_tokens.
   */
  truncated?: boolean;
  tokens?: EncodedTokens;
}

/**
 * Per-token arrays of the response, all of length `count`. Numeric arrays are base64 little-endian typed arrays; teacher_logp, delta and gate are present together (teacher pass ran) or all absent.
 */
export interface EncodedTokens {
  /**
   * Response tokens in this step.
   */
  count: number;
  /**
   * Token ids (int32).
   */
  ids: Base64Int32;
  /**
   * Each token's text; joined they give the generated text including special tokens. A token that ends inside a multi-byte character has "" and the next token carries the character.
   */
  text: string[];
  /**
   * ℓ^θ: student log-prob (natural log) of each sampled token, the value Δ was computed from; at rollout time for eval.
   */
  logp?: Base64Float32;
  /**
   * ℓ^skill: log-prob of the same token under the skill-conditioned teacher prompt (π_old, no grad).
   */
  teacher_logp?: Base64Float32;
  /**
   * Δ = ℓ^skill − ℓ^θ in nats.
   */
  delta?: Base64Float32;
  /**
   * g = σ(β_opd·Δ) in [0, 1], before masking (the OPD mask of a trajectory is its skill.valid).
   */
  gate?: Base64Float32;
  /**
   * Optional. What the OPD estimator subtracted from g (opd.estimator centred: ½; baseline: b(s) = Σ_v π_old(v|s)·g(v); expected: the same b(s), the sum of its soft-target weights); absent with the paper's `sample`. The update's per-token weight on the sampled token is g − gate_baseline.
   */
  gate_baseline?: Base64Float32;
}
