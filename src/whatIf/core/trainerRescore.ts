// What-if through the trainer: `python -m seed_trainer rescore RUN --trajectory ID --skill S`, for runs whose ONNX
// export is missing or too large for onnxruntime-node here. The trainer scores on the run's device with its own
// prompt builder; it prints progress lines and then the what-if file (schemas/whatif.schema.json), checked here again.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { RunSchemas } from '../../runs/core/schemas';
import { WhatIfError } from './errors';
import type { WhatIfFile } from '../shared/whatIfRecord';

export interface TrainerRescoreOptions {
  /** The trainer's Python (seedStudio.pythonPath, the Python extension's, …). */
  python: string;
  /** Extra environment (seedStudio.trainer.env). */
  env?: Record<string, string>;
  /** Weights other than those that scored the trajectory. */
  checkpoint?: string;
  signal?: AbortSignal;
  /** (forward passes done, total), as the trainer reports them. */
  onProgress?: (done: number, total: number) => void;
}

type TrainerLine = { type: 'progress'; done: number; total: number } | { type: 'whatif'; file: unknown };

function trainerRescoreArgs(runDir: string, trajectoryId: string, skills: readonly string[], checkpoint?: string): string[] {
  return ['-m', 'seed_trainer', 'rescore', runDir, '--trajectory', trajectoryId, ...skills.flatMap((skill) => ['--skill', skill]), ...(checkpoint ? ['--checkpoint', checkpoint] : [])];
}

/** The last `error: …` line the trainer wrote, else the end of what it wrote. */
function trainerMessage(stderr: string): string {
  const lines = stderr.trim().split('\n');
  const error = [...lines].reverse().find((line) => line.startsWith('error: '));
  if (error) return error.slice('error: '.length);
  if (/No module named '?seed_trainer/.test(stderr)) return 'the trainer is not installed in this Python (run "SEED: Set Up Trainer")';
  return lines.slice(-3).join(' ').slice(-400) || 'no message';
}

/**
 * Scores `skills` on one trajectory through the trainer. The result's `seconds` is the wall time of the whole launch
 * (interpreter start and loading the weights included): what the user waited for. Cancelling through `signal` ends the
 * process; nothing is written either way.
 */
export async function rescoreWithTrainer(runDir: string, trajectoryId: string, skills: readonly string[], schemas: RunSchemas, options: TrainerRescoreOptions): Promise<WhatIfFile> {
  const started = performance.now();
  const child = spawn(options.python, trainerRescoreArgs(runDir, trajectoryId, skills, options.checkpoint), {
    env: { ...process.env, PYTHONUNBUFFERED: '1', ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  let file: unknown;
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (text) => {
    let line: TrainerLine;
    try {
      line = JSON.parse(text) as TrainerLine;
    } catch {
      return; // a library's own print: not ours
    }
    if (line.type === 'progress') options.onProgress?.(line.done, line.total);
    else if (line.type === 'whatif') file = line.file;
  });
  const cancel = () => child.kill('SIGTERM');
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', (error) => reject(new WhatIfError('trainer', `Cannot start the trainer's Python ${options.python} (${error.message}): set seedStudio.pythonPath or run "SEED: Set Up Trainer".`)));
      // 'close' (not 'exit'): stdout has been read to its end
      child.once('close', (exitCode) => resolve(exitCode));
    });
    if (options.signal?.aborted) throw new WhatIfError('cancelled', 'Rescoring was cancelled.');
    if (code !== 0) throw new WhatIfError('trainer', `The trainer's rescoring ${code === 2 ? 'refused' : `failed (exit ${code})`}: ${trainerMessage(stderr)}`);
    if (file === undefined) throw new WhatIfError('trainer', 'The trainer finished without printing its result.');
    const checked = schemas.validate('whatif', file, { file: 'the trainer\'s rescore output' });
    if (checked.trajectory !== trajectoryId) throw new WhatIfError('trainer', `The trainer rescored trajectory ${checked.trajectory}, not ${trajectoryId}.`);
    const seconds = Number(((performance.now() - started) / 1000).toFixed(3));
    return { ...checked, results: checked.results.map((result) => ({ ...result, seconds })) };
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    lines.close();
  }
}
