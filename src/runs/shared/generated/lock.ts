// Generated from schemas/lock.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.
import type { Timestamp } from './common';

/**
 * Names the process that took the run directory's exclusive OS lock (flock; on Windows a byte-range lock). The lock, not this content, says whether the owner lives: the kernel drops it when the process dies. Rewritten by every new owner; an empty file means an owner is taking it right now.
 */
export interface RunLock {
  /**
   * The owning process.
   */
  pid: number;
  /**
   * The host it runs on.
   */
  host: string;
  /**
   * When it took the lock.
   */
  since: Timestamp;
  /**
   * What it runs: train, resume, sft, eval, collect.
   */
  command?: string;
}
