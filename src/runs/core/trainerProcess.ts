// The trainer as a process, without `vscode`: the command line of each stage, run ids, a detached launch whose
// output goes to a log file (so the trainer outlives the window that started it), and the liveness checks that decide
// whether a run marked `running` still has its trainer (docs/run-format.md §3 "Is it still running?").
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runOwnership, type Ownership } from './runOwner';
import type { RunManifest, RunStatus, Stage } from '../shared/types';

/** What "SEED: Train" can start: a CLI subcommand of `python -m seed_trainer`. */
export type TrainerCommand = 'collect' | 'sft' | 'train' | 'eval' | 'resume';

export interface StageChoice {
  id: string;
  command: Exclude<TrainerCommand, 'resume'>;
  label: string;
  detail: string;
  /** Stage-2 choices: the algorithm the experiment must have. */
  algorithm?: string;
}

/** What a Stage-2 choice needs of an algorithm (src/experiments/core/algorithmCatalog.ts reads them from the schema). */
export interface StageAlgorithm {
  name: string;
  label: string;
  summary: string;
}

/** What "SEED: Train" offers: Stage 1, one Stage-2 choice per algorithm (in the trainer's order), evaluation. */
export function stageChoices(algorithms: readonly StageAlgorithm[]): StageChoice[] {
  return [
    { id: 'collect', command: 'collect', label: 'Stage 1 · Collect', detail: 'Roll out the base policy and write a hindsight skill for each trajectory' },
    { id: 'sft', command: 'sft', label: 'Stage 1 · SFT', detail: 'Hindsight-skill SFT on the collected (and reviewed) analyses; with sft.mode: agent, agent SFT on the environment’s demonstrations' },
    ...algorithms.map((a): StageChoice => ({ id: `train:${a.name}`, command: 'train', algorithm: a.name, label: `Stage 2 · ${a.label}`, detail: capitalized(a.summary) })),
    { id: 'eval', command: 'eval', label: 'Evaluate', detail: 'Evaluate the policy with the plain prompt (no skill)' },
  ];
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export interface LaunchSpec {
  python: string;
  command: TrainerCommand;
  /** The experiment file (collect/sft/train/eval). */
  experiment?: string;
  /** The run directory to create (collect/sft/train/eval) or to resume. */
  runDir: string;
  /** CUDA device indices; none → the trainer's own choice (CUDA_VISIBLE_DEVICES untouched). */
  gpus?: readonly number[];
  /** Extra environment for the trainer (e.g. PYTHONPATH for a custom environment). */
  env?: Record<string, string>;
  /** Stage options after the run directory: `--split`, `--checkpoint` (eval), `--data` (sft). */
  extraArgs?: readonly string[];
}

export interface CommandLine {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** `python -m seed_trainer <command> …`; several GPUs → one process per GPU under torchrun. */
export function trainerCommandLine(spec: LaunchSpec): CommandLine {
  const cliArgs =
    spec.command === 'resume'
      ? ['resume', spec.runDir]
      : [spec.command, spec.experiment ?? missing('experiment'), '--run-dir', spec.runDir, ...(spec.extraArgs ?? [])];
  const env: Record<string, string> = { PYTHONUNBUFFERED: '1', ...(spec.env ?? {}) };
  const gpus = spec.gpus ?? [];
  if (gpus.length > 0) env.CUDA_VISIBLE_DEVICES = gpus.join(',');
  if (gpus.length > 1) {
    return {
      file: spec.python,
      args: ['-m', 'torch.distributed.run', '--standalone', `--nproc_per_node=${gpus.length}`, '-m', 'seed_trainer', ...cliArgs],
      env,
    };
  }
  return { file: spec.python, args: ['-m', 'seed_trainer', ...cliArgs], env };
}

function missing(what: string): never {
  throw new Error(`a ${what} is required`);
}

/** The run-id slug of an experiment name, as the trainer writes it. */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return slug || 'run';
}

/** `<yyyymmdd>-<hhmmss>-<stage>-<slug>` (UTC), with `-2`, `-3`… when a directory of that name exists. */
export function newRunId(stage: Stage, name: string, now: Date, taken: (id: string) => boolean): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}-${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const base = `${stamp}-${stage}-${slugify(name)}`;
  if (!taken(base)) return base;
  for (let n = 2; ; n += 1) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Starts the trainer in its own process group, detached from the caller: stdout and stderr go to `logFile` (a pipe
 * would break, and kill the trainer, when the window that started it reloads). The caller may keep the returned
 * ChildProcess to learn the exit code while it lives; `unref` means it never keeps the caller alive.
 */
export function spawnDetached(line: CommandLine, options: { cwd: string; logFile: string; baseEnv?: NodeJS.ProcessEnv }): ChildProcess {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = openSync(options.logFile, 'a');
  try {
    const child = spawn(line.file, line.args, {
      cwd: options.cwd,
      env: { ...(options.baseEnv ?? process.env), ...line.env },
      detached: true,
      stdio: ['ignore', log, log],
      windowsHide: true,
    });
    child.unref();
    return child;
  } finally {
    closeSync(log);
  }
}

/** Whether a process with this pid exists (and may be signalled by us). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` is a live trainer: alive and, where /proc tells (Linux), running `seed_trainer` — a pid reused by an
 * unrelated process after the trainer died does not count.
 */
export function isTrainerAlive(pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync('/proc/self/cmdline')) return true;
  try {
    const text = readFileSync(cmdline, 'utf8');
    if (/ \(deleted\)$/.test(text)) return false;
    return text.includes('seed_trainer') || text.includes('torch.distributed.run') || text.includes('torchrun');
  } catch {
    return false; // gone between the two checks
  }
}

/** Signals a detached trainer's whole process group (torchrun workers, data loaders); false when none was left. */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** Whether any process of the group led by `pid` is still alive. */
export function isProcessGroupAlive(pid: number): boolean {
  if (process.platform === 'win32') return isProcessAlive(pid);
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves true when `alive()` turns false within `timeoutMs` (polled), false otherwise. */
export async function waitUntilGone(alive: () => boolean, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return true;
}

/** How a run should be shown: its manifest status, or `interrupted` when it claims to run but its trainer is gone. */
export type LiveStatus = RunStatus | 'interrupted';

export function liveStatus(
  manifest: Pick<RunManifest, 'status' | 'pid' | 'host'>,
  options: { hostname?: string; alive?: (pid: number) => boolean; runDir?: string; ownership?: (runDir: string) => Ownership } = {},
): LiveStatus {
  if (manifest.status !== 'running' && manifest.status !== 'stopping') return manifest.status;
  // The run's owner lock is the truth where it can be read (Linux): no pid guess, no reused pid mistaken for the trainer.
  const owned = options.runDir === undefined ? 'unknown' : (options.ownership ?? runOwnership)(options.runDir);
  if (owned !== 'unknown') return owned === 'owned' ? manifest.status : 'interrupted';
  const hostname = options.hostname ?? os.hostname();
  if (manifest.host !== hostname) return manifest.status; // another machine's run: only its heartbeat could tell
  return (options.alive ?? isTrainerAlive)(manifest.pid) ? manifest.status : 'interrupted';
}

/** The last `lines` lines of a text file (for a notification about a dead trainer); '' when unreadable. */
export function tailOfFile(file: string, lines = 20, maxBytes = 64 * 1024): string {
  try {
    const data = readFileSync(file);
    const text = data.subarray(Math.max(0, data.length - maxBytes)).toString('utf8');
    return text.replace(/\r/g, '\n').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
