// TensorBoard servers for "SEED: Open in TensorBoard", without vscode: which folder to show, the command line, and one
// `python -m tensorboard.main` per log folder on a free 127.0.0.1 port, ready once it answers HTTP, reused while it
// lives and ended by dispose(). The trainer's interpreter runs it, so it is the tensorboard the trainer writes for.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** The trainer's `tensorboard` extra (trainer/pyproject.toml; a unit test keeps the two equal). */
export const TENSORBOARD_REQUIREMENT = 'tensorboard>=2.14';

/** Where a run's TensorBoard event files are (docs/run-format.md: `report_to: [tensorboard]`). */
export function runEventsDir(runDir: string): string {
  return path.join(runDir, 'tensorboard');
}

/** Thrown when the interpreter has no tensorboard module; the command offers to install it. */
export class TensorBoardMissingError extends Error {
  constructor(readonly python: string) {
    super(`TensorBoard is not installed for ${python}: install the trainer's tensorboard extra (${TENSORBOARD_REQUIREMENT}).`);
  }
}

/**
 * The folder that holds these runs' events: one run → its `tensorboard/` folder; several → the folder that holds them
 * all, which TensorBoard reads only where logdirSpec cannot name the runs (it then names each by its path below that
 * folder, and shows the runs beside them too). Throws, naming the run, when a run has no event folder.
 */
export function logdirFor(runDirs: readonly string[]): string {
  if (runDirs.length === 0) throw new Error('no run to show in TensorBoard.');
  const resolved = runDirs.map((dir) => path.resolve(dir));
  for (const dir of resolved) {
    const events = runEventsDir(dir);
    if (!existsSync(events) || !statSync(events).isDirectory()) {
      throw new Error(`${path.basename(dir)} has no TensorBoard events (${events} is missing): add \`report_to: [tensorboard]\` to its experiment and train again.`);
    }
  }
  if (resolved.length === 1) return runEventsDir(resolved[0]!);
  return commonFolder(resolved);
}

/** The deepest folder that contains every path (the filesystem root at worst). */
export function commonFolder(paths: readonly string[]): string {
  const split = paths.map((p) => path.resolve(p).split(path.sep));
  const first = split[0] ?? [];
  let length = 0;
  while (length < first.length && split.every((parts) => parts[length] === first[length])) length += 1;
  // A path that is itself the common folder would be a run holding another run; the parent is what holds them.
  const common = first.slice(0, length).join(path.sep) || path.sep;
  return paths.some((p) => path.resolve(p) === common) ? path.dirname(common) : common;
}

/** A run name TensorBoard's `--logdir_spec` keeps as it is: a run id's characters, two at least (one letter and a
 * colon would read as a Windows drive). */
const SPEC_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]+$/;

/**
 * TensorBoard's `--logdir_spec` for these runs: `<run id>:<its tensorboard/ folder>` each, comma-separated, so that
 * TensorBoard lists each run by its id (as `<id>/.`: its name for the events directly in the folder given) and reads
 * only the runs asked for, not every run beside them in the folder that holds them. Undefined when the spec cannot
 * say so: an id with other characters, two runs with one id, a comma in a folder's path (the spec's separator).
 */
export function logdirSpec(runDirs: readonly string[]): string | undefined {
  const runs = runDirs.map((dir) => ({ id: path.basename(path.resolve(dir)), events: runEventsDir(path.resolve(dir)) }));
  const ids = new Set(runs.map((run) => run.id));
  if (runs.length === 0 || ids.size !== runs.length) return undefined;
  if (runs.some((run) => !SPEC_NAME.test(run.id) || run.events.includes(','))) return undefined;
  return runs.map((run) => `${run.id}:${run.events}`).join(',');
}

