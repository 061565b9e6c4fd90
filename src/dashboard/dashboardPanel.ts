// The dashboard panel (webview/dashboard): one panel, any number of runs overlaid. After the webview's ready it gets
// the runs and their metrics so far; afterwards only the rows the runs model read since (the model tails
// metrics.jsonl). The webview reports each redraw (`rendered`), which tests read. Restored after a window reload.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { FROM_DASHBOARD, type BeforeAfterView, type DashboardRun, type FromDashboard, type ToDashboard } from './shared/protocol';
import type { Services } from '../services';
import { baselineRows, summarizeEval, type EvalSummary } from './shared/evaluation';
import { defaultDashboardRuns, restoredDashboardRuns } from './core/dashboardRuns';
import { describeRun } from './core/runDescription';
import { savedExportNotice } from './core/savedExport';
import type { RunEntry } from '../runs/runsModel';
import { PanelBase, createPanel } from '../webviewHost/panelBase';
import { providePanelSerializer } from '../lazyFeatures/featureStandIns';

const DASHBOARD_VIEW_TYPE = 'seedStudio.dashboard';

/** The latest report of every evaluated split of a run (unreadable reports are skipped: the run tree shows them). */
async function readEvaluations(entry: RunEntry): Promise<EvalSummary[]> {
  const reader = entry.index.reader;
  const splits = await reader.listEvalSplits().catch(() => []);
  const reports = await Promise.all(splits.map((split) => reader.readEval(split).then(summarizeEval, () => undefined)));
  return reports.filter((r): r is EvalSummary => r !== undefined);
}

/** Writes an exported chart where the user chooses (PNG from a data URL, CSV as text), then says where it is. */
async function saveExport(params: FromDashboard['export']): Promise<void> {
  const base = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = params.name.replace(/[^A-Za-z0-9_.-]+/g, '-');
  const target = await vscode.window.showSaveDialog({
    title: `SEED: export ${params.format.toUpperCase()}`,
    ...(base ? { defaultUri: vscode.Uri.joinPath(base, name) } : {}),
    filters: params.format === 'png' ? { 'PNG image': ['png'] } : { CSV: ['csv'] },
  });
  if (!target) return;
  const prefix = 'data:image/png;base64,';
  if (params.format === 'png' && !params.data.startsWith(prefix)) throw new Error('the chart image is not a PNG data URL');
  const bytes = params.format === 'png' ? Buffer.from(params.data.slice(prefix.length), 'base64') : Buffer.from(params.data, 'utf8');
  await vscode.workspace.fs.writeFile(target, bytes);
  const notice = savedExportNotice(target.fsPath, vscode.workspace.getWorkspaceFolder(target) !== undefined);
  void vscode.window.showInformationMessage(notice.text, ...notice.actions.map((action) => action.title)).then((pick) => {
    const action = notice.actions.find((a) => a.title === pick);
    if (action) void vscode.commands.executeCommand(action.command, target);
  });
}

export class DashboardPanel extends PanelBase<ToDashboard, FromDashboard> {
  static current: DashboardPanel | undefined;
  private overlay: string[];
  /** The overlaid runs the page was last told about (it has their metrics). */
  private described = new Set<string>();
  private readonly renderedListeners = new Set<(report: FromDashboard['rendered']) => void>();
  /** The webview's latest redraw report. */
  lastRendered: FromDashboard['rendered'] | undefined;

