// Generated from schemas/control.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Timestamp } from './common';

/**
 * Written atomically by the extension (or any tool) to ask the trainer to act; the trainer reads it at every step boundary and never deletes it. An empty or unreadable control file also means stop.
 */
export interface ControlRequest {
  /**
   * stop: checkpoint, set status stopped, exit.
   */
  request: 'stop';
  /**
   * When the request was written.
   */
  time: Timestamp;
  /**
   * Optional. Who asked (vscode, cli, …).
   */
  source?: string;
}
