// Which weights rescore a trajectory, for both scorers. The gates of Stage-2 update k were computed by π_old, the
// weights after update k − 1, so checkpoint step-(k−1) is the one that reproduces them; when it was not kept, the kept
// weights nearest to it (src/whatIf/shared/weights.ts `nearestKept`: checkpoints, exports and the starting model as
// step 0). onnxruntime-node uses the export of that step; the trainer loads that checkpoint (`--checkpoint`), so the
// two paths never score with different weights. An export's step is its folder name's (`step-000020-onnx`), else the
// checkpoint its export.json was made from; an export that names neither is not used.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { checkpointName, nearestKept, scoringStep, stepOfWeights } from '../shared/weights';

export interface WeightsChoice {
  /** The step whose weights scored the trajectory (0: the run's starting model). */
  wantedStep: number;
  /** The step chosen: `wantedStep` when kept, else the nearest kept. */
  step: number;
  /** True when the chosen weights are the ones that scored the trajectory. */
  exact: boolean;
  /** The ONNX export of the chosen step, when there is one. */
  exportDir?: string;
  /** The kept checkpoint of the chosen step, relative to the run (`checkpoints/step-000030`); none for step 0. */
  checkpoint?: string;
  /** Every ONNX export of the run (folders of exports/ holding export.json), sorted. */
  exports: string[];
}

/** @param withExports false: only what the trainer can load (kept checkpoints and the starting model), for when the
 * chosen export cannot be used (above seedStudio.whatIf.maxOnnxSizeMB). */
export function chooseWeights(runDir: string, update: number | null | undefined, phase: string, withExports = true): WeightsChoice {
  const exports = onnxExports(runDir);
  const exportByStep = new Map<number, string>();
  for (const dir of exports) {
    const step = exportStep(dir);
    if (step !== undefined && !exportByStep.has(step)) exportByStep.set(step, dir);
  }
  const checkpoints = keptCheckpointSteps(runDir);
  const wantedStep = scoringStep(phase, update);
  const step = nearestKept([0, ...checkpoints, ...(withExports ? exportByStep.keys() : [])], wantedStep) ?? 0;
  const exportDir = withExports ? exportByStep.get(step) : undefined;
  return {
    wantedStep,
    step,
    exact: step === wantedStep,
    ...(exportDir ? { exportDir } : {}),
    ...(step > 0 && checkpoints.includes(step) ? { checkpoint: path.join('checkpoints', checkpointName(step)) } : {}),
    exports,
  };
}

/** What the trainer question offers to export for the editor instead: the chosen weights' kept checkpoint (never the
 * wanted one when it was pruned; none for the starting model), unless the chosen step has an export already (one too
 * large for the editor). */
export function exportOffer(weights: Pick<WeightsChoice, 'checkpoint'>, exported: boolean): { exportCheckpoint: string; hint: string } | undefined {
  if (exported || !weights.checkpoint) return undefined;
  const exportCheckpoint = weights.checkpoint.split(path.sep).join('/');
  return { exportCheckpoint, hint: `Or export ${exportCheckpoint} as ONNX for the editor: What if… then rescores it here, without the trainer.` };
}

function onnxExports(runDir: string): string[] {
  const exportsDir = path.join(runDir, 'exports');
  if (!existsSync(exportsDir)) return [];
  return readdirSync(exportsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && existsSync(path.join(exportsDir, entry.name, 'export.json')))
    .map((entry) => path.join(exportsDir, entry.name))
    .sort();
}

/** Steps of the run's kept checkpoints (`checkpoints/step-NNNNNN`; a temporary folder has another name). */
function keptCheckpointSteps(runDir: string): number[] {
  const dir = path.join(runDir, 'checkpoints');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^step-\d+$/.test(entry.name))
    .map((entry) => stepOfWeights(entry.name)!)
    .sort((a, b) => a - b);
}

/** The step an export holds: its folder name's, else its export.json `source.checkpoint`'s. */
function exportStep(dir: string): number | undefined {
  const named = stepOfWeights(path.basename(dir));
  if (named !== undefined) return named;
  try {
    const source = (JSON.parse(readFileSync(path.join(dir, 'export.json'), 'utf8')) as { source?: { checkpoint?: unknown } }).source;
    return typeof source?.checkpoint === 'string' ? stepOfWeights(source.checkpoint) : undefined;
  } catch {
    return undefined;
  }
}
