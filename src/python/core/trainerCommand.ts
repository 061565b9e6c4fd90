// A short trainer command run to its end: `python -m seed_trainer <command> …` with the trainer's environment, its
// output handed over line by line as it comes, the end of its stderr kept for the message, and ended when the caller
// aborts. What if…'s rescoring (src/whatIf/core/trainerRescore.ts) and Export Checkpoint (src/modelExport/) run the
// trainer this way; training runs are launched detached instead (src/runs/core/trainerProcess.ts). No vscode.
import { spawn } from 'node:child_process';

export interface TrainerCommandOptions {
  /** The trainer's Python (seedStudio.pythonPath, the Python extension's, …: src/python/pythonInterpreter.ts). */
  python: string;
  args: readonly string[];
  /** Extra environment (seedStudio.trainer.env). */
  env?: Record<string, string>;
  /** Aborting ends the process: SIGTERM, then SIGKILL after `killAfterMs`. */
  signal?: AbortSignal;
  killAfterMs?: number;
  /** Each line of stdout and of stderr, as it comes. A line ends at \n, \r\n or a lone \r (progress bars redraw
   * their line with \r, so each redraw is a line). */
  onStdout?: (line: string) => void;
  onStderr?: (line: string) => void;
}

export interface TrainerCommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what the process wrote to stderr (the last 20 000 characters). */
  stderr: string;
  /** The caller aborted while it ran (it was ended). */
  cancelled: boolean;
}

/** The interpreter could not be started (not found, not executable). */
export class TrainerStartError extends Error {}

/** Cuts a stream into lines as chunks arrive; the remainder waits for its end of line (or `end`). */
export class LineSplitter {
  private rest = '';

  push(chunk: string): string[] {
    const parts = (this.rest + chunk).split(/\r\n|\r|\n/);
    this.rest = parts.pop() ?? '';
    return parts;
  }

  end(): string[] {
    const last = this.rest;
    this.rest = '';
    return last ? [last] : [];
  }
}

/** The last `error: …` line the trainer wrote, else the end of what it wrote. */
export function trainerErrorMessage(stderr: string): string {
  const lines = stderr.trim().split(/\r\n|\r|\n/);
  const error = [...lines].reverse().find((line) => line.startsWith('error: '));
  if (error) return error.slice('error: '.length);
  if (/No module named '?seed_trainer/.test(stderr)) return 'the trainer is not installed in this Python (run "SEED: Set Up Trainer")';
  return lines.slice(-3).join(' ').slice(-400) || 'no message';
}

/** Runs the command to its end (or until aborted); rejects with a TrainerStartError when it cannot start. */
export async function runTrainerCommand(options: TrainerCommandOptions): Promise<TrainerCommandResult> {
  const child = spawn(options.python, [...options.args], {
    env: { ...process.env, PYTHONUNBUFFERED: '1', ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  let stderr = '';
  const out = new LineSplitter();
  const err = new LineSplitter();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of out.push(chunk)) options.onStdout?.(line);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
    for (const line of err.push(chunk)) options.onStderr?.(line);
  });
  let killer: ReturnType<typeof setTimeout> | undefined;
  const cancel = () => {
    child.kill('SIGTERM');
    killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 5_000);
  };
  if (options.signal?.aborted) cancel();
  else options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', (error) => reject(new TrainerStartError(error.message)));
      // 'close' (not 'exit'): stdout and stderr have been read to their end
      child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
    });
    for (const line of out.end()) options.onStdout?.(line);
    for (const line of err.end()) options.onStderr?.(line);
    return { code, signal, stderr, cancelled: options.signal?.aborted ?? false };
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    if (killer) clearTimeout(killer);
  }
}
