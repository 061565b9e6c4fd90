// The runs layer every feature reads: each run directory followed by a RunIndex, its live state, and change events.
// Changes arrive from the adapter's file events (debounced per run) and, for live runs, from a light poll (watchers
// may coalesce or drop events); either way only appended bytes are read. No `vscode` import: the adapter
// (src/runs/runsModel.ts) supplies the workspace scan and turns the events into VS Code events.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { liveStatus, type LiveStatus } from './trainerProcess';
import { RUN_FILES, runPaths } from './runFiles';
import { hasChanges, mergeChanges, RunIndex, type RunIndexChange } from './runIndex';
import { runSuccess, runTitle, titleExtras, type RunFacts } from './runLabel';
import { baselineDirs, readBeforeAfter, type BeforeAfter } from './beforeAfter';
import type { RunSchemas } from './schemas';
import type { RunManifest } from '../shared/types';

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
  /** An evaluation report (eval/<split>.json) of the run, or of a base evaluation it links, was written or removed:
   * its before/after is read again. Nothing else of the run need have changed. */
  evalReports?: boolean;
}

const DEBOUNCE_MS = 120;
const LIVE_POLL_MS = 1000;

export function isLive(state: RunState): boolean {
  return state === 'running' || state === 'stopping';
}

/**
 * The state to show: the manifest's status, `interrupted` for a live status whose trainer is gone, and `stopping`
 * from the moment a stop was asked for (the trainer writes `stopping` only at its next step boundary, seconds later).
 */
export function runState(
  manifest: Pick<RunManifest, 'status' | 'pid' | 'host'> | undefined,
  options: { broken?: boolean; stopRequested?: boolean; live?: (manifest: Pick<RunManifest, 'status' | 'pid' | 'host'>) => LiveStatus } = {},
): RunState {
  if (!manifest) return options.broken ? 'broken' : 'loading';
  const state = (options.live ?? liveStatus)(manifest);
  return state === 'running' && options.stopRequested ? 'stopping' : state;
}

/**
 * What the runs model watches in a workspace (relative globs): the files the runs index reads, and the evaluation
 * reports (eval/<split>.json), which a before/after reads and which the trainer writes after the evaluation's metrics
 * row — on a loaded machine after the extension has read that row.
 */
export const RUN_WATCH_GLOBS: readonly string[] = [`**/{${RUN_FILES.manifest},${RUN_FILES.events},${RUN_FILES.metrics},index.jsonl}`, `**/${RUN_FILES.evalDir}/*.json`];

/** Whether a watched file is an evaluation report, eval/<split>.json: not a writer's temporary `.<name>.tmp-<pid>`,
 * nor the run.json of a run directory that happens to be named `eval`. */
export function isEvalReport(file: string): boolean {
  const name = path.basename(file);
  return path.basename(path.dirname(file)) === RUN_FILES.evalDir && name.endsWith('.json') && !name.startsWith('.') && name !== RUN_FILES.manifest;
}

/** The run directory a watched file belongs to: its folder, or for trajectories/index.jsonl and eval/<split>.json the
 * folder above. */
export function runDirOfFile(file: string): string {
  const parent = path.dirname(file);
  const nested = (path.basename(file) === 'index.jsonl' && path.basename(parent) === RUN_FILES.trajectoriesDir) || isEvalReport(file);
  return nested ? path.dirname(parent) : parent;
}

/** What changes when an evaluation report of a run is written or removed: its eval/ folder (reports are renamed into
 * it). `none` without one. */
export function evalReportsStamp(runDir: string): string {
  try {
    const info = statSync(runPaths(runDir).evalDir);
    return `${info.ino}:${info.mtimeMs}`;
  } catch {
    return 'none';
  }
}

export function factsOf(entry: RunEntry): RunFacts {
  const evalSplits = [...entry.index.batches.values()].filter((b) => b.phase === 'eval' && b.split).map((b) => b.split as string);
  return { dir: entry.dir, manifest: entry.index.manifest, metrics: entry.index.metrics, evalSplits };
}

type Listener<T> = (value: T) => void;

export interface RunsCoreOptions {
  schemas: () => RunSchemas;
  /** Run directories found by the workspace scan (the discovery rules applied). */
  scan: () => Promise<string[]>;
  warn: (message: string) => void;
  /** The live status of a manifest (tests replace the process check). */
  live?: (manifest: Pick<RunManifest, 'status' | 'pid' | 'host'>) => LiveStatus;
}

export class RunsCore {
  private readonly entries = new Map<string, RunEntry>();
  /** Runs polled whatever their state (a trainer was just started for them). */
  private readonly followed = new Set<string>();
  /** Runs added by a feature rather than found by the scan (a launched run, a dashboard argument): kept by rescans. */
  private readonly pinned = new Set<string>();
  /** Runs a stop was asked for while their trainer was live. */
  private readonly stopAsked = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** First reads of runs being added, by directory. */
  private readonly firstReads = new Map<string, Promise<void>>();
  private readonly runsListeners = new Set<Listener<void>>();
  private readonly runListeners = new Set<Listener<RunChangeEvent>>();
  private poll: ReturnType<typeof setInterval> | undefined;
  private disposed = false;
  /** What each run's title needs after it to be told apart, computed once per change (the tree asks once per row). */
  private titleCache: Map<string, { title: string; extras: string[] }> | undefined;

