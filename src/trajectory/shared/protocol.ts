// Messages of the trajectory viewer (webview/trajectory); the diff's are in src/diff/shared/protocol.ts. See
// src/webviewHost/shared/protocol.ts.
// (Type aliases, not interfaces: a message map must be assignable to Record<string, unknown>.)
import type { Trajectory } from '../../runs/shared/types';
import { WHAT_IF_TO_HOST, WHAT_IF_TO_WEBVIEW, type WhatIfToHost, type WhatIfToWebview } from '../../whatIf/shared/whatIfProtocol';
import type { OpdEstimator } from '../../runs/shared/opdEstimator';
import { messageSet } from '../../webviewHost/shared/protocol';

/** A trajectory as the host hands it to a webview: the record as stored (token arrays still base64) and its run. */
export interface TrajectoryPayload {
  /** The run directory (as the host addresses it; shown, and sent back in requests). */
  runDir: string;
  /** A short name of the run: its id, or the directory name. */
  run: string;
  trajectory: Trajectory;
  /** The run's OPD estimator (run.json config `opd.estimator`); absent when run.json does not say one this reader knows. */
  estimator?: OpdEstimator;
}

/** What a webview reports once it has drawn (tests and the bench read it). */
export interface RenderedReport {
  /** Milliseconds from receiving the data to the end of the first layout. */
  ms: number;
  turns: number;
  /** Turns whose DOM exists now (virtualization keeps this small). */
  turnsInDom: number;
  /** Generated tokens in the trajectory (all turns). */
  tokens: number;
  /** Token elements in the DOM now. */
  tokensInDom: number;
}

export type ViewerToWebview = {
  show: TrajectoryPayload;
  error: { message: string };
} & WhatIfToWebview;

export type ViewerToHost = {
  /** Copy the whole trajectory as text (the host renders it: the same text as "Open as Text"). */
  copyText: { turn?: number };
  openText: Record<string, never>;
  /** Pick another trajectory and compare this one with it. */
  compare: Record<string, never>;
  rendered: RenderedReport;
} & WhatIfToHost;

export const VIEWER_TO_WEBVIEW = messageSet<ViewerToWebview>({ show: true, error: true, ...WHAT_IF_TO_WEBVIEW });
export const VIEWER_TO_HOST = messageSet<ViewerToHost>({ copyText: true, openText: true, compare: true, rendered: true, ...WHAT_IF_TO_HOST });
