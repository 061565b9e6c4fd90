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
  /**
   * What the check ran with.
   */
  settings: {
    /**
     * rollout.history of the step prompts.
     */
    history: number;
    /**
     * rollout.memory of the step prompts (the line of places searched); absent in reports made before the setting: off.
     */
    memory?: boolean;
    /**
     * Step limit of the household episodes.
     */
    max_steps: number;
    /**
     * Most prompt tokens (the teacher prompt keeps its task line and skill, as in training).
     */
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
    /**
     * β of the gate g = σ(β·Δ).
     */
    beta: number;
    /**
     * The trajectory viewer's neutral band (its absolute scales' uncoloured centre bin).
     */
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
    /**
     * Per skill source, per token kind (action, think, format).
     */
    sources: {
      [k: string]: {
        [k: string]: {
          /**
           * Tokens of this kind scored under this source.
           */
          tokens: number;
          /**
           * Of them, with |g − ½| at or above the band.
           */
          outside: number;
          /**
           * outside / tokens.
           */
          share_outside: number;
          /**
           * Mean |Δ| over them (nats).
           */
          mean_abs_delta: number;
        };
      };
    };
  };
  /**
   * How long it took.
   */
  timing: {
    /**
     * The whole command after the model loaded.
     */
    seconds: number;
    /**
     * The scoring passes alone.
     */
    forward_seconds: number;
    /**
     * Prompt + response tokens of those passes (each distinct prompt-response pair once).
     */
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
  /**
   * Not computed.
   */
  status: 'n/a';
  /**
   * Why (e.g. the model wrote no parseable skill).
   */
  reason: string;
}

/**
 * Per skill source: how many items, how many had a skill of that source.
 */
export interface SkillCounts {
  [k: string]: {
    /**
     * Items (tasks or trajectories).
     */
    items: number;
    /**
     * Items with a skill of this source.
     */
    with_skill: number;
  };
}

/**
 * The source's statistic minus its placebo's on the same tasks (paired).
 */
export interface Contrast {
  /**
   * The skill source.
   */
  source: string;
  /**
   * Its placebo: the same source's skill of another task with the same outcome.
   */
  placebo: string;
  /**
   * Tasks with both.
   */
  tasks: number;
  /**
   * Source minus placebo (a rate or AUC difference, 0-1 scale).
   */
  difference: number | null;
  interval: Interval;
}

export interface KindResult {
  /**
   * (a*, m) pairs of this mistake kind.
   */
  pairs: number;
  /**
   * Tasks they come from.
   */
  tasks: number;
  win_rate: Rate;
  interval: Interval;
}

export interface ExpertSource {
  /**
   * Computed.
   */
  status: 'ok';
  /**
   * (a*, m) pairs scored.
   */
  pairs: number;
  /**
   * Tasks they come from.
   */
  tasks: number;
  /**
   * P(Δ(a*) > Δ(m)) over the action tokens, ties ½.
   */
  win_rate: Rate;
  interval: Interval;
  /**
   * The same over the whole response's Δ (secondary).
   */
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
  /**
   * Per mistake kind.
   */
  by_kind: {
    [k: string]: KindResult;
  };
}

export interface ExpertSection {
  /**
   * Computed.
   */
  status: 'ok';
  /**
   * The household split of the tasks.
   */
  split: string;
  /**
   * Tasks checked.
   */
  tasks: number;
  /**
   * States of attempt B with at least one mistake.
   */
  states: number;
  /**
   * Scored (a*, m) pairs over all sources.
   */
  pairs: number;
  /**
   * The attempts the skills were written about.
   */
  attempt_a: {
    /**
     * Per mistake kind, the demonstrator's rate in attempt A.
     */
    mistake_rates: {
      [k: string]: number;
    };
    /**
     * Probability of repeating an inadmissible command.
     */
    repeat_invalid: number;
    /**
     * Attempts A that won.
     */
    won: number;
  };
  skills: SkillCounts;
  /**
   * Per skill source: oracle, own, placebo_oracle, placebo_own.
   */
  sources: {
    [k: string]: NotApplicable | ExpertSource;
  };
  /**
   * Each source against its placebo, paired by task.
   */
  contrasts: Contrast[];
  /**
   * The first tasks' skills, to read (model-written text: untrusted).
   */
  examples: {
    /**
     * The task sentence.
     */
    task: string;
    /**
     * Whether attempt A won.
     */
    won: boolean;
    /**
     * The oracle analyzer's skill.
     */
    oracle: string | null;
    /**
     * The model's own skill; null when it did not parse.
     */
    own: string | null;
  }[];
}

export interface RunSource {
  /**
   * Computed.
   */
  status: 'ok';
  /**
   * Trajectories with a skill of this source.
   */
  trajectories: number;
  /**
   * Tasks they come from.
   */
  tasks: number;
  /**
   * Steps of successful episodes.
   */
  steps_success: number;
  /**
   * Steps of failed episodes.
   */
  steps_failure: number;
  /**
   * P(Δ of a step of a successful episode > Δ of a failed one's), ties ½.
   */
  auc: Rate;
  interval: Interval;
}

export interface RunSection {
  /**
   * Computed.
   */
  status: 'ok';
  /**
   * The run folder's name.
   */
  run: string;
  /**
   * Trajectories scored (the first --max-trajectories with recorded tokens).
   */
  trajectories: number;
  /**
   * Of them, successful.
   */
  successes: number;
  skills: SkillCounts;
  /**
   * Per skill source: own, recorded (the run's skill), their placebos.
   */
  sources: {
    [k: string]: NotApplicable | RunSource;
  };
  /**
   * Each source's AUC against its placebo's, paired by task.
   */
  contrasts: Contrast[];
}
