// What "SEED: Export Checkpoint…" offers and runs, without vscode and without I/O: the quick-pick rows of a run's
// weights and of the formats, where an export goes, and the trainer's command line. The trainer
// (`python -m seed_trainer export`, trainer/seed_trainer/export/model_export.py) writes `<run>/exports/<name>-<format>`
// for weights inside a run, through `.tmp-<name>-<format>` beside it, renamed into place at the end; the extension
// passes that folder as `--out`, so it knows the folder (and the temporary one) before the trainer starts.
import path from 'node:path';

export type ExportFormat = 'onnx' | 'hf';

export const FORMAT_LABELS: Record<ExportFormat, string> = { onnx: 'ONNX', hf: 'Hugging Face folder' };

/** Weights of a run that the trainer can export (each a model folder: config.json or adapter_config.json). */
export interface ExportableWeights {
  /** How the pickers and the What if… view name them: relative to the run (`checkpoints/step-000020`, `model`), or
   * `starting model`. */
  name: string;
  /** The model folder. */
  dir: string;
  kind: 'checkpoint' | 'model' | 'start';
  /** A checkpoint's update. */
  step?: number;
  /** The run whose exports/ folder receives the export: the run the folder lies in (for a starting model that is
   * another run's output, that run). */
  exportRun: string;
  /** The formats already exported there. */
  exported: ExportFormat[];
}

export interface WeightsPickItem {
  label: string;
  description: string;
  detail: string;
  weights: ExportableWeights;
}

export interface FormatPickItem {
  label: string;
  description: string;
  detail: string;
  format: ExportFormat;
}

/** `<run>/exports/<folder name>-<format>`: where the trainer writes by default (`default_export_dir`). */
export function exportDir(weights: Pick<ExportableWeights, 'dir' | 'exportRun'>, format: ExportFormat): string {
  return path.join(weights.exportRun, 'exports', `${path.basename(weights.dir)}-${format}`);
}

/** The folder the trainer writes into before renaming it to `out` (what a killed export leaves behind). */
export function partialExportDir(out: string): string {
  return path.join(path.dirname(out), `.tmp-${path.basename(out)}`);
}

/** The arguments of the trainer's Python (after the interpreter). */
export function exportArgs(weightsDir: string, format: ExportFormat, out: string): string[] {
  return ['-m', 'seed_trainer', 'export', '--checkpoint', weightsDir, '--format', format, '--out', out];
}

function exportedText(weights: ExportableWeights): string {
  if (weights.exported.length === 0) return 'Not exported yet.';
  return `Exported already as ${weights.exported.map((format) => FORMAT_LABELS[format]).join(' and ')}: exporting again replaces it.`;
}

/** One row per exportable weights, in the order given (the newest checkpoint first: `readRunWeights`); a starting
 * model in another run names that run. */
export function weightsPickItems(weights: readonly ExportableWeights[]): WeightsPickItem[] {
  const newest = Math.max(-1, ...weights.map((w) => w.step ?? -1));
  return weights.map((w) => {
    if (w.kind === 'checkpoint') {
      return { label: w.name, description: `update ${w.step}${w.step === newest ? ' · the latest kept' : ''}`, detail: exportedText(w), weights: w };
    }
    if (w.kind === 'model') return { label: w.name, description: 'the model this run trained', detail: exportedText(w), weights: w };
    const run = path.basename(w.exportRun);
    return {
      label: w.name,
      description: `${path.basename(w.dir)} of run ${run}`,
      detail: `The weights this run started from; the export goes to ${run}/exports/. ${exportedText(w)}`,
      weights: w,
    };
  });
}

/** The two formats, each with the folder it writes (`shown` makes a path readable: relative to the workspace). */
export function formatPickItems(weights: ExportableWeights, shown: (file: string) => string = (file) => file): FormatPickItem[] {
  const row = (format: ExportFormat, description: string): FormatPickItem => {
    const out = shown(exportDir(weights, format));
    const again = weights.exported.includes(format) ? ' (replaces the export there)' : '';
    return { label: FORMAT_LABELS[format], description, detail: `Writes ${out}${again}`, format };
  };
  return [row('onnx', 'for What if… in the editor (onnxruntime-node, no Python)'), row('hf', 'a plain model folder, LoRA adapters merged')];
}

/** The weights a command argument names: a name as the pickers show it (`checkpoints/step-000001`, also with the
 * platform's separator) or the folder's path, absolute or relative to the run. Anything else is none of them. */
export function findWeights(weights: readonly ExportableWeights[], runDir: string, named: string): ExportableWeights | undefined {
  const normalized = named.split(/[\\/]+/).filter(Boolean).join('/');
  const resolved = path.resolve(runDir, named);
  return weights.find((w) => w.name === normalized || path.resolve(w.dir) === resolved);
}