/** TensorBoard's command line: `--logdir_spec spec` when there is one, else `--logdir logdir` (runs named by path). */
export function tensorBoardArgs(logdir: string, port: number, spec?: string): string[] {
  const where = spec ? ['--logdir_spec', spec] : ['--logdir', logdir];
  // --reload_interval: live runs append events; 5 s keeps a CPU-bound trainer's machine quiet.
  return ['-m', 'tensorboard.main', ...where, '--host', '127.0.0.1', '--port', String(port), '--reload_interval', '5'];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

export interface TensorBoardServer {
  logdir: string;
  url: string;
  port: number;
  pid: number;
}

export interface ServerOptions {
  /** Each line tensorboard prints (stdout and stderr), for the log channel. */
  onLine?: (line: string) => void;
  /** How long to wait for the first HTTP answer; TensorBoard imports take seconds on a busy machine. */
  readyTimeoutMs?: number;
}

/** A server being started or running; `child` is set once its port is chosen. */
interface LiveServer {
  child?: ChildProcess;
  ready: Promise<TensorBoardServer>;
}

function isRunning(child: ChildProcess | undefined): boolean {
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

const MISSING_MODULE = /No module named '?tensorboard/;

/** One TensorBoard per (interpreter, log folder, spec); dispose() ends them all. */
export class TensorBoardServers {
  private readonly servers = new Map<string, LiveServer>();
  private disposed = false;

  constructor(private readonly options: ServerOptions = {}) {}

  /** The running (or starting) server for `logdir` (read as `spec` when given), or a new one; resolves once it answers. */
  ensure(python: string, logdir: string, spec?: string): Promise<TensorBoardServer> {
    const key = `${python}\0${path.resolve(logdir)}\0${spec ?? ''}`;
    const live = this.servers.get(key);
    if (live && (live.child === undefined || isRunning(live.child))) return live.ready;
    const server = {} as LiveServer;
    server.ready = this.start(python, path.resolve(logdir), server, spec);
    this.servers.set(key, server);
    server.ready.catch(() => {
      if (this.servers.get(key) === server) this.servers.delete(key);
    });
    return server.ready;
  }

  /** Process ids of the servers running now. */
  running(): number[] {
    return [...this.servers.values()].filter(({ child }) => isRunning(child)).map(({ child }) => child?.pid ?? 0);
  }

  dispose(): void {
    this.disposed = true;
    for (const { child } of this.servers.values()) if (isRunning(child)) child?.kill('SIGTERM');
    this.servers.clear();
  }

  private async start(python: string, logdir: string, server: LiveServer, spec?: string): Promise<TensorBoardServer> {
    const port = await freePort();
    // Disposed while the port was chosen (the window closed): start nothing that would outlive it.
    if (this.disposed) throw new Error('TensorBoard was not started: the window is closing.');
    const child = spawn(python, tensorBoardArgs(logdir, port, spec), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
    server.child = child;
    let output = '';
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output = (output + text).slice(-8192);
      for (const line of text.split(/\r?\n/)) if (line.trim()) this.options.onLine?.(line);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<string>((resolve) => {
      child.once('error', (error) => resolve(error.message));
      child.once('exit', (code, signal) => resolve(`exit ${code ?? signal}`));
    });
    const url = `http://127.0.0.1:${port}/`;
    const answered = await Promise.race([waitForHttp(url, this.options.readyTimeoutMs ?? 90_000, () => !isRunning(child)), exited.then(() => false as const)]);
    if (answered === true) return { logdir, url, port, pid: child.pid ?? 0 };
    if (isRunning(child)) child.kill('SIGTERM');
    if (MISSING_MODULE.test(output)) throw new TensorBoardMissingError(python);
    const how = answered === false ? `it ended (${await exited})` : 'it did not answer in time';
    throw new Error(`TensorBoard did not start on ${url}: ${how}. Its last output:\n${output.trim().split('\n').slice(-8).join('\n')}`);
  }
}

/** Polls `url` until it answers 200 (true), the time is up or `giveUp()` says so (the string 'timeout'). */
async function waitForHttp(url: string, timeoutMs: number, giveUp: () => boolean = () => false): Promise<true | 'timeout'> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !giveUp()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return 'timeout';
}
