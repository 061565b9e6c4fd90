// Generated from schemas/event.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { RunRelativePath, Timestamp } from './common';

/**
 * A lifecycle event. The same objects go to the trainer's stdout, one per line. Unknown `type` values are allowed (shown as plain messages); known types carry the typed fields listed in docs/run-format.md.
 */
export interface RunEvent {
  /**
   * When the event happened (UTC).
   */
  time: Timestamp;
  /**
   * Event type: started, progress, iteration, checkpoint, eval, warning, error, stop_requested, finished, resumed, model, info, skill_control (others may be added).
   */
  type: string;
  /**
   * One human-readable line; a reader can always show this alone.
   */
  message: string;
  /**
   * Optional. The update / SFT step the event belongs to.
   */
  step?: number;
  /**
   * started: the stage that starts.
   */
  stage?: 'collect' | 'sft' | 'train' | 'eval';
  /**
   * started: the trainer's process id.
   */
  pid?: number;
  /**
   * progress: the part of the work (convert, rollout, analysis, teacher, update, collect, sft, eval).
   */
  phase?: string;
  /**
   * progress: units finished.
   */
  done?: number;
  /**
   * progress / iteration: units planned; null when unknown.
   */
  total?: number | null;
  /**
   * checkpoint / eval: the directory or file written, relative to the run directory.
   */
  path?: RunRelativePath;
  /**
   * eval: the split evaluated.
   */
  split?: string;
  /**
   * iteration / eval: overall success rate, a fraction in [0, 1].
   */
  success?: number;
  /**
   * warning / error: a stable machine-readable code (e.g. `torn_line_repaired`, `analysis_invalid`).
   */
  code?: string;
  /**
   * error: the traceback or longer explanation; `message` stays one line.
   */
  detail?: string;
  /**
   * stop_requested: the control file or a signal (SIGINT/SIGTERM).
   */
  source?: 'control' | 'signal';
  /**
   * stop_requested: the signal name when source is `signal`.
   */
  signal?: string;
  /**
   * finished: the final status, as in run.json.
   */
  status?: 'stopped' | 'failed' | 'completed';
  /**
   * skill_control: the experiment's `opd.skill_control` (other_task, unrelated).
   */
  control?: string;
  /**
   * skill_control: whose skill the teacher read for each distilled trajectory of the update (group and copy index of the receiver; of the donor under other_task, or the fixed text under unrelated).
   */
  donors?: {
    /**
     * The receiving trajectory's task group.
     */
    group: number;
    /**
     * The receiving trajectory's copy within its group.
     */
    index: number;
    /**
     * other_task: the group whose skill the teacher read; null under unrelated.
     */
    donor_group?: number | null;
    /**
     * other_task: that trajectory's copy index; null under unrelated.
     */
    donor_index?: number | null;
    /**
     * unrelated: the fixed text the teacher read.
     */
    text?: string;
  }[];
}