  private constructor(
    panel: vscode.WebviewPanel,
    runDirs: string[],
    private readonly services: Services,
    extensionUri: vscode.Uri,
  ) {
    super(panel, { title: 'SEED Dashboard', bundle: 'dashboard', fromPage: FROM_DASHBOARD }, { extensionUri, log: services.log });
    this.overlay = [...new Set(runDirs.map((dir) => path.resolve(dir)))];
    this.channel
      .onReady(() => this.sendAll())
      .on('overlay', async (params) => {
        const known = params.runs.filter((dir) => services.runs.get(dir));
        await this.setOverlay(known);
      })
      .on('rendered', (report) => {
        this.lastRendered = report;
        for (const listener of [...this.renderedListeners]) listener(report);
      })
      .on('export', saveExport);
    this.own(
      services.runs.onDidChangeRuns(() => this.sendRuns()),
      services.runs.onDidChangeRun((event) => {
        const dir = event.entry.dir;
        if (!this.overlay.includes(dir)) return;
        const change = event.change;
        // A reset (metrics.jsonl rewritten) sends everything again, the base evaluations with it.
        if (change?.metricsReset) this.sendMetrics(dir);
        else if (change && change.metrics.length > 0) this.channel.post('metrics', { run: dir, rows: change.metrics, reset: false });
        if (event.stateChanged || change?.manifest) {
          const run = describeRun(event.entry, services.runs.title(dir));
          const progress = event.entry.index.manifest?.progress;
          this.channel.post('status', {
            run: dir,
            status: run.status,
            ...(progress ? { progress: { step: progress.step, total: progress.total } } : {}),
            ...(run.error ? { error: run.error } : {}),
          });
        }
        if (change?.metrics.some((row) => row.kind === 'eval') || event.stateChanged || event.evalReports) this.sendEvaluations(dir);
      }),
    );
    this.updateTitle();
    // A restored or command-line run the model does not list yet (outside the discovery rules, or the scan still
    // running): add it; the runs event that follows describes it to the page with its metrics so far.
    for (const dir of this.overlay) if (!services.runs.get(dir)) void services.runs.add(dir).catch((error: unknown) => services.log.warn(`dashboard: ${dir}: ${String(error)}`));
  }

  /** Opens the dashboard (or reveals it) with `runDirs` overlaid. */
  static show(runDirs: string[], services: Services, extensionUri: vscode.Uri, existing?: vscode.WebviewPanel): DashboardPanel {
    if (DashboardPanel.current && !existing) {
      void DashboardPanel.current.setOverlay(runDirs);
      DashboardPanel.current.panel.reveal(undefined, true);
      return DashboardPanel.current;
    }
    const panel = existing ?? createPanel(DASHBOARD_VIEW_TYPE, 'SEED Dashboard', { viewColumn: vscode.ViewColumn.Active, preserveFocus: true }, extensionUri);
    DashboardPanel.current = new DashboardPanel(panel, runDirs, services, extensionUri);
    return DashboardPanel.current;
  }

  get runs(): readonly string[] {
    return this.overlay;
  }

  async setOverlay(runDirs: string[]): Promise<void> {
    const unique = [...new Set(runDirs.map((dir) => path.resolve(dir)))];
    for (const dir of unique) if (!this.services.runs.get(dir)) await this.services.runs.add(dir);
    this.overlay = unique;
    this.updateTitle();
    this.sendRuns();
  }

  private updateTitle(): void {
    const names = this.overlay.map((dir) => this.services.runs.title(dir));
    this.panel.title = names.length === 1 ? `SEED: ${names[0]}` : names.length > 1 ? `SEED: ${names.length} runs` : 'SEED Dashboard';
  }

  /**
   * Describes the runs to the page, then sends the metrics so far of each overlaid run the page did not know: the
   * page drops rows of runs it was not told about, so a run that joins late (added to the model after the dashboard
   * opened, as on a window reload) would otherwise show only the rows written after it joined.
   */
  private sendRuns(): void {
    const titles = this.services.runs.core.titles();
    const describe = (entry: RunEntry): DashboardRun => describeRun(entry, titles.get(entry.dir) ?? path.basename(entry.dir));
    const available = this.services.runs.runs().map(describe);
    const entries = this.overlay.map((dir) => this.services.runs.get(dir)).filter((e): e is RunEntry => e !== undefined);
    this.channel.post('runs', { overlaid: entries.map(describe), available });
    const known = this.described;
    this.described = new Set(entries.map((entry) => entry.dir));
    for (const entry of entries) if (!known.has(entry.dir)) this.sendMetrics(entry.dir);
  }

