// The runs table panel (webview/runsTable): every run the runs layer follows (the Runs view's include/exclude) as a
// row. Rows are rebuilt for the runs that changed (coalesced, at most four times a second) and sent whole, each with
// its paired change against the baseline of each split (core/runsTableStore.ts). Tags are written to the run's
// tags.json; the baselines (split → run) are kept in the workspace state. One table per window.
import * as vscode from 'vscode';
import { RUNS_TABLE_TO_HOST, type RunsTableToHost, type RunsTableToWebview } from './shared/protocol';
import { baselinesOf, pinBaseline, unpinBaseline, type Baselines } from './shared/runsTable';
import { RunsTableStore } from './core/runsTableStore';
import type { Services } from '../services';
import { writeTags } from '../runs/core/tags';
import { refuseWhenUntrusted } from '../common/trust';
import { PanelBase, createPanel } from '../webviewHost/panelBase';

const RUNS_TABLE_VIEW_TYPE = 'seedStudio.runsTable';
/** Split → baseline run key (an older version kept one run key: that run for every split it has). */
const BASELINE_KEY = 'seedStudio.runsTable.baseline';
const COALESCE_MS = 250;

class RunsTablePanel extends PanelBase<RunsTableToWebview, RunsTableToHost> {
  static current: RunsTablePanel | undefined;
  private readonly store = new RunsTableStore();
  private stale = new Set<string>();
  private all = true;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  /** The page's latest render report (tests). */
  lastRendered: RunsTableToHost['rendered'] | undefined;

  private constructor(
    panel: vscode.WebviewPanel,
    private readonly services: Services,
    private readonly context: vscode.ExtensionContext,
  ) {
    super(panel, { title: 'SEED Runs', bundle: 'runsTable', fromPage: RUNS_TABLE_TO_HOST }, { extensionUri: context.extensionUri, log: services.log });
    const runs = services.runs;
    this.channel
      .onReady(() => {
        this.ready = true;
        this.all = true;
        void runs.ready.then(() => this.flush());
      })
      .on('tags', async ({ changes }) => {
        if (refuseWhenUntrusted('write tags into run folders')) return;
        for (const { run, tags } of changes) {
          if (!runs.get(run)) throw new Error(`not a run of this workspace: ${run}`);
          await writeTags(run, tags);
          this.stale.add(run);
        }
        await this.flush();
      })
      .on('pin', async ({ run }) => {
        const row = this.store.list(runs.runs()).find((r) => r.key === run);
        if (!row) throw new Error(`not a run of this workspace: ${run}`);
        await this.saveBaselines(pinBaseline(this.baselines(), row));
      })
      .on('unpin', async ({ run }) => {
        await this.saveBaselines(unpinBaseline(this.baselines(), run));
      })
      .on('openDashboard', async ({ runs: dirs }) => {
        await vscode.commands.executeCommand('seedStudio.openDashboard', dirs);
      })
      .on('openSamples', async ({ run }) => {
        await vscode.commands.executeCommand('seedStudio.openEvalSamples', { dir: run });
      })
      .on('exportCsv', async ({ csv }) => {
        const base = vscode.workspace.workspaceFolders?.[0]?.uri;
        const target = await vscode.window.showSaveDialog({
          title: 'SEED: export the runs table as CSV',
          ...(base ? { defaultUri: vscode.Uri.joinPath(base, 'runs.csv') } : {}),
          filters: { CSV: ['csv'] },
        });
        if (target) await vscode.workspace.fs.writeFile(target, Buffer.from(csv, 'utf8'));
      })
      .on('rendered', (report) => {
        this.lastRendered = report;
      });
    this.own(
      runs.onDidChangeRuns(() => this.queue(undefined)),
      runs.onDidChangeRun((event) => this.queue(event.entry.dir)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.queue(undefined)),
    );
  }

  static show(services: Services, context: vscode.ExtensionContext): RunsTablePanel {
    if (RunsTablePanel.current) {
      RunsTablePanel.current.panel.reveal();
      return RunsTablePanel.current;
    }
    const panel = createPanel(RUNS_TABLE_VIEW_TYPE, 'SEED Runs', vscode.ViewColumn.Active, context.extensionUri);
    RunsTablePanel.current = new RunsTablePanel(panel, services, context);
    return RunsTablePanel.current;
  }

  private queue(dir: string | undefined): void {
    if (dir === undefined) this.all = true;
    else this.stale.add(dir);
    if (this.timer || !this.ready) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, COALESCE_MS);
  }

  /** The baselines of the rows kept (runs gone left out). */
  private baselines(): Baselines {
    return baselinesOf(this.context.workspaceState.get<unknown>(BASELINE_KEY), this.store.list(this.services.runs.runs()));
  }

  private async saveBaselines(baselines: Baselines): Promise<void> {
    await this.context.workspaceState.update(BASELINE_KEY, Object.keys(baselines).length > 0 ? baselines : undefined);
    await this.flush();
  }

  /** Rebuilds the rows that changed (all of them after a rescan), their changes against the baselines, and sends the
   * table. */
  private async flush(): Promise<void> {
    if (!this.ready) return;
    const runs = this.services.runs;
    const entries = runs.runs();
    const all = this.all;
    const stale = this.stale;
    this.all = false;
    this.stale = new Set();
    await this.store.update(entries, (dir) => all || stale.has(dir), (dir) => runs.title(dir));
    const rows = this.store.list(entries);
    const baselines = this.baselines();
    this.store.applyBaselines(rows, baselines);
    this.channel.post('rows', { rows, baselines, readOnly: !vscode.workspace.isTrusted });
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (RunsTablePanel.current === this) RunsTablePanel.current = undefined;
    super.dispose();
  }
}

export function registerRunsTable(context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('seedStudio.openRunsTable', () => RunsTablePanel.show(services, context)),
    { dispose: () => RunsTablePanel.current?.dispose() },
  );
}
