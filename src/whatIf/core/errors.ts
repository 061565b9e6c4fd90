// The what-if rescorer's refusals: one clear sentence naming what is wrong (and the file when there is one), thrown
// before anything is computed or written.

export type WhatIfProblem =
  | 'export' // the export folder is missing a file, or export.json is not valid
  | 'mismatch' // tokenizer and model disagree, or the export is of another run
  | 'skill' // the skill text cannot be inserted (control characters, empty)
  | 'context' // prompt + response longer than the model's context
  | 'trajectory' // a step without what rescoring needs (prompt text, token ids)
  | 'runtime' // onnxruntime-node is not installed for this platform
  | 'trainer' // the trainer's rescoring (python -m seed_trainer rescore) refused, failed or could not start
  | 'cancelled';

export class WhatIfError extends Error {
  constructor(
    readonly problem: WhatIfProblem,
    message: string,
  ) {
    super(message);
    this.name = 'WhatIfError';
  }
}
