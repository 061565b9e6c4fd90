// The trajectory viewer panel (webview/trajectory): one panel per trajectory, revealed again when reopened; it sends
// the trajectory record after the webview's ready, and serves its requests (copy as text, open as text, compare, and
// What if…'s through its desk, src/whatIf/core/whatIfDesk.ts).
import * as vscode from 'vscode';
import { PanelBase, createPanel } from '../webviewHost/panelBase';
import { renderTrajectoryText } from './core/textRender';
import {
  VIEWER_TO_HOST,
  type RenderedReport,
  type ViewerToHost,
  type ViewerToWebview,
} from './shared/protocol';
import type { RunAccess, TrajectoryRef } from '../runs/runAccess';
import { trajectoryTextUri } from './trajectoryDocuments';
import { WhatIfSession } from '../whatIf/whatIfSession';
import { WhatIfDesk } from '../whatIf/core/whatIfDesk';

export const TRAJECTORY_VIEW_TYPE = 'seedStudio.trajectory';

/** SEED: Export Checkpoint… (src/modelExport/), run by name: features reach each other through commands. */
const EXPORT_CHECKPOINT_COMMAND = 'seedStudio.exportCheckpoint';

export interface ViewerHooks {
  compare(ref: TrajectoryRef): Promise<unknown>;
}

export class TrajectoryPanel extends PanelBase<ViewerToWebview, ViewerToHost> {
  private static readonly open = new Map<string, TrajectoryPanel>();
  private renderedWaiters: Array<(report: RenderedReport) => void> = [];
  private readonly whatIf: WhatIfSession;
  private readonly desk: WhatIfDesk;
  /** A skill to open "What if…" with once the trajectory is shown; sent at once when it is. */
  private pendingWhatIf: string | undefined;
  private shown = false;
  /** The skill "What if…" was last opened with (tests read it). */
  whatIfStarted: string | undefined;
  /** The last report from the webview (tests read it). */
  lastRendered: RenderedReport | undefined;

  private constructor(
    panel: vscode.WebviewPanel,
    readonly ref: TrajectoryRef,
    private readonly access: RunAccess,
    private readonly hooks: ViewerHooks,
    private readonly log: vscode.LogOutputChannel,
    extensionUri: vscode.Uri,
  ) {
    super(panel, { title: `Trajectory ${ref.id}`, bundle: 'trajectory', fromPage: VIEWER_TO_HOST }, { extensionUri, log });
    const session = (this.whatIf = new WhatIfSession(ref, access, log));
    this.desk = new WhatIfDesk({
      reopen: () => this.reopenWhatIf(),
      state: () => session.state(),
      rescore: (skill, useTrainer) => session.rescore(skill, useTrainer),
      save: () => session.save(),
      // The command checks that the run keeps these weights (the page's text is not trusted) and reports the outcome
      // itself; the view rescores afterwards, with the export when there is one now.
      exportCheckpoint: async (checkpoint) => {
        await vscode.commands.executeCommand(EXPORT_CHECKPOINT_COMMAND, { runDir: this.ref.runDir, checkpoint, format: 'onnx' });
      },
    });
    this.channel
      .onReady(() => void this.send())
      .on('copyText', async () => this.copyText())
      .on('openText', async () => {
        await vscode.window.showTextDocument(trajectoryTextUri(this.ref), { preview: false, viewColumn: vscode.ViewColumn.Beside });
      })
      .on('compare', async () => {
        await this.hooks.compare(this.ref);
      })
      .on('rendered', (report) => {
        this.lastRendered = report;
        for (const waiter of this.renderedWaiters.splice(0)) waiter(report);
      })
      .handle(this.desk.handlers);
    this.own(this.whatIf);
  }

  static key(ref: TrajectoryRef): string {
    return `${ref.runDir}\n${ref.id}`;
  }

  /** Opens (or reveals) the viewer of a trajectory. */
  static show(
    ref: TrajectoryRef,
    access: RunAccess,
    hooks: ViewerHooks,
    log: vscode.LogOutputChannel,
    extensionUri: vscode.Uri,
    existing?: vscode.WebviewPanel,
  ): TrajectoryPanel {
    const key = TrajectoryPanel.key(ref);
    const open = TrajectoryPanel.open.get(key);
    if (open && !existing) {
      open.panel.reveal();
      return open;
    }
    const panel = existing ?? createPanel(TRAJECTORY_VIEW_TYPE, `Trajectory ${ref.id}`, vscode.ViewColumn.Active, extensionUri);
    const viewer = new TrajectoryPanel(panel, ref, access, hooks, log, extensionUri);
    TrajectoryPanel.open.set(key, viewer);
    return viewer;
  }

  /** Opens "What if…" in the viewer with `skill` typed in (now, or once the trajectory is shown). */
  startWhatIf(skill: string): void {
    if (!this.shown) {
      this.pendingWhatIf = skill;
      return;
    }
    this.pendingWhatIf = undefined;
    this.whatIfStarted = skill;
    this.channel.post('startWhatIf', { skill });
  }

  /** Resolves with the webview's next report that it has drawn (or the last one, if it has drawn already). */
  whenRendered(): Promise<RenderedReport> {
    if (this.lastRendered) return Promise.resolve(this.lastRendered);
    return new Promise((resolve) => this.renderedWaiters.push(resolve));
  }

  private async send(): Promise<void> {
    try {
      const loaded = await this.access.load(this.ref);
      this.panel.title = `Trajectory ${loaded.trajectory.id}`;
      this.channel.post('show', { runDir: loaded.runDir, run: loaded.run, trajectory: loaded.trajectory, ...(loaded.estimator ? { estimator: loaded.estimator } : {}) });
      this.shown = true;
      if (this.pendingWhatIf !== undefined) this.startWhatIf(this.pendingWhatIf);
    } catch (error) {
      this.reportLoadError(error);
      return;
    }
    const restored = this.desk.restored();
    if (restored) this.channel.post('whatIfState', restored);
  }

  private reopenWhatIf(): void {
    try {
      this.whatIf.reopen();
    } catch (error) {
      // A bad what-if file does not stop the trajectory from showing; it is named and left as it is.
      const message = (error as Error).message;
      this.log.warn(`what-if results of ${this.ref.id}: ${message}`);
      void vscode.window.showWarningMessage(`SEED: the saved what-if results were not reopened: ${message}`);
    }
  }

  private reportLoadError(error: unknown): void {
    const message = (error as Error).message;
    this.log.error(`trajectory ${this.ref.id} in ${this.ref.runDir}: ${message}`);
    this.channel.post('error', { message });
    void vscode.window.showErrorMessage(`SEED: cannot open trajectory ${this.ref.id}: ${message}`);
  }

  private async copyText(): Promise<void> {
    const loaded = await this.access.load(this.ref);
    const text = renderTrajectoryText(loaded.trajectory, { run: loaded.run });
    await vscode.env.clipboard.writeText(text);
    void vscode.window.setStatusBarMessage(`SEED: copied trajectory ${this.ref.id} as text (${text.split('\n').length - 1} lines)`, 4000);
  }

  override dispose(): void {
    const key = TrajectoryPanel.key(this.ref);
    if (TrajectoryPanel.open.get(key) === this) TrajectoryPanel.open.delete(key);
    super.dispose();
  }
}
