// Generated from schemas/eval.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Task, Timestamp } from './common';

/**
 * Success of one evaluation of one split with the plain prompt (no skill). Replaced atomically; the latest evaluation of a split wins, earlier ones remain in metrics.jsonl (kind eval).
 */
export interface EvalReport {
  /**
   * The split, equal to the file name stem.
   */
  split: string;
  /**
   * The update whose weights were evaluated; null for the base model.
   */
  step: number | null;
  /**
   * Optional. Checkpoint evaluated (relative to the run directory, or absolute).
   */
  checkpoint?: string | null;
  /**
   * When the evaluation finished.
   */
  time: Timestamp;
  overall: EvalSummary;
  /**
   * One summary per task type.
   */
  by_task_type: {
    [k: string]: EvalSummary;
  };
  /**
   * Every evaluated episode.
   */
  episodes: {
    task: Task;
    /**
     * Episode outcome.
     */
    success: boolean;
    /**
     * Environment reward (0/1 scale).
     */
    reward: number;
    /**
     * Steps taken.
     */
    length: number;
    /**
     * Optional. Id of the trajectory in trajectories/eval-<split>.jsonl.
     */
    trajectory?: string;
  }[];
}

export interface EvalSummary {
  /**
   * Success rate, a fraction in [0, 1].
   */
  success: number;
  /**
   * Episodes.
   */
  n: number;
  /**
   * Optional. Mean episode length in steps.
   */
  mean_length?: number;
}
