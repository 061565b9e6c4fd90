// Generated from schemas/checkpoint-manifest.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/**
 * Written last into a checkpoint, after every other file of it is complete and synced: the checkpoint is complete when this file exists and every file it lists has its size. Anything else in the directory is not part of the checkpoint.
 */
export interface CheckpointManifest {
  /**
   * The update (or SFT step) the checkpoint holds; equals the number in the directory name.
   */
  step: number;
  /**
   * Every file of the checkpoint (POSIX path relative to the checkpoint directory) and its size in bytes.
   */
  files: {
    [k: string]: number;
  };
}
