// The trajectory diff panel (webview/diff): two trajectories aligned turn by turn in the webview
// (src/diff/shared/align.ts); the host loads both, and serves "Open as Text Diff" and opening either side in the
// viewer. The trajectory feature opens it (compare, restore after a reload) and lends it those two actions.
import * as vscode from 'vscode';
import { PanelBase, createPanel } from '../webviewHost/panelBase';
import type { RenderedReport } from '../trajectory/shared/protocol';
import { DIFF_TO_HOST, type DiffToHost, type DiffToWebview } from './shared/protocol';
import type { RunAccess, TrajectoryRef } from '../runs/runAccess';

/** What the diff asks of the trajectory feature, which opens it (so the diff does not import the trajectory's host). */
export interface DiffHooks {
  openViewer(ref: TrajectoryRef): unknown;
  openTextDiff(a: TrajectoryRef, b: TrajectoryRef): Promise<void>;
}

export const DIFF_VIEW_TYPE = 'seedStudio.trajectoryDiff';

type DiffReport = DiffToHost['rendered'];

export class TrajectoryDiffPanel extends PanelBase<DiffToWebview, DiffToHost> {
  private waiters: Array<(report: DiffReport) => void> = [];
  lastRendered: DiffReport | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    readonly a: TrajectoryRef,
    readonly b: TrajectoryRef,
    private readonly access: RunAccess,
    private readonly hooks: DiffHooks,
    private readonly log: vscode.LogOutputChannel,
    extensionUri: vscode.Uri,
  ) {
    super(panel, { title: `${a.id} ↔ ${b.id}`, bundle: 'diff', fromPage: DIFF_TO_HOST }, { extensionUri, log });
    this.channel
      .onReady(() => void this.send())
      .on('openTextDiff', () => this.hooks.openTextDiff(this.a, this.b))
      .on('openTrajectory', ({ side }) => {
        this.hooks.openViewer(side === 'b' ? this.b : this.a);
      })
      .on('rendered', (report) => {
        this.lastRendered = report;
        for (const waiter of this.waiters.splice(0)) waiter(report);
      });
  }

  static show(
    a: TrajectoryRef,
    b: TrajectoryRef,
    access: RunAccess,
    hooks: DiffHooks,
    log: vscode.LogOutputChannel,
    extensionUri: vscode.Uri,
    existing?: vscode.WebviewPanel,
  ): TrajectoryDiffPanel {
    const panel = existing ?? createPanel(DIFF_VIEW_TYPE, `${a.id} ↔ ${b.id}`, vscode.ViewColumn.Active, extensionUri);
    return new TrajectoryDiffPanel(panel, a, b, access, hooks, log, extensionUri);
  }

  whenRendered(): Promise<RenderedReport & { rows: number; firstDivergence: number }> {
    if (this.lastRendered) return Promise.resolve(this.lastRendered);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async send(): Promise<void> {
    try {
      const [a, b] = await Promise.all([this.access.load(this.a), this.access.load(this.b)]);
      this.channel.post('show', {
        a: { runDir: a.runDir, run: a.run, trajectory: a.trajectory, ...(a.estimator ? { estimator: a.estimator } : {}) },
        b: { runDir: b.runDir, run: b.run, trajectory: b.trajectory, ...(b.estimator ? { estimator: b.estimator } : {}) },
      });
      if (a.trajectory.task.id !== b.trajectory.task.id) {
        void vscode.window.showWarningMessage(`SEED: ${a.id} and ${b.id} are different tasks (${a.trajectory.task.id}, ${b.trajectory.task.id}); the alignment compares their actions anyway.`);
      }
    } catch (error) {
      const message = (error as Error).message;
      this.log.error(`trajectory diff ${this.a.id} ↔ ${this.b.id}: ${message}`);
      this.channel.post('error', { message });
      void vscode.window.showErrorMessage(`SEED: cannot compare: ${message}`);
    }
  }
}
