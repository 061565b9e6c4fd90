// Every run directory in the workspace (and every run this window launched elsewhere), each followed by a RunIndex.
// Changes arrive from file-system events (debounced per run) and, for runs whose trainer is alive, from a light poll
// (watchers may coalesce or drop events); either way only appended bytes are read. Also decides each run's live
// status: a `running` run whose trainer process is gone is `interrupted`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { hasChanges, mergeChanges, RunIndex, type RunIndexChange } from '../runs/runIndex';
import { findSchemasDir, RunSchemas } from '../runs/schemas';
import { liveStatus, type LiveStatus } from '../trainer/trainerProcess';

export type RunState = LiveStatus | 'broken' | 'loading';

export interface RunEntry {
  dir: string;
  index: RunIndex;
  state: RunState;
}

export interface RunChangeEvent {
  entry: RunEntry;
  change: RunIndexChange | undefined;
  /** The live state changed (e.g. running → completed, running → interrupted). */
  stateChanged: boolean;
  previousState: RunState;
}

const DEBOUNCE_MS = 120;
const LIVE_POLL_MS = 1000;
const WATCH_GLOB = '**/{run.json,events.jsonl,metrics.jsonl,index.jsonl}';

export function isLive(state: RunState): boolean {
  return state === 'running' || state === 'stopping';
}

export class RunsModel implements vscode.Disposable {
  private readonly entries = new Map<string, RunEntry>();
  /** Runs polled whatever their state (a trainer was just started for them). */
  private readonly followed = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changedRuns = new vscode.EventEmitter<void>();
  private readonly changedRun = new vscode.EventEmitter<RunChangeEvent>();
  private schemasValue: RunSchemas | undefined;
  private poll: ReturnType<typeof setInterval> | undefined;
  private discovery: Promise<void> | undefined;
  private disposed = false;

  /** Runs were added or removed. */
  readonly onDidChangeRuns = this.changedRuns.event;
  /** One run's content or live state changed. */
  readonly onDidChangeRun = this.changedRun.event;

  constructor(
    private readonly extensionRoot: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(this.changedRuns, this.changedRun);
  }

