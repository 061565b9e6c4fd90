// Owns the trainer processes of this window: launches them detached (pid in the run manifest, output in a log file),
// follows every live run on this machine through the runs model (status bar, cancellable progress notification),
// stops and resumes them, tells the user when a trainer dies (its last events, "Show Log"), and leaves no process
// behind for runs whose lifetime the window owns. A reloaded window reattaches to whatever is still running.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { requestStop } from '../runs/core/control';
import { describeEvent, failureActions, lastLogLine, runEndMessage } from './core/runEndMessage';
import { RunSession, type LaunchRequest, type RunLifetime } from './core/runSession';
import { isStaleReading, launchedSession, reattachedSession, type SessionOutcome } from './core/sessionMachine';
import { LaunchedRuns } from './launchedRuns';
import { latestSuccess, progressFraction, progressMessage, showRunProgress } from './runProgress';
import { isConverting, notificationMessage, statusBarText } from './core/progressText';
import { trainerEnv } from '../python/trainerSettings';
import type { Stage } from '../runs/shared/types';
import { isLive, type RunChangeEvent, type RunEntry, type RunsModel } from '../runs/runsModel';
import {
  isProcessGroupAlive,
  isTrainerAlive,
  newRunId,
  signalProcessGroup,
  spawnDetached,
  tailOfFile,
  trainerCommandLine,
  waitUntilGone,
} from '../runs/core/trainerProcess';

const MANIFEST_WAIT_MS = 180_000;
const GROUP_GRACE_MS = 3_000;

