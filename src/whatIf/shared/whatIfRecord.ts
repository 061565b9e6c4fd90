// The records of a what-if file and the viewer's What if… state, types only (the webviews import them too): the
// file's generated from schemas/whatif.schema.json, named here by part.
import type { WhatIfFile } from '../../runs/shared/generated/whatif';

export type { WhatIfFile };
export type WhatIfResultRecord = WhatIfFile['results'][number];

/** What if… of the trajectory shown: every result, newest last; `file` once they are saved (or were reopened). */
export interface WhatIfState {
  results: WhatIfResultRecord[];
  file?: string;
  /** What the host is running for the viewer now; only told to a page that (re)loads meanwhile. */
  running?: WhatIfJob;
}

/** A rescoring (through the trainer when `trainer`) or an export of a checkpoint for it. */
export type WhatIfJob = { kind: 'rescore'; skill: string; trainer: boolean } | { kind: 'export'; checkpoint: string };

/** The reply to a rescoring: the state with the new results, or the question to ask first (the trainer is needed: no
 * export that fits, and the user has not agreed yet). */
export type WhatIfReply = { kind: 'rescored'; state: WhatIfState } | { kind: 'needsConsent'; question: WhatIfQuestion };

/** A question the viewer asks before rescoring through the trainer. */
export interface WhatIfQuestion {
  text: string;
  /** The label of the button that accepts (the page then asks again, with `useTrainer`). */
  accept: string;
  /** What else could be done (export the weights for the editor). */
  hint?: string;
  /** The kept checkpoint the view's export button exports as ONNX (seedStudio.exportCheckpoint), relative to the run
   * (`checkpoints/step-000001`); absent when there is nothing to export (the starting model) or an export exists. */
  exportCheckpoint?: string;
}
