// Messages of the trajectory diff (webview/diff). See src/webviewHost/shared/protocol.ts.
// (Type aliases, not interfaces: a message map must be assignable to Record<string, unknown>.)
import type { RenderedReport, TrajectoryPayload } from '../../trajectory/shared/protocol';
import { messageSet } from '../../webviewHost/shared/protocol';

export type DiffToWebview = {
  show: { a: TrajectoryPayload; b: TrajectoryPayload };
  error: { message: string };
};

export type DiffToHost = {
  openTextDiff: Record<string, never>;
  openTrajectory: { side: 'a' | 'b' };
  rendered: RenderedReport & { rows: number; firstDivergence: number };
};

export const DIFF_TO_WEBVIEW = messageSet<DiffToWebview>({ show: true, error: true });
export const DIFF_TO_HOST = messageSet<DiffToHost>({ openTextDiff: true, openTrajectory: true, rendered: true });