export class TrainerHost implements vscode.Disposable {
  readonly sessions = new Map<string, RunSession>();
  private readonly statusBar: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private focus: string | undefined;
  private readonly ended = new vscode.EventEmitter<{ session: RunSession; state: SessionOutcome }>();
  /** A session ended (completed, stopped, failed, interrupted, or the trainer never started). */
  readonly onDidEndSession = this.ended.event;
  private readonly launchedRuns: LaunchedRuns;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly runs: RunsModel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.launchedRuns = new LaunchedRuns(context.workspaceState);
    this.statusBar = vscode.window.createStatusBarItem('seedStudio.run', vscode.StatusBarAlignment.Left, 20);
    this.statusBar.name = 'SEED run';
    this.disposables.push(this.statusBar, this.ended, runs.onDidChangeRun((event) => this.onRunChanged(event)));
    this.disposables.push(runs.onDidChangeRuns(() => this.attachLiveRuns()));
  }

  private get logsDir(): string {
    return path.join((this.context.storageUri ?? this.context.globalStorageUri).fsPath, 'trainer-logs');
  }

  /** The trainer's log file of a run (this window's record, else where this window would have put it). */
  logFileOf(dir: string): string {
    return this.sessions.get(dir)?.logFile ?? this.launchedRuns.all()[dir]?.logFile ?? path.join(this.logsDir, `${path.basename(dir)}.log`);
  }

  // ---- launch ------------------------------------------------------------------------------------------------------

  async launch(request: LaunchRequest): Promise<RunSession> {
    const runId = newRunId(request.command as Stage, request.name, new Date(), (id) => existsSync(path.join(request.runsDir, id)));
    const dir = path.join(request.runsDir, runId);
    const line = trainerCommandLine({
      python: request.python,
      command: request.command,
      experiment: request.experiment,
      runDir: dir,
      ...(request.gpus ? { gpus: request.gpus } : {}),
      ...(request.extraArgs ? { extraArgs: request.extraArgs } : {}),
      env: trainerEnv(),
    });
    return this.start(dir, runId, line, path.dirname(request.experiment), request.lifetime ?? configuredLifetime());
  }

  async resume(dir: string, python: string): Promise<RunSession> {
    const line = trainerCommandLine({ python, command: 'resume', runDir: dir, env: trainerEnv() });
    const previous = this.sessions.get(dir);
    if (previous && !previous.ended) throw new Error(`run ${path.basename(dir)} is already attached to a live trainer`);
    return this.start(dir, path.basename(dir), line, path.dirname(dir), configuredLifetime());
  }

  private async start(dir: string, runId: string, line: ReturnType<typeof trainerCommandLine>, cwd: string, lifetime: RunLifetime): Promise<RunSession> {
    const logFile = path.join(this.logsDir, `${runId}.log`);
    const session = new RunSession(dir, runId, logFile, lifetime, launchedSession(manifestPid(path.join(dir, 'run.json'))));
    this.log.info(`trainer: ${[line.file, ...line.args].join(' ')}  (cwd ${cwd}; log ${logFile})`);
    const child = spawnDetached(line, { cwd, logFile });
    const spawnError = await new Promise<string | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (error) => resolve(`could not start ${line.file}: ${error.message}`));
    });
    if (spawnError !== undefined) {
      session.apply({ type: 'spawnFailed', error: spawnError });
      throw new Error(spawnError);
    }
    session.apply({ type: 'spawned', pid: child.pid ?? 0 });
    session.child = child;
    this.sessions.set(dir, session);
    this.focus = dir;
    child.once('exit', (code, signal) => this.onChildExit(session, code, signal));
    await this.launchedRuns.remember(session);
    this.showProgress(session, 'starting the trainer…');
    this.updateStatusBar();
    void this.waitForManifest(session);
    return session;
  }

  /**
   * The run directory appears once the trainer has loaded its libraries (a resumed run: once the new trainer has
   * written its pid into run.json); then the runs model follows it.
   */
  private async waitForManifest(session: RunSession): Promise<void> {
    const deadline = Date.now() + MANIFEST_WAIT_MS;
    const manifest = path.join(session.dir, 'run.json');
    this.runs.follow(session.dir, true);
    // A new run: run.json exists. A resumed one: run.json names a pid other than the previous trainer's (under
    // torchrun it is rank 0's, not the launcher's).
    for (let pid = manifestPid(manifest); pid === undefined || isStaleReading(session.state, pid); pid = manifestPid(manifest)) {
      if (session.exit || session.ended) return;
      if (Date.now() > deadline) {
        this.log.warn(`trainer: ${session.runId}: no run.json after ${MANIFEST_WAIT_MS / 1000} s`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const known = this.runs.get(session.dir);
    known?.index.reloadManifest();
    const entry = known ? ((await this.runs.refresh(session.dir)) ?? known) : await this.runs.add(session.dir);
    this.onRunChanged({ entry, change: undefined, stateChanged: true, previousState: 'loading' });
  }

  private onChildExit(session: RunSession, code: number | null, signal: NodeJS.Signals | null): void {
    this.log.info(`trainer: ${session.runId} (pid ${session.pid}) exited with ${signal ?? `code ${code}`}`);
    const runDirWritten = this.runs.get(session.dir) !== undefined || existsSync(path.join(session.dir, 'run.json'));
    // Without a run directory the trainer failed before it started: a bad experiment, a missing package, a crash at import.
    if (session.apply({ type: 'exit', code, signal, runDirWritten })) {
      void this.end(session, undefined);
      return;
    }
    void this.runs.refresh(session.dir).then((refreshed) => {
      if (refreshed) this.onRunChanged({ entry: refreshed, change: undefined, stateChanged: true, previousState: refreshed.state });
    });
  }

  // ---- follow ------------------------------------------------------------------------------------------------------

  /** Attaches to every live run on this machine not yet followed (on activation: the reattach after a reload). */
  attachLiveRuns(): void {
    // Runs this workspace launched are followed even where the discovery rules do not look (another runs_dir).
    for (const dir of Object.keys(this.launchedRuns.all())) {
      if (!this.runs.get(dir) && existsSync(path.join(dir, 'run.json'))) void this.runs.add(dir);
    }
    for (const entry of this.runs.runs()) this.attach(entry);
  }

  private attach(entry: RunEntry): RunSession | undefined {
    const manifest = entry.index.manifest;
    if (!manifest || !isLive(entry.state) || manifest.host !== os.hostname()) return undefined;
    const existing = this.sessions.get(entry.dir);
    if (existing && !existing.ended) return existing;
    const record = this.launchedRuns.all()[entry.dir];
    const logFile = record?.logFile ?? path.join(this.logsDir, `${manifest.id}.log`);
    const session = new RunSession(entry.dir, manifest.id, logFile, record?.lifetime ?? 'detached', reattachedSession(manifest.pid, manifest.status));
    this.sessions.set(entry.dir, session);
    this.focus ??= entry.dir;
    this.log.info(`trainer: attached to ${manifest.id} (pid ${manifest.pid}, ${manifest.status})`);
    // Runs this workspace launched get their progress notification back; others (e.g. started from a terminal) only
    // the status bar and the tree.
    if (record) this.showProgress(session, 'reattached');
    this.onRunChanged({ entry, change: undefined, stateChanged: false, previousState: entry.state });
    return session;
  }

  private onRunChanged(event: RunChangeEvent): void {
    const { entry } = event;
    const manifest = entry.index.manifest;
    let session = this.sessions.get(entry.dir);
    if (!session || session.ended) {
      if (!isLive(entry.state)) {
        this.updateStatusBar();
        return;
      }
      session = this.attach(entry);
      if (!session) return;
    }
    if (isStaleReading(session.state, manifest?.pid)) return; // a resume whose trainer has not rewritten run.json yet
    const endedNow = session.apply({ type: 'run', state: entry.state, ...(manifest ? { pid: manifest.pid, status: manifest.status } : {}) });
    if (endedNow) {
      void this.end(session, entry);
      return;
    }
    if (session.ended || !isLive(entry.state)) return;
    session.progress?.report(notificationMessage(this.runs.title(entry.dir), progressMessage(entry)), progressFraction(entry));
    if (event.change && (event.change.metrics.length > 0 || event.change.events.length > 0)) this.focus = entry.dir;
    this.updateStatusBar();
  }

  /** The session has ended (its state says how): stop following, tell the user, reap what is left of its processes. */
  private async end(session: RunSession, entry: RunEntry | undefined): Promise<void> {
    const state = session.state.outcome ?? 'failed';
    this.runs.follow(session.dir, false);
    session.progress?.done();
    session.progress = undefined;
    if (this.focus === session.dir) this.focus = undefined;
    this.updateStatusBar();
    await this.launchedRuns.forget(session.dir);
    this.ended.fire({ session, state });
    this.notifyEnd(session, state, entry);
    void this.reapProcessGroup(session);
  }

  /** After the trainer is done, nothing of its process group may linger (torchrun workers, loaders). */
  private async reapProcessGroup(session: RunSession): Promise<void> {
    if (!session.pid || session.pid === process.pid) return;
    const leaderGone = await waitUntilGone(() => isTrainerAlive(session.pid), GROUP_GRACE_MS);
    if (!leaderGone) return; // still running (e.g. an interrupted state misjudged): leave it alone
    if (session.launchedHere && (await waitUntilGone(() => isProcessGroupAlive(session.pid), GROUP_GRACE_MS)) === false) {
      this.log.warn(`trainer: ${session.runId}: processes of group ${session.pid} outlived the trainer; ending them`);
      signalProcessGroup(session.pid, 'SIGTERM');
      if (!(await waitUntilGone(() => isProcessGroupAlive(session.pid), GROUP_GRACE_MS))) signalProcessGroup(session.pid, 'SIGKILL');
    }
  }

  private notifyEnd(session: RunSession, state: SessionOutcome, entry: RunEntry | undefined): void {
    const manifest = entry?.index.manifest;
    const name = manifest ? `${manifest.name} (${manifest.id})` : session.runId;
    if (state === 'completed') {
      void vscode.window.showInformationMessage(runEndMessage(name, state, manifest, session.stopRequested), 'Open Dashboard').then((pick) => {
        if (pick) void vscode.commands.executeCommand('seedStudio.openDashboard', session.dir);
      });
      return;
    }
    if (state === 'stopped') {
      void vscode.window.showInformationMessage(runEndMessage(name, state, manifest, session.stopRequested));
      return;
    }
    // failed, interrupted, or never started: say what happened, with the last events and the log at hand.
    const events = entry?.index.recentEvents(5) ?? [];
    const logTail = tailOfFile(session.logFile, 30);
    this.log.error(`trainer: ${session.runId}: ${state}`);
    for (const event of events) this.log.error(`  ${describeEvent(event)}`);
    if (logTail) this.log.error(`  log ${session.logFile} ends:\n${logTail}`);
    const exit = session.exit ? ` (${session.exit.signal ?? `exit code ${session.exit.code}`})` : '';
    const what =
      state === 'interrupted'
        ? `the trainer of run ${name} (pid ${session.pid}) died without finishing${exit}`
        : state === 'not-started'
          ? `the trainer could not start run ${session.runId}${exit}`
          : `run ${name} failed${exit}${manifest?.error ? `: ${manifest.error}` : ''}`;
    const lastEvents = events.length > 0 ? ` Last events: ${events.slice(-3).map((e) => e.message).join(' · ')}` : lastLogLine(logTail);
    const refused = !existsSync(session.dir) ? ' Nothing was written: the trainer refused the run before creating its folder.' : '';
    void vscode.window.showErrorMessage(`SEED: ${what}.${lastEvents}${refused}`, ...failureActions(existsSync(session.dir))).then((pick) => {
      if (pick === 'Show Log') void this.showLog(session.dir);
      if (pick === 'Open Run Folder') void vscode.commands.executeCommand('seedStudio.openRunFolder', session.dir);
    });
  }

  /** Opens the trainer's log (stdout and stderr) of a run, or its events.jsonl when this machine has no log. */
  async showLog(dir: string): Promise<void> {
    const logFile = this.logFileOf(dir);
    const target = existsSync(logFile) ? logFile : path.join(dir, 'events.jsonl');
    if (!existsSync(target)) {
      void vscode.window.showWarningMessage(`SEED: no log for ${path.basename(dir)} on this machine.`);
      return;
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
    const editor = await vscode.window.showTextDocument(document, { preview: true });
    const end = new vscode.Position(document.lineCount, 0);
    editor.revealRange(new vscode.Range(end, end));
  }

  // ---- stop --------------------------------------------------------------------------------------------------------

  /**
   * Asks the trainer to stop (the control file: it checkpoints at the next step boundary and exits). With `force`
   * the whole process group is killed at once (no checkpoint).
   */
  async stop(dir: string, options: { force?: boolean } = {}): Promise<void> {
    const session = this.sessions.get(dir);
    if (options.force) {
      const pid = session?.pid ?? this.runs.get(dir)?.index.manifest?.pid;
      if (pid && isTrainerAlive(pid)) signalProcessGroup(pid, 'SIGKILL');
      return;
    }
    await requestStop(dir);
    session?.apply({ type: 'stopRequested' });
    this.runs.core.noteStopRequested(dir); // the tree and the dashboard say "stopping" now, not at the next step
    this.log.info(`trainer: stop requested for ${path.basename(dir)} (control file)`);
    this.updateStatusBar();
    this.runs.schedule(dir);
  }

  /** Resolves when the session of `dir` has ended (or after `timeoutMs`); true when it ended. */
  waitForEnd(dir: string, timeoutMs: number): Promise<boolean> {
    const session = this.sessions.get(dir);
    if (!session || session.ended) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        listener.dispose();
        resolve(false);
      }, timeoutMs);
      const listener = this.onDidEndSession((event) => {
        if (event.session.dir !== dir) return;
        clearTimeout(timer);
        listener.dispose();
        resolve(true);
      });
    });
  }

  /**
   * Ends the runs whose lifetime this window owns (deactivation: the window closes or reloads): a stop request and
   * SIGTERM to the process group (the trainer checkpoints on it), then SIGKILL for whatever is left after a grace.
   */
  async shutdown(graceMs = GROUP_GRACE_MS): Promise<void> {
    const owned = [...this.sessions.values()].filter((s) => s.lifetime === 'window' && !s.ended && s.pid && isProcessGroupAlive(s.pid));
    await Promise.all(
      owned.map(async (session) => {
        this.log.info(`trainer: the window closes; stopping ${session.runId} (lifetime: window)`);
        await requestStop(session.dir).catch(() => undefined);
        signalProcessGroup(session.pid, 'SIGTERM');
        if (!(await waitUntilGone(() => isProcessGroupAlive(session.pid), graceMs))) signalProcessGroup(session.pid, 'SIGKILL');
        await waitUntilGone(() => isProcessGroupAlive(session.pid), 1_000);
      }),
    );
  }

  // ---- progress and status bar -------------------------------------------------------------------------------------

  // The notification and the status bar name the run by the Runs tree's title (its id until run.json is read).
  private showProgress(session: RunSession, initial: string): void {
    showRunProgress(session, notificationMessage(this.runs.title(session.dir), initial), () => void this.stop(session.dir));
  }

  private updateStatusBar(): void {
    const live = [...this.sessions.values()].filter((s) => !s.ended);
    if (live.length === 0) {
      this.statusBar.hide();
      return;
    }
    const focus = live.find((s) => s.dir === this.focus) ?? live[0];
    if (!focus) return;
    const entry = this.runs.get(focus.dir);
    const manifest = entry?.index.manifest;
    const stopping = focus.stopRequested || manifest?.status === 'stopping';
    const progress = manifest?.progress;
    this.statusBar.text = statusBarText(this.runs.title(focus.dir), {
      stopping,
      converting: isConverting(entry?.index.lastEvent),
      ...(progress ? { progress: { step: progress.step, total: progress.total } } : {}),
      success: latestSuccess(entry),
      others: live.length - 1,
    });
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.isTrusted = false;
    tooltip.appendText(`${focus.runId}\n`);
    if (manifest) tooltip.appendText(`${manifest.stage} · ${manifest.algorithm} · ${stopping ? 'stopping' : manifest.status} · pid ${manifest.pid}\n`);
    const last = entry?.index.lastEvent;
    if (last) tooltip.appendText(`${last.message}\n`);
    tooltip.appendText('Click to open the dashboard');
    this.statusBar.tooltip = tooltip;
    // Set again only for another run: VS Code drops the previous command (with arguments) of the item when it gets a
    // new one, so a click that lands between two updates (several a second) would open nothing.
    if ((this.statusBar.command as vscode.Command | undefined)?.arguments?.[0] !== focus.dir) {
      this.statusBar.command = { title: 'Open Dashboard', command: 'seedStudio.openDashboard', arguments: [focus.dir] };
    }
    this.statusBar.show();
  }

  /** What the status bar shows (for tests). */
  get statusBarText(): string | undefined {
    return this.sessions.size > 0 && [...this.sessions.values()].some((s) => !s.ended) ? this.statusBar.text : undefined;
  }

  dispose(): void {
    for (const session of this.sessions.values()) session.progress?.done();
    for (const disposable of this.disposables) disposable.dispose();
  }
}

/** The pid recorded in a run.json, or undefined when it cannot be read (yet). */
function manifestPid(file: string): number | undefined {
  try {
    const pid = (JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** `seedStudio.train.stopRunsWhenWindowCloses`: whether a launched run ends with the window. */
function configuredLifetime(): RunLifetime {
  return vscode.workspace.getConfiguration('seedStudio').get<boolean>('train.stopRunsWhenWindowCloses') ? 'window' : 'detached';
}
