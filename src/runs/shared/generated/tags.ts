// Generated from schemas/tags.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Timestamp } from './common';

/**
 * The user's labels of a run, written atomically by the extension's runs table (or any tool); the trainer neither writes nor reads it. A missing file means no tags.
 */
export interface RunTags {
  /**
   * Labels in the order the user added them: no leading or trailing white space, no duplicates.
   *
   * @maxItems 64
   */
  tags: string[];
  /**
   * Optional. When the tags were last written.
   */
  time?: Timestamp;
  /**
   * Optional. Who wrote them (vscode, cli, …).
   */
  source?: string;
}
