// Messages of the evaluation sample table (webview/evalSamples, src/evalSamples/evalSamplesPanel.ts).
import type { SampleRow } from './evalSamples';
import { messageSet } from '../../webviewHost/shared/protocol';

export type EvalSamplesToWebview = {
  /** Every evaluated episode of the run (all evaluations), and which evaluation to show first. */
  samples: { run: string; rows: SampleRow[]; initial?: string };
  error: { message: string };
};

export type EvalSamplesToHost = {
  /** Open a trajectory; `runDir` when it is another run's (a linked base evaluation). */
  open: { trajectory: string; runDir?: string };
  /** Open two episodes of the same task side by side in the diff viewer. */
  compare: { a: { trajectory: string; runDir?: string }; b: { trajectory: string; runDir?: string } };
  rendered: { rows: number; ms: number };
};

export const EVAL_SAMPLES_TO_WEBVIEW = messageSet<EvalSamplesToWebview>({ samples: true, error: true });
export const EVAL_SAMPLES_TO_HOST = messageSet<EvalSamplesToHost>({ open: true, compare: true, rendered: true });
