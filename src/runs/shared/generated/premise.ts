// Generated from schemas/premise.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/**
 * Does a hindsight skill in the prompt move the model's log-probabilities the right way? Δ = ℓ^skill − ℓ^plain of the same response tokens, summed over the action tokens per step; intervals are task-clustered percentile bootstraps (docs/premise.md). Written by the trainer, shown by the extension's "SEED: Show Premise Report".
 */
export interface PremiseReport {
  /**
   * Version of this file's format.
   */
  format: 1;
  /**
   * The model checked: a folder or builtin:NAME, as given.
   */
  model: string;
  settings: {
    /**
     * rollout.history of the step prompts.
     */
    history: number;
    max_steps: number;
    max_prompt_tokens: number;
    /**
     * Most tokens of the model's own analysis.
     */
    analysis_tokens: number;
    /**
     * Temperature of the scored distributions.
     */
    temperature: number;
    /**
     * β of the gate g = σ(β·Δ).
     */
    beta: number;
    /**
     * Bootstrap resamples.
     */
    resamples: number;
    /**
     * The intervals' level.
     */
    level: number;
    /**
     * Task sample and bootstrap seed.
     */
    seed: number;
    /**
     * The compute dtype of the forward passes.
     */
    dtype: string;
  };
  /**
   * Household states where the environment knows the correct action a* and mistakes m: P(Δ(a*) > Δ(m)) per skill source, against the same-outcome skill of another task (placebo).
   */
  expert_vs_mistake: NotApplicable | ExpertSection;
  /**
   * One section per --run: the AUC of a step's Δ between successful and failed episodes.
   */
  runs: RunSection[];
  /**
   * Where the gate leaves the neutral band the trajectory viewer leaves uncoloured, per skill source and token kind (action, think, format).
   */
  gate_band: {
    beta: number;
    neutral_band: {
      /**
       * A gate is outside when |g − ½| ≥ this.
       */
      gate: number;
      /**
       * The Δ scale's centre bin: |Δ| < this.
       */
      delta: number;
    };
    sources: {
      [k: string]: {
        [k: string]: {
          tokens: number;
          outside: number;
          share_outside: number;
          mean_abs_delta: number;
        };
      };
    };
  };
  timing: {
    seconds: number;
    forward_seconds: number;
    forward_tokens: number;
    /**
     * What the times cover.
     */
    covers: string;
  };
}

/**
 * [low, high]; nulls when it cannot be computed (fewer than two tasks).
 *
 * @minItems 2
 * @maxItems 2
 */
export type Interval = (number | null)[];

export type Rate = number | null;

export interface NotApplicable {
  status: 'n/a';
  reason: string;
}

/**
 * Per skill source: how many items, how many had a skill of that source.
 */
export interface SkillCounts {
  [k: string]: {
    items: number;
    with_skill: number;
  };
}

/**
 * The source's statistic minus its placebo's on the same tasks (paired).
 */
export interface Contrast {
  source: string;
  placebo: string;
  tasks: number;
  difference: number | null;
  interval: Interval;
}

export interface KindResult {
  pairs: number;
  tasks: number;
  win_rate: Rate;
  interval: Interval;
}

export interface ExpertSource {
  status: 'ok';
  pairs: number;
  tasks: number;
  /**
   * P(Δ(a*) > Δ(m)) over the action tokens, ties ½.
   */
  win_rate: Rate;
  interval: Interval;
  whole_response: {
    win_rate: Rate;
    interval: Interval;
  };
  /**
   * Mean Δ of a* over its action tokens (nats).
   */
  mean_delta_expert: number | null;
  /**
   * Mean Δ of the mistakes (nats).
   */
  mean_delta_mistake: number | null;
  by_kind: {
    [k: string]: KindResult;
  };
}

export interface ExpertSection {
  status: 'ok';
  split: string;
  tasks: number;
  states: number;
  pairs: number;
  /**
   * The attempts the skills were written about.
   */
  attempt_a: {
    mistake_rates: {
      [k: string]: number;
    };
    repeat_invalid: number;
    won: number;
  };
  skills: SkillCounts;
  sources: {
    [k: string]: NotApplicable | ExpertSource;
  };
  contrasts: Contrast[];
  examples: {
    task: string;
    won: boolean;
    oracle: string | null;
    own: string | null;
  }[];
}

export interface RunSource {
  status: 'ok';
  trajectories: number;
  tasks: number;
  steps_success: number;
  steps_failure: number;
  /**
   * P(Δ of a step of a successful episode > Δ of a failed one's), ties ½.
   */
  auc: Rate;
  interval: Interval;
}

export interface RunSection {
  status: 'ok';
  /**
   * The run folder's name.
   */
  run: string;
  trajectories: number;
  successes: number;
  skills: SkillCounts;
  sources: {
    [k: string]: NotApplicable | RunSource;
  };
  contrasts: Contrast[];
}
