// Generated from schemas/trajectory-index.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { AnalyzerSource, Phase, Task } from './common';

/**
 * A small summary of one trajectory and the byte range of its line, appended after the trajectory line is complete. Lists and trees read only this file; a viewer reads exactly `size` bytes at `offset` of `file`.
 */
export interface TrajectoryIndexRow {
  /**
   * The trajectory's id.
   */
  id: string;
  /**
   * File name inside trajectories/.
   */
  file: string;
  /**
   * 1-based line of the trajectory in `file` (for messages).
   */
  line: number;
  /**
   * Byte offset of the line in `file`.
   */
  offset: number;
  /**
   * Byte length of the line including its newline.
   */
  size: number;
  phase: Phase;
  /**
   * As in the trajectory.
   */
  update: number | null;
  task: Task;
  /**
   * Optional. As in the trajectory.
   */
  group?: number;
  /**
   * Optional. As in the trajectory.
   */
  sample?: number;
  /**
   * As in the trajectory.
   */
  success: boolean;
  /**
   * As in the trajectory.
   */
  reward: number;
  /**
   * Environment steps.
   */
  length: number;
  /**
   * Response tokens over all steps.
   */
  tokens: number;
  /**
   * Whether any step carries teacher arrays (a heatmap of g is available).
   */
  teacher: boolean;
  /**
   * Validity and source of the trajectory's skill; null when no analysis ran.
   */
  skill?: {
    /**
     * As trajectory skill.valid.
     */
    valid: boolean;
    source: AnalyzerSource;
  } | null;
}