  /** The run's metrics so far, and apart from them its base evaluations (update 0 of the evaluation chart, never the run's
   * own evaluation) when it links any. */
  private sendMetrics(dir: string): void {
    const entry = this.services.runs.get(dir);
    if (entry) {
      void this.services.runs.core.beforeAfter(entry).catch(() => []).then((pairs) => {
        const current = this.services.runs.get(dir);
        if (!current || !this.overlay.includes(dir)) return;
        const baseline = baselineRows(pairs, current.index.manifest?.started);
        this.channel.post('metrics', { run: dir, rows: current.index.metrics, reset: true, ...(baseline.length ? { baseline } : {}) });
      });
    }
    this.sendEvaluations(dir);
  }

  private sendEvaluations(dir: string): void {
    const entry = this.services.runs.get(dir);
    if (!entry) return;
    void Promise.all([readEvaluations(entry), this.services.runs.core.beforeAfter(entry).catch(() => [])]).then(([reports, pairs]) => {
      if ((reports.length === 0 && pairs.length === 0) || !this.overlay.includes(dir)) return;
      const beforeAfter: BeforeAfterView[] = pairs.map((pair) => ({
        split: pair.split,
        baseRun: path.basename(pair.baseRun),
        ...(pair.before ? { before: { success: pair.before.overall.success, n: pair.before.overall.n } } : {}),
        ...(pair.after ? { after: { success: pair.after.overall.success, n: pair.after.overall.n } } : {}),
        ...(pair.change ? { change: pair.change } : {}),
        ...(pair.problem ? { problem: pair.problem } : {}),
      }));
      this.channel.post('evaluations', { run: dir, reports, ...(beforeAfter.length ? { beforeAfter } : {}) });
    });
  }

  /** Everything, again: after the webview's (re)load. */
  private sendAll(): void {
    this.described = new Set();
    this.sendRuns();
  }

  /** Resolves with the first redraw report that satisfies `predicate` (tests), or undefined after `timeoutMs`. */
  whenRendered(predicate: (report: FromDashboard['rendered']) => boolean, timeoutMs: number): Promise<FromDashboard['rendered'] | undefined> {
    if (this.lastRendered && predicate(this.lastRendered)) return Promise.resolve(this.lastRendered);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.renderedListeners.delete(listener);
        resolve(undefined);
      }, timeoutMs);
      const listener = (report: FromDashboard['rendered']): void => {
        if (!predicate(report)) return;
        clearTimeout(timer);
        this.renderedListeners.delete(listener);
        resolve(report);
      };
      this.renderedListeners.add(listener);
    });
  }

  override dispose(): void {
    if (DashboardPanel.current === this) DashboardPanel.current = undefined;
    super.dispose();
  }
}

function dirsOf(arg: unknown, selected: unknown): string[] {
  const one = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (value instanceof vscode.Uri) return value.fsPath;
    if (value && typeof value === 'object' && typeof (value as { dir?: unknown }).dir === 'string') return (value as { dir: string }).dir;
    return undefined;
  };
  if (Array.isArray(selected) && selected.length > 1) return selected.map(one).filter((d): d is string => d !== undefined);
  if (Array.isArray(arg)) return arg.map(one).filter((d): d is string => d !== undefined);
  const single = one(arg);
  return single ? [single] : [];
}

export function registerDashboard(context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('seedStudio.openDashboard', async (arg?: unknown, selected?: unknown) => {
      let dirs = dirsOf(arg, selected);
      if (dirs.length === 0) {
        await services.runs.ready;
        dirs = defaultDashboardRuns(services.runs.runs());
      }
      return DashboardPanel.show(dirs, services, context.extensionUri);
    }),
    // VS Code holds its stand-in from activation on (featureStandIns.ts).
    providePanelSerializer(DASHBOARD_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state: unknown) => {
        await services.runs.ready;
        if (DashboardPanel.current) {
          // A dashboard was opened while this one waited for the runs (the status bar, a command, a notification):
          // one dashboard, the one asked for. Left open, the restored tab could take the editor group's front and
          // leave the other one hidden (a hidden webview is unloaded: it draws nothing).
          panel.dispose();
          return;
        }
        const runs = restoredDashboardRuns(state, services.runs.runs(), (dir) => existsSync(path.join(dir, 'run.json')));
        DashboardPanel.show(runs, services, context.extensionUri, panel);
      },
    }),
    { dispose: () => DashboardPanel.current?.dispose() },
  );
}
