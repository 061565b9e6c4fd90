// Generated from schemas/skill.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { AnalyzerSource, Task, Timestamp } from './common';

/**
 * One analyzed trajectory with its review state. Appended by the collect stage; afterwards the review rewrites the file whole (temp + rename), changing only `review` objects and keeping every other line byte-identical.
 */
export interface SkillRecord {
  /**
   * Record id, unique in the file (the writer uses the trajectory id).
   */
  id: string;
  /**
   * Where the analyzed trajectory is: its id and file in trajectories/; null when it was not kept.
   */
  trajectory: {
    /**
     * Trajectory id.
     */
    id: string;
    /**
     * File name inside trajectories/.
     */
    file: string;
  } | null;
  task: Task;
  /**
   * Outcome label given to the analyzer.
   */
  success: boolean;
  /**
   * Episode reward (0/1 environment scale).
   */
  reward: number;
  /**
   * Episode steps.
   */
  length: number;
  source: AnalyzerSource;
  /**
   * Optional. The analyzer model (endpoint model name or checkpoint path).
   */
  model?: string | null;
  /**
   * `episode_summary` of the analysis; null when absent.
   */
  summary: string | null;
  /**
   * `episode_skill` as the analyzer wrote it; null when no JSON object could be parsed.
   */
  skill: string | null;
  /**
   * Format verification: `episode_skill` non-empty after strip. Invalid records are never trained on.
   */
  valid: boolean;
  /**
   * Why the record is invalid; null when valid.
   */
  reason: string | null;
  /**
   * Optional. The analyzer's raw reply.
   */
  raw?: string;
  /**
   * When the analysis was written.
   */
  time: Timestamp;
  /**
   * The reviewer's decision. The SFT target text is `review.text` when edited, else `skill`.
   */
  review: {
    /**
     * pending (not reviewed), accepted, rejected (excluded from SFT), edited (accepted with `text`).
     */
    state: 'pending' | 'accepted' | 'rejected' | 'edited';
    /**
     * The edited skill; required, non-empty, when state is `edited`.
     */
    text?: string;
    /**
     * Optional. When the decision was made.
     */
    time?: Timestamp;
    /**
     * Optional. Reviewer's note.
     */
    note?: string;
  };
}
