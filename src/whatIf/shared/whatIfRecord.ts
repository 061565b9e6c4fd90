// The records of a what-if file, types only (the webviews import them too): generated from schemas/whatif.schema.json,
// named here by part.
import type { WhatIfFile } from '../../runs/shared/generated/whatif';

export type { WhatIfFile };
export type WhatIfResultRecord = WhatIfFile['results'][number];

/** The what-if results of the trajectory shown, newest last; `file` once they are saved (or were reopened). */
export interface WhatIfPayload {
  results: WhatIfResultRecord[];
  file?: string;
  /** Asked in the view instead of rescoring: the trainer is needed (no export that fits) and was not accepted yet. */
  question?: WhatIfQuestion;
}

/** A question the viewer asks before rescoring through the trainer. */
export interface WhatIfQuestion {
  text: string;
  /** The label of the button that accepts (the request is then sent again with `useTrainer`). */
  accept: string;
  /** What else could be done (export the weights for the editor). */
  hint?: string;
  /** The kept checkpoint the view's export button exports as ONNX (seedStudio.exportCheckpoint), relative to the run
   * (`checkpoints/step-000001`); absent when there is nothing to export (the starting model) or an export exists. */
  exportCheckpoint?: string;
}
