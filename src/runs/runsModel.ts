// The runs of the workspace for every feature: the thin VS Code adapter of the runs layer (src/runs/core/runsCore.ts).
// It scans with the `seedStudio.runs.include` / `exclude` rules (src/runs/core/discovery.ts), watches run files, rescans
// when the rules or the workspace folders change, and re-emits the core's changes as VS Code events.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { RunDiscovery, discoveryRules, joinGlobs } from './core/discovery';
import { RUN_WATCH_GLOBS, RunsCore, isEvalReport, runDirOfFile, type RunChangeEvent, type RunEntry } from './core/runsCore';
import { findSchemasDir, RunSchemas } from './core/schemas';

export { isLive, type RunChangeEvent, type RunEntry, type RunState } from './core/runsCore';

function configuredDiscovery(): RunDiscovery {
  const config = vscode.workspace.getConfiguration('seedStudio.runs');
  return new RunDiscovery(discoveryRules(config.get('include'), config.get('exclude')));
}

export class RunsModel implements vscode.Disposable {
  readonly core: RunsCore;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changedRuns = new vscode.EventEmitter<void>();
  private readonly changedRun = new vscode.EventEmitter<RunChangeEvent>();
  private discovery = configuredDiscovery();
  private schemasValue: RunSchemas | undefined;
  private started: Promise<void> | undefined;

  /** Runs were added or removed. */
  readonly onDidChangeRuns = this.changedRuns.event;
  /** One run's content or live state changed. */
  readonly onDidChangeRun = this.changedRun.event;

  constructor(
    private readonly extensionRoot: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.core = new RunsCore({ schemas: () => this.schemas, scan: () => this.scan(), warn: (message) => log.warn(message) });
    const offRuns = this.core.onDidChangeRuns(() => this.changedRuns.fire());
    const offRun = this.core.onDidChangeRun((event) => this.changedRun.fire(event));
    this.disposables.push(this.changedRuns, this.changedRun, { dispose: () => (offRuns(), offRun(), this.core.dispose()) });
  }

  /** Starts watching and the first scan; `ready` resolves when the scan is done. Called once, after activation. */
  start(): Promise<void> {
    if (this.started) return this.started;
    const onEvent = (uri: vscode.Uri): void => this.onFileEvent(uri);
    for (const glob of RUN_WATCH_GLOBS) {
      const watcher = vscode.workspace.createFileSystemWatcher(glob);
      this.disposables.push(watcher, watcher.onDidCreate(onEvent), watcher.onDidChange(onEvent), watcher.onDidDelete(onEvent));
    }
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.rescan()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (!event.affectsConfiguration('seedStudio.runs')) return;
        this.discovery = configuredDiscovery();
        void this.rescan();
      }),
    );
    this.core.startPolling();
    this.started = this.core.rescan();
    return this.started;
  }

  get ready(): Promise<void> {
    return this.start();
  }

  get schemas(): RunSchemas {
    this.schemasValue ??= RunSchemas.load(findSchemasDir({ extensionRoot: this.extensionRoot }));
    return this.schemasValue;
  }

  /** Run directories matching the discovery rules in every workspace folder. */
  private async scan(): Promise<string[]> {
    const { include, exclude } = this.discovery.rules;
    const includeGlob = joinGlobs(include);
    if (!includeGlob) return [];
    const found = await vscode.workspace.findFiles(includeGlob, joinGlobs(exclude) ?? null);
    return found.filter((uri) => this.discovery.matches(vscode.workspace.asRelativePath(uri, false))).map((uri) => path.dirname(uri.fsPath));
  }

  runs(): RunEntry[] {
    return this.core.runs();
  }

  get(dir: string): RunEntry | undefined {
    return this.core.get(dir);
  }

  find(key: string): RunEntry | undefined {
    return this.core.find(key);
  }

  /** The title that tells a run from the others (name · stage or algorithm · splits; start time when needed). */
  title(dir: string): string {
    return this.core.title(dir);
  }

  rescan(): Promise<void> {
    return this.core.rescan();
  }

  /** Adds a run directory whatever the discovery rules (a run launched here, a dashboard argument). */
  add(dir: string): Promise<RunEntry> {
    return this.core.add(dir);
  }

  refresh(dir: string): Promise<RunEntry | undefined> {
    return this.core.refresh(dir);
  }

  schedule(dir: string): void {
    this.core.schedule(dir);
  }

  follow(dir: string, on: boolean): void {
    this.core.follow(dir, on);
  }

  private onFileEvent(uri: vscode.Uri): void {
    const file = uri.fsPath;
    const name = path.basename(file);
    const dir = runDirOfFile(file);
    if (isEvalReport(file)) {
      this.core.evalReportsChanged(dir);
      return;
    }
    const entry = this.get(dir);
    if (!entry) {
      if (name === 'run.json' && existsSync(file) && this.discovery.matches(vscode.workspace.asRelativePath(uri, false))) void this.core.discovered(dir);
      return;
    }
    if (name === 'run.json' && !existsSync(file)) {
      this.core.remove(entry.dir);
      return;
    }
    this.schedule(entry.dir);
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}

interface RunPick extends vscode.QuickPickItem {
  dir: string;
}

/** The one run picker: the model's runs (newest first) passing `filter`, titled so that they can be told apart. */
export async function pickRun(
  runs: RunsModel,
  options: { title: string; filter?: (entry: RunEntry) => boolean; preferred?: string; empty: string; pickSingle?: boolean },
): Promise<string | undefined> {
  await runs.ready;
  const candidates = runs.runs().filter(options.filter ?? (() => true));
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(`SEED: ${options.empty}`);
    return undefined;
  }
  if (candidates.length === 1 && !options.pickSingle) return candidates[0]?.dir;
  const titles = runs.core.titles();
  const items: RunPick[] = candidates.map((entry) => {
    const manifest = entry.index.manifest;
    const success = runs.core.success(entry);
    return {
      label: titles.get(entry.dir) ?? path.basename(entry.dir),
      description: [entry.state, success, vscode.workspace.asRelativePath(entry.dir)].filter(Boolean).join(' · '),
      detail: manifest ? `${manifest.id} · ${manifest.stage} · ${manifest.algorithm}` : entry.index.manifestError?.message,
      dir: entry.dir,
    };
  });
  if (options.preferred) {
    const preferred = path.resolve(options.preferred);
    items.sort((x, y) => Number(y.dir === preferred) - Number(x.dir === preferred));
  }
  // Kept open when the focus moves (here and in the pickers that follow it): a command run from a walkthrough button
  // or a webview gets the focus taken back by that page just after its picker opens, which closed the picker unasked.
  const choice = await vscode.window.showQuickPick(items, { title: `SEED: ${options.title}`, placeHolder: 'Run', matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true });
  return choice?.dir;
}
