// The weights of a run that "SEED: Export Checkpoint…" can export: its kept checkpoints (as the runs layer lists
// them, `RunReader.listCheckpoints`, newest first here), its own trained model
// (`model/`, an SFT run's output) and, where that makes sense, the model it started from. A starting model is offered
// only when it is another run's output (an SFT run's `model/`, a checkpoint): the trainer then writes the export into
// that run's exports/ with that run's prompt settings. A built-in, hub or plain local model is not: an ONNX export
// of it carries the experiment defaults instead of this run's prompt settings, and lands outside any run, where What
// if… does not look (it scores the starting model through the trainer).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RUN_FILES } from '../../runs/core/runFiles';
import type { RecordedExperiment } from '../../runs/shared/types';
import { exportDir, type ExportableWeights, type ExportFormat } from './exportChoices';

/** What the trainer's `holds_model` looks for. */
const MODEL_FILES = ['config.json', 'adapter_config.json'];

export function holdsModel(dir: string): boolean {
  return MODEL_FILES.some((name) => existsSync(path.join(dir, name)));
}

/** The run a model folder lies in (`<run>/checkpoints/step-N`, `<run>/model`), as the trainer's `run_of`. */
export function runOf(dir: string): string | undefined {
  const resolved = path.resolve(dir);
  for (const run of [path.dirname(resolved), path.dirname(path.dirname(resolved))]) {
    if (existsSync(path.join(run, RUN_FILES.manifest))) return run;
  }
  return undefined;
}

/** What of run.json the starting model is resolved from. */
export interface StartFacts {
  experiment?: { path: string };
  config?: RecordedExperiment;
}

/** The starting model's folder when it is another run's weights (see above), else undefined. Relative paths are
 * relative to the experiment file's folder, as the trainer resolves them. */
export function startingModel(runDir: string, manifest: StartFacts | undefined): string | undefined {
  const raw = manifest?.config?.model?.path;
  if (!raw || /^builtin:/.test(raw)) return undefined;
  const experiment = manifest?.experiment?.path;
  const base = experiment !== undefined ? path.dirname(path.resolve(runDir, experiment)) : runDir;
  const dir = path.resolve(base, raw.replace(/^~(?=[\\/])/, process.env.HOME ?? '~'));
  const run = runOf(dir);
  return run && path.resolve(run) !== path.resolve(runDir) && holdsModel(dir) ? dir : undefined;
}

function exportedFormats(weights: Pick<ExportableWeights, 'dir' | 'exportRun'>): ExportFormat[] {
  return (['onnx', 'hf'] as const).filter((format) => existsSync(exportDir(weights, format)));
}

/** A kept checkpoint as `RunReader.listCheckpoints` lists it. */
export interface KeptCheckpoint {
  step: number;
  dir: string;
}

/** The run's exportable weights: kept checkpoints (newest first; those holding a model), its own `model/`, then the
 * starting model. */
export function readRunWeights(runDir: string, checkpoints: readonly KeptCheckpoint[], manifest?: StartFacts): ExportableWeights[] {
  const kept = checkpoints.filter((checkpoint) => holdsModel(checkpoint.dir)).sort((a, b) => b.step - a.step);
  const found: Array<Omit<ExportableWeights, 'exported'>> = kept.map(({ step, dir }) => ({
    name: `${RUN_FILES.checkpointsDir}/${path.basename(dir)}`,
    dir,
    kind: 'checkpoint',
    step,
    exportRun: runDir,
  }));
  const model = path.join(runDir, 'model');
  if (holdsModel(model)) found.push({ name: 'model', dir: model, kind: 'model', exportRun: runDir });
  const start = startingModel(runDir, manifest);
  if (start) found.push({ name: 'starting model', dir: start, kind: 'start', exportRun: runOf(start)! });
  return found.map((weights) => ({ ...weights, exported: exportedFormats(weights) }));
}
