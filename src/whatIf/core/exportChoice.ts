// Which ONNX export rescores a trajectory. The gates of Stage-2 update k were computed by π_old, the weights after
// update k − 1, so checkpoint step-(k−1)'s export is the one that reproduces them; other exports of the run are
// offered when that one does not exist.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface ExportCandidates {
  /** The export whose weights scored the trajectory, when it exists. */
  matching?: string;
  /** Every ONNX export of the run (folders of exports/ holding export.json), sorted. */
  all: string[];
  /** The checkpoint whose export would match (for the message when none exists). */
  wanted?: string;
}

export function exportCandidates(runDir: string, update: number | null | undefined, phase: string): ExportCandidates {
  const exportsDir = path.join(runDir, 'exports');
  const all = existsSync(exportsDir)
    ? readdirSync(exportsDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && existsSync(path.join(exportsDir, entry.name, 'export.json')))
        .map((entry) => path.join(exportsDir, entry.name))
        .sort()
    : [];
  if (phase !== 'train' || typeof update !== 'number' || update < 2) return { all };
  const wanted = `step-${String(update - 1).padStart(6, '0')}`;
  const matching = all.find((dir) => path.basename(dir) === `${wanted}-onnx`);
  return { all, wanted, ...(matching ? { matching } : {}) };
}