  private readonly beforeAfterCache = new Map<string, { key: string; value: Promise<BeforeAfter[]> }>();
  /** Each run's evaluation reports as its last refresh found them (evalReportsStamp). */
  private readonly evalStamps = new Map<string, string>();

  constructor(private readonly options: RunsCoreOptions) {}

  onDidChangeRuns(listener: Listener<void>): () => void {
    this.runsListeners.add(listener);
    return () => this.runsListeners.delete(listener);
  }

  onDidChangeRun(listener: Listener<RunChangeEvent>): () => void {
    this.runListeners.add(listener);
    return () => this.runListeners.delete(listener);
  }

  private fireRuns(): void {
    this.titleCache = undefined;
    for (const listener of [...this.runsListeners]) listener();
  }

  startPolling(): void {
    this.poll ??= setInterval(() => this.pollLive(), LIVE_POLL_MS);
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

  private titleParts(): Map<string, { title: string; extras: string[] }> {
    if (!this.titleCache) {
      const all = [...this.entries.values()].map(factsOf);
      const extras = titleExtras(all);
      this.titleCache = new Map(all.map((facts) => [facts.dir, { title: runTitle(facts), extras: extras.get(facts.dir) ?? [] }]));
    }
    return this.titleCache;
  }

  /** A title per run that tells it from every other run listed (runLabel.ts). */
  titles(): Map<string, string> {
    return new Map([...this.titleParts()].map(([dir, { title, extras }]) => [dir, [title, ...extras].join(' · ')]));
  }

  /** What the run's title needs after it to be told from the other runs (start time, directory); empty when nothing. */
  titleExtras(dir: string): string[] {
    return this.titleParts().get(path.resolve(dir))?.extras ?? [];
  }

  title(dir: string): string {
    const parts = this.titleParts().get(path.resolve(dir));
    return parts ? [parts.title, ...parts.extras].join(' · ') : path.basename(dir);
  }

  success(entry: RunEntry): string | undefined {
    return runSuccess(factsOf(entry));
  }

  /** The before/after of a run that links base evaluations (run.json `baseline_evals`); read again when the run's
   * status or metrics change, or an evaluation report of the run or of a base evaluation it links (the reports are
   * what it reads). Empty for a run that links none. The same promise until then: the runs tree redraws a run when it
   * gets a new one, and asks again as it redraws. */
  beforeAfter(entry: RunEntry): Promise<BeforeAfter[]> {
    const manifest = entry.index.manifest;
    const reports = (dirs: string[]): string => dirs.map(evalReportsStamp).join(',');
    const key = manifest?.baseline_evals
      ? `${manifest.status}|${manifest.ended ?? ''}|${entry.index.metrics.length}|${reports([entry.dir, ...baselineDirs(entry.dir, manifest).map(([, dir]) => dir)])}`
      : 'no links';
    const cached = this.beforeAfterCache.get(entry.dir);
    if (cached?.key === key) return cached.value;
    const value = manifest?.baseline_evals ? readBeforeAfter(entry.dir, manifest, this.options.schemas()) : Promise.resolve([]);
    this.beforeAfterCache.set(entry.dir, { key, value });
    return value;
  }

  /** Scans for run directories, adding new ones and dropping those gone or no longer matched by the rules. */
  async rescan(): Promise<void> {
    let found: string[] = [];
    try {
      found = await this.options.scan();
    } catch (error) {
      this.options.warn(`runs: workspace scan failed: ${String(error)}`);
    }
    const dirs = new Set(found.map((dir) => path.resolve(dir)));
    await Promise.all([...dirs].map((dir) => this.addEntry(dir)));
    let removed = false;
    for (const [dir] of this.entries) {
      const kept = dirs.has(dir) || this.pinned.has(dir) || this.followed.has(dir);
      if (!existsSync(path.join(dir, 'run.json')) || !kept) {
        this.entries.delete(dir);
        removed = true;
      }
    }
    if (dirs.size > 0 || removed) this.fireRuns();
  }

  /** Adds a run directory whatever the discovery rules (no-op when known) and reads it. */
  async add(dir: string): Promise<RunEntry> {
    this.pinned.add(path.resolve(dir));
    const { entry, added } = await this.addEntry(dir);
    if (added) this.fireRuns();
    return entry;
  }

  /** A run found by the scan or a file event. */
  async discovered(dir: string): Promise<void> {
    if ((await this.addEntry(dir)).added) this.fireRuns();
  }

  private async addEntry(dir: string): Promise<{ entry: RunEntry; added: boolean }> {
    const key = path.resolve(dir);
    const known = this.entries.get(key);
    if (known) {
      // Another caller is reading it for the first time: wait for that read, so that no caller (a scan that
      // `ready` waits for, a restored dashboard) gets an entry whose files are not read yet.
      await this.firstReads.get(key);
      return { entry: known, added: false };
    }
    const entry: RunEntry = { dir: key, index: new RunIndex(key, this.options.schemas()), state: 'loading' };
    this.entries.set(key, entry);
    this.titleCache = undefined;
    const read = this.refreshEntry(entry).finally(() => this.firstReads.delete(key));
    this.firstReads.set(key, read);
    await read;
    return { entry, added: true };
  }

  /** Forgets a run (its run.json was deleted). */
  remove(dir: string): void {
    this.pinned.delete(path.resolve(dir));
    if (this.entries.delete(path.resolve(dir))) this.fireRuns();
  }

  /** Reads what changed in one run now. */
  async refresh(dir: string): Promise<RunEntry | undefined> {
    const entry = this.get(dir);
    if (entry) await this.refreshEntry(entry);
    return entry;
  }

  /** A stop was asked for (the control file is written): the run shows `stopping` until its trainer says more. */
  noteStopRequested(dir: string): void {
    const entry = this.get(dir);
    this.stopAsked.add(path.resolve(dir));
    if (entry) this.updateState(entry, undefined);
  }

  /** Whether a stop was asked for a live run (by this window, or by anyone: the control file). */
  stopRequested(dir: string): boolean {
    const key = path.resolve(dir);
    return this.stopAsked.has(key) || existsSync(runPaths(key).control);
  }

  private async refreshEntry(entry: RunEntry): Promise<void> {
    if (this.disposed) return;
    let change: RunIndexChange | undefined;
    try {
      change = await entry.index.refresh();
      const manifest = entry.index.manifest;
      if (manifest && isLive(manifest.status) && this.liveOf(manifest, entry.dir) === 'interrupted') {
        // The trainer may have written its final status and exited between our read and the liveness check:
        // read run.json once more before calling the run interrupted.
        entry.index.reloadManifest();
        mergeChanges(change, await entry.index.refresh());
      }
    } catch (error) {
      this.options.warn(`runs: ${entry.dir}: ${String(error)}`);
    }
    const reports = this.noteEvalReports(entry.dir);
    this.updateState(entry, change, reports);
    if (reports) this.notifyLinkedRuns(entry.dir);
  }

  /** Whether the run's evaluation reports changed since its previous refresh (never on its first). */
  private noteEvalReports(dir: string): boolean {
    const stamp = evalReportsStamp(dir);
    const previous = this.evalStamps.get(dir);
    this.evalStamps.set(dir, stamp);
    return previous !== undefined && previous !== stamp;
  }

  /** The runs that link `baseDir` as a base evaluation are told its reports changed (their before/after did). */
  private notifyLinkedRuns(baseDir: string): void {
    for (const entry of this.entries.values()) {
      if (entry.dir === baseDir || !baselineDirs(entry.dir, entry.index.manifest).some(([, dir]) => dir === baseDir)) continue;
      this.fireRun({ entry, change: undefined, stateChanged: false, previousState: entry.state, evalReports: true });
    }
  }

  private fireRun(event: RunChangeEvent): void {
    for (const listener of [...this.runListeners]) listener(event);
  }

  /** The owner lock of the run directory where it can be read, else the pid (trainerProcess.liveStatus). */
  private liveOf(manifest: Pick<RunManifest, 'status' | 'pid' | 'host'>, dir: string): LiveStatus {
    return this.options.live ? this.options.live(manifest) : liveStatus(manifest, { runDir: dir });
  }

  private updateState(entry: RunEntry, change: RunIndexChange | undefined, evalReports = false): void {
    const previousState = entry.state;
    const manifest = entry.index.manifest;
    const live = manifest !== undefined && isLive(manifest.status);
    if (manifest && !live) this.stopAsked.delete(entry.dir); // a later resume of this directory starts afresh
    entry.state = runState(manifest, {
      broken: entry.index.manifestError !== undefined,
      stopRequested: live && this.stopRequested(entry.dir),
      live: (m) => this.liveOf(m, entry.dir),
    });
    const stateChanged = previousState !== entry.state;
    const indexed = stateChanged || (change !== undefined && hasChanges(change));
    if (indexed) this.titleCache = undefined; // a manifest or metrics change can change a title (split, collision)
    if (indexed || evalReports) this.fireRun({ entry, change, stateChanged, previousState, ...(evalReports ? { evalReports } : {}) });
  }

  /** An evaluation report of `dir` was written or removed (a file event): the run is read again, and its refresh
   * tells it and the runs that link it; for a directory the model does not list (a base evaluation outside the
   * discovery rules) only the runs that link it are told. */
  evalReportsChanged(dir: string): void {
    const entry = this.get(dir);
    if (entry) this.schedule(entry.dir);
    else this.notifyLinkedRuns(path.resolve(dir));
  }

  /** A debounced refresh of one run (bursts of appends become one read). */
  schedule(dir: string): void {
    const key = path.resolve(dir);
    if (this.timers.has(key)) return;
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        const entry = this.get(key);
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
    this.runsListeners.clear();
    this.runListeners.clear();
  }
}

function runSortKey(entry: RunEntry): string {
  return entry.index.manifest?.started ?? path.basename(entry.dir);
}
