// Which ONNX export rescores a trajectory. The gates of Stage-2 update k were computed by π_old, the weights after
// update k − 1, so checkpoint step-(k−1)'s export is the one that reproduces them; when it does not exist, the export
// of the latest checkpoint before it, else the nearest after (src/whatIf/shared/weights.ts). Exports whose folder name
// carries no step (`exports/<name>/`) are used only when they are the run's only export.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { checkpointName, nearestKept, scoringStep, stepOfWeights } from '../shared/weights';

export interface ExportCandidates {
  /** The export to use: the one whose weights scored the trajectory, else the nearest (see above). */
  chosen?: string;
  /** True when `chosen` holds the weights that scored the trajectory. */
  exact: boolean;
  /** Every ONNX export of the run (folders of exports/ holding export.json), sorted. */
  all: string[];
  /** The checkpoint whose export would match (for the message when none exists). */
  wanted: string;
}

export function exportCandidates(runDir: string, update: number | null | undefined, phase: string): ExportCandidates {
  const exportsDir = path.join(runDir, 'exports');
  const all = existsSync(exportsDir)
    ? readdirSync(exportsDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && existsSync(path.join(exportsDir, entry.name, 'export.json')))
        .map((entry) => path.join(exportsDir, entry.name))
        .sort()
    : [];
  const wantedStep = scoringStep(phase, update);
  const byStep = new Map<number, string>();
  for (const dir of all) {
    const step = stepOfWeights(path.basename(dir));
    if (step !== undefined) byStep.set(step, dir);
  }
  const step = nearestKept([...byStep.keys()], wantedStep);
  const chosen = step !== undefined ? byStep.get(step) : all.length === 1 ? all[0] : undefined;
  return { all, wanted: checkpointName(wantedStep), exact: step === wantedStep && wantedStep > 0, ...(chosen ? { chosen } : {}) };
}
