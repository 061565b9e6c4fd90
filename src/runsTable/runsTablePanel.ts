// The runs table panel (webview/runsTable): every run the runs layer follows (the Runs view's include/exclude) as a
// row. Rows are rebuilt for the runs that changed (coalesced, at most four times a second) and sent whole. Tags are
// written to the run's tags.json; the pinned baseline is kept in the workspace state. One table per window.
import * as vscode from 'vscode';
import { RUNS_TABLE_TO_HOST, type RunsTableToHost, type RunsTableToWebview } from './shared/protocol';
import type { RunsTableRow } from './shared/runsTable';
import { runsTableRow } from './core/runsTableRows';
import type { Services } from '../services';
import { writeTags } from '../runs/core/tags';
import { refuseWhenUntrusted } from '../common/trust';
import { PanelBase, createPanel } from '../webviewHost/panelBase';

const RUNS_TABLE_VIEW_TYPE = 'seedStudio.runsTable';
const BASELINE_KEY = 'seedStudio.runsTable.baseline';
const COALESCE_MS = 250;

class RunsTablePanel extends PanelBase<RunsTableToWebview, RunsTableToHost> {
  static current: RunsTablePanel | undefined;
  private readonly rows = new Map<string, RunsTableRow>();
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
        await context.workspaceState.update(BASELINE_KEY, run ?? undefined);
        await this.flush();
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

  /** Rebuilds the rows that changed (all of them after a rescan) and sends the table. */
  private async flush(): Promise<void> {
    if (!this.ready) return;
    const entries = this.services.runs.runs();
    const keep = new Set(entries.map((e) => e.dir));
    for (const dir of this.rows.keys()) if (!keep.has(dir)) this.rows.delete(dir);
    const todo = entries.filter((e) => this.all || this.stale.has(e.dir) || !this.rows.has(e.dir));
    this.all = false;
    this.stale = new Set();
    const built = await Promise.all(todo.map((entry) => runsTableRow(entry, this.services.runs.title(entry.dir))));
    for (const row of built) this.rows.set(row.key, row);
    // Titles can change for every run when one is added (collisions get the start time).
    for (const entry of entries) {
      const row = this.rows.get(entry.dir);
      if (row) row.title = this.services.runs.title(entry.dir);
    }
    const baseline = this.context.workspaceState.get<string>(BASELINE_KEY);
    this.channel.post('rows', {
      rows: entries.map((e) => this.rows.get(e.dir)).filter((r): r is RunsTableRow => r !== undefined),
      baseline: baseline && keep.has(baseline) ? baseline : null,
      readOnly: !vscode.workspace.isTrusted,
    });
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