  /** Starts watching and the first scan; `ready` resolves when the scan is done. Called once, after activation. */
  start(): Promise<void> {
    if (this.discovery) return this.discovery;
    const watcher = vscode.workspace.createFileSystemWatcher(WATCH_GLOB);
    const onEvent = (uri: vscode.Uri): void => this.onFileEvent(uri);
    this.disposables.push(watcher, watcher.onDidCreate(onEvent), watcher.onDidChange(onEvent), watcher.onDidDelete(onEvent));
    this.disposables.push(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.rescan()));
    this.poll = setInterval(() => this.pollLive(), LIVE_POLL_MS);
    this.discovery = this.rescan();
    return this.discovery;
  }

  get ready(): Promise<void> {
    return this.start();
  }

  get schemas(): RunSchemas {
    this.schemasValue ??= RunSchemas.load(findSchemasDir({ extensionRoot: this.extensionRoot }));
    return this.schemasValue;
  }

  runs(): RunEntry[] {
    // Newest first: run ids start with the UTC start time.
    return [...this.entries.values()].sort((a, b) => runSortKey(b).localeCompare(runSortKey(a)));
  }

  get(dir: string): RunEntry | undefined {
    return this.entries.get(path.resolve(dir));
  }

  /** Finds the run whose directory or id is `key`. */
  find(key: string): RunEntry | undefined {
    return this.get(key) ?? [...this.entries.values()].find((entry) => entry.index.manifest?.id === key || path.basename(entry.dir) === key);
  }

  /** Scans the workspace for run directories (run.json files), adding new ones and dropping vanished ones. */
  async rescan(): Promise<void> {
    let found: vscode.Uri[] = [];
    try {
      found = await vscode.workspace.findFiles('**/run.json', '{**/node_modules/**,**/.git/**}');
    } catch (error) {
      this.log.warn(`runs: workspace scan failed: ${String(error)}`);
    }
    const dirs = new Set(found.map((uri) => path.dirname(uri.fsPath)));
    await Promise.all([...dirs].map((dir) => this.add(dir, { quiet: true })));
    let removed = false;
    for (const [dir] of this.entries) {
      if (!existsSync(path.join(dir, 'run.json'))) {
        this.entries.delete(dir);
        removed = true;
      }
    }
    if (dirs.size > 0 || removed) this.changedRuns.fire();
  }

  /** Adds a run directory (no-op when known) and reads it. */
  async add(dir: string, options: { quiet?: boolean } = {}): Promise<RunEntry> {
    const key = path.resolve(dir);
    const known = this.entries.get(key);
    if (known) return known;
    const entry: RunEntry = { dir: key, index: new RunIndex(key, this.schemas), state: 'loading' };
    this.entries.set(key, entry);
    await this.refreshEntry(entry);
    if (!options.quiet) this.changedRuns.fire();
    return entry;
  }

  /** Reads what changed in one run now. */
  async refresh(dir: string): Promise<RunEntry | undefined> {
    const entry = this.get(dir);
    if (entry) await this.refreshEntry(entry);
    return entry;
  }

  private async refreshEntry(entry: RunEntry): Promise<void> {
    if (this.disposed) return;
    let change: RunIndexChange | undefined;
    try {
      change = await entry.index.refresh();
      const manifest = entry.index.manifest;
      if (manifest && isLive(manifest.status) && liveStatus(manifest, { runDir: entry.dir }) === 'interrupted') {
        // The trainer may have written its final status and exited between our read and the liveness check:
        // read run.json once more before calling the run interrupted.
        entry.index.reloadManifest();
        mergeChanges(change, await entry.index.refresh());
      }
    } catch (error) {
      this.log.warn(`runs: ${entry.dir}: ${String(error)}`);
    }
    this.updateState(entry, change);
  }

  private updateState(entry: RunEntry, change: RunIndexChange | undefined): void {
    const previousState = entry.state;
    const manifest = entry.index.manifest;
    entry.state = manifest ? liveStatus(manifest, { runDir: entry.dir }) : entry.index.manifestError ? 'broken' : 'loading';
    const stateChanged = previousState !== entry.state;
    if (stateChanged || (change && hasChanges(change))) {
      this.changedRun.fire({ entry, change, stateChanged, previousState });
    }
  }

  private onFileEvent(uri: vscode.Uri): void {
    const file = uri.fsPath;
    const name = path.basename(file);
    const parent = path.dirname(file);
    const dir = name === 'index.jsonl' && path.basename(parent) === 'trajectories' ? path.dirname(parent) : parent;
    const entry = this.get(dir);
    if (!entry) {
      if (name === 'run.json' && existsSync(file)) void this.add(dir);
      return;
    }
    if (name === 'run.json' && !existsSync(file)) {
      this.entries.delete(entry.dir);
      this.changedRuns.fire();
      return;
    }
    this.schedule(entry.dir);
  }

  /** A debounced refresh of one run (bursts of appends become one read). */
  schedule(dir: string): void {
    if (this.timers.has(dir)) return;
    this.timers.set(
      dir,
      setTimeout(() => {
        this.timers.delete(dir);
        const entry = this.get(dir);
        if (entry) void this.refreshEntry(entry);
      }, DEBOUNCE_MS),
    );
  }

  private pollLive(): void {
    for (const entry of this.entries.values()) {
      if (isLive(entry.state) || entry.state === 'loading' || this.followed.has(entry.dir)) this.schedule(entry.dir);
    }
  }

  /** Polls a run whatever its state while `on` (a trainer host following a process it started). */
  follow(dir: string, on: boolean): void {
    if (on) this.followed.add(path.resolve(dir));
    else this.followed.delete(path.resolve(dir));
  }

  dispose(): void {
    this.disposed = true;
    if (this.poll) clearInterval(this.poll);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const disposable of this.disposables) disposable.dispose();
  }
}

function runSortKey(entry: RunEntry): string {
  return entry.index.manifest?.started ?? path.basename(entry.dir);
}
