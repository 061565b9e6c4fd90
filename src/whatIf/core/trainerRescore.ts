// What-if through the trainer: `python -m seed_trainer rescore RUN --trajectory ID --skill S`, for runs whose ONNX
// export is missing or too large for onnxruntime-node here. The trainer scores on the run's device with its own
// prompt builder; it prints progress lines and then the what-if file (schemas/whatif.schema.json), checked here again.
import type { RunSchemas } from '../../runs/core/schemas';
import { TrainerStartError, runTrainerCommand, trainerErrorMessage, type TrainerCommandResult } from '../../python/core/trainerCommand';
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

/**
 * Scores `skills` on one trajectory through the trainer. The result's `seconds` is the wall time of the whole launch
 * (interpreter start and loading the weights included): what the user waited for. Cancelling through `signal` ends the
 * process; nothing is written either way.
 */
export async function rescoreWithTrainer(runDir: string, trajectoryId: string, skills: readonly string[], schemas: RunSchemas, options: TrainerRescoreOptions): Promise<WhatIfFile> {
  const started = performance.now();
  let file: unknown;
  const onStdout = (text: string) => {
    let line: TrainerLine;
    try {
      line = JSON.parse(text) as TrainerLine;
    } catch {
      return; // a library's own print: not ours
    }
    if (line.type === 'progress') options.onProgress?.(line.done, line.total);
    else if (line.type === 'whatif') file = line.file;
  };
  let result: TrainerCommandResult;
  try {
    result = await runTrainerCommand({ python: options.python, args: trainerRescoreArgs(runDir, trajectoryId, skills, options.checkpoint), onStdout, ...(options.env ? { env: options.env } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    if (!(error instanceof TrainerStartError)) throw error;
    throw new WhatIfError('trainer', `Cannot start the trainer's Python ${options.python} (${error.message}): set seedStudio.pythonPath or run "SEED: Set Up Trainer".`);
  }
  const { code, stderr } = result;
  if (result.cancelled) throw new WhatIfError('cancelled', 'Rescoring was cancelled.');
  if (code !== 0) throw new WhatIfError('trainer', `The trainer's rescoring ${code === 2 ? 'refused' : `failed (exit ${code})`}: ${trainerErrorMessage(stderr)}`);
  if (file === undefined) throw new WhatIfError('trainer', 'The trainer finished without printing its result.');
  const checked = schemas.validate('whatif', file, { file: 'the trainer\'s rescore output' });
  if (checked.trajectory !== trajectoryId) throw new WhatIfError('trainer', `The trainer rescored trajectory ${checked.trajectory}, not ${trajectoryId}.`);
  const seconds = Number(((performance.now() - started) / 1000).toFixed(3));
  return { ...checked, results: checked.results.map((result) => ({ ...result, seconds })) };
}
