// What if…'s messages between the trajectory viewer's host and page, declared here once; the viewer's protocol
// (src/trajectory/shared/protocol.ts) adds them to its own. Every page request is answered with its outcome: a
// rescoring's reply is its result (or the question to ask first), a save's the saved state. The host pushes only what
// it starts by itself: the state a (re)loaded page is shown, and the skill review's What if….
import type { Request } from '../../webviewHost/shared/protocol';
import type { WhatIfReply, WhatIfState } from './whatIfRecord';

type None = Record<string, never>;

export type WhatIfToHost = {
  /** Rescore the trajectory's response tokens under this skill (behind a cancellable progress); `useTrainer`: the
   * user agreed to the trainer when asked. */
  whatIf: Request<{ skill: string; useTrainer?: boolean }, WhatIfReply>;
  /** Save the what-if results next to the run (whatif/<trajectory id>.json). */
  saveWhatIf: Request<None, WhatIfState>;
  /** Export this kept checkpoint of the run as ONNX (SEED: Export Checkpoint…, with its progress notification);
   * answered when the export has ended, whatever its outcome (the command tells that). */
  whatIfExport: Request<{ checkpoint: string }, void>;
  /** The job the host was running when this page loaded (a reload while it ran): answered with the state once it has
   * ended, or its error. */
  whatIfWait: Request<None, WhatIfState>;
};

export type WhatIfToWebview = {
  /** The state a (re)loaded page starts from: the results so far (saved ones reopened) and the job running now. */
  whatIfState: WhatIfState;
  /** Open What if… with this skill typed in (the skill review's What if… on a record). */
  startWhatIf: { skill: string };
};

export const WHAT_IF_TO_HOST = { whatIf: true, saveWhatIf: true, whatIfExport: true, whatIfWait: true } as const;
export const WHAT_IF_TO_WEBVIEW = { whatIfState: true, startWhatIf: true } as const;
