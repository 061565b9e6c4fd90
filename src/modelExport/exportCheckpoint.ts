// "SEED: Export Checkpoint…" (the Runs view's run menu, the palette, What if…'s export button): picks the run (palette),
// its weights (kept checkpoints, its own model, the starting model when it is another run's output:
// core/runWeights.ts) and the format (ONNX for What if…, or a Hugging Face folder), then runs
// `python -m seed_trainer export` with the trainer's Python and environment behind a cancellable progress notification
// that shows the trainer's progress lines. At the end: the folder with Open Folder and Reveal, or the reason it failed;
// a cancel ends the trainer and removes the half-written folder. Returns the export (tests, What if…).
import path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services';
import { refuseWhenUntrusted } from '../common/trust';
import { resolveTrainerPython } from '../python/pythonInterpreter';
import { trainerEnv } from '../python/trainerSettings';
import { TrainerStartError } from '../python/core/trainerCommand';
import { pickRun } from '../runs/runsModel';
import { FORMAT_LABELS, exportDir, findWeights, formatPickItems, weightsPickItems, type ExportableWeights, type ExportFormat } from './core/exportChoices';
import { ExportProgress } from './core/exportProgress';
import { runExport, type ExportOutcome } from './core/exportRun';
import { readRunWeights } from './core/runWeights';

export const EXPORT_CHECKPOINT_COMMAND = 'seedStudio.exportCheckpoint';

/** The command's argument: a runs-tree node ({dir}), a run folder (path or Uri), or what to export without asking. */
export interface ExportCheckpointArgs {
  runDir: string;
  /** The weights as the pickers name them (`checkpoints/step-000001`, `model`) or their folder. */
  checkpoint?: string;
  format?: ExportFormat;
}

export interface ExportCheckpointResult {
  dir: string;
  format: ExportFormat;
  weights: string;
  seconds: number;
}

function argsOf(arg: unknown): Partial<ExportCheckpointArgs> {
  if (typeof arg === 'string') return { runDir: arg };
  if (arg instanceof vscode.Uri) return { runDir: arg.fsPath };
  if (!arg || typeof arg !== 'object') return {};
  const value = arg as { dir?: unknown; runDir?: unknown; checkpoint?: unknown; format?: unknown };
  const runDir = typeof value.runDir === 'string' ? value.runDir : typeof value.dir === 'string' ? value.dir : undefined;
  return {
    ...(runDir ? { runDir } : {}),
    ...(typeof value.checkpoint === 'string' ? { checkpoint: value.checkpoint } : {}),
    ...(value.format === 'onnx' || value.format === 'hf' ? { format: value.format } : {}),
  };
}

/** A path as the messages show it: relative to the workspace when inside it. */
function shown(file: string): string {
  return vscode.workspace.asRelativePath(file, false);
}

async function weightsOf(services: Services, runDir: string): Promise<ExportableWeights[]> {
  const entry = services.runs.get(runDir) ?? (await services.runs.add(runDir));
  const checkpoints = await entry.index.reader.listCheckpoints().catch(() => []);
  return readRunWeights(runDir, checkpoints, entry.index.manifest);
}

async function pickExportRun(services: Services): Promise<string | undefined> {
  await services.runs.ready;
  const exportable = new Set<string>();
  for (const entry of services.runs.runs()) if ((await weightsOf(services, entry.dir)).length > 0) exportable.add(entry.dir);
  return pickRun(services.runs, { title: 'Export Checkpoint — run', filter: (entry) => exportable.has(entry.dir), empty: 'no run keeps weights to export (a checkpoints/step-… or model/ folder).' });
}

/** The exports running now, by output folder: a second export of the same folder is refused. */
const running = new Set<string>();

async function exportCheckpoint(services: Services, arg: unknown): Promise<ExportCheckpointResult | undefined> {
  if (refuseWhenUntrusted('launch the trainer')) return undefined;
  const args = argsOf(arg);
  const runDir = args.runDir ? path.resolve(args.runDir) : await pickExportRun(services);
  if (!runDir) return undefined;
  const all = await weightsOf(services, runDir);
  const runName = services.runs.title(runDir) || path.basename(runDir);
  if (all.length === 0) {
    void vscode.window.showInformationMessage(`SEED: ${runName} keeps no weights to export (no checkpoints/step-… or model/ folder).`);
    return undefined;
  }
  let weights: ExportableWeights | undefined;
  if (args.checkpoint) {
    weights = findWeights(all, runDir, args.checkpoint);
    if (!weights) {
      void vscode.window.showErrorMessage(`SEED: ${args.checkpoint} is not weights that ${runName} keeps (${all.map((w) => w.name).join(', ')}).`);
      return undefined;
    }
  } else {
    weights = (await vscode.window.showQuickPick(weightsPickItems(all), { title: `SEED: Export Checkpoint — ${runName}`, placeHolder: 'Which weights to export', matchOnDescription: true, ignoreFocusOut: true }))?.weights;
  }
  if (!weights) return undefined;
  const format =
    args.format ??
    (await vscode.window.showQuickPick(formatPickItems(weights, shown), { title: `SEED: Export ${weights.name} — format`, placeHolder: 'Export as', ignoreFocusOut: true }))?.format;
  if (!format) return undefined;
  return exportWithProgress(services, weights, format);
}

async function exportWithProgress(services: Services, weights: ExportableWeights, format: ExportFormat): Promise<ExportCheckpointResult | undefined> {
  const { log } = services;
  const out = exportDir(weights, format);
  if (running.has(out)) {
    void vscode.window.showWarningMessage(`SEED: ${shown(out)} is being exported already.`);
    return undefined;
  }
  const python = (await resolveTrainerPython()).path;
  const what = `${weights.name} as ${FORMAT_LABELS[format]}`;
  log.info(`export: ${python} -m seed_trainer export --checkpoint ${weights.dir} --format ${format} --out ${out}`);
  running.add(out);
  let outcome: ExportOutcome;
  try {
    outcome = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `SEED: Exporting ${what}`, cancellable: true }, async (progress, token) => {
      const controller = new AbortController();
      const cancel = token.onCancellationRequested(() => controller.abort());
      const started = Date.now();
      const lines = new ExportProgress(format);
      const report = () => progress.report({ message: lines.message((Date.now() - started) / 1000) });
      report();
      const clock = setInterval(report, 1000);
      try {
        return await runExport({
          python,
          env: trainerEnv(),
          weightsDir: weights.dir,
          format,
          out,
          signal: controller.signal,
          onLine: (line, raw, stream) => {
            if (lines.take(line)) report();
            // Every line to the log but a bar's redraws (only its last, full one).
            if (!line || (line.kind === 'bar' && line.done !== line.total)) return;
            if (stream === 'stderr' && line.kind !== 'bar') log.warn(`export: ${raw.trim()}`);
            else log.info(`export: ${raw.trim()}`);
          },
        });
      } finally {
        clearInterval(clock);
        cancel.dispose();
      }
    });
  } catch (error) {
    const reason = error instanceof TrainerStartError ? `cannot start the trainer's Python ${python} (${error.message}): set seedStudio.pythonPath or run "SEED: Set Up Trainer"` : (error as Error).message;
    log.error(`export of ${weights.dir}: ${reason}`);
    void vscode.window.showErrorMessage(`SEED: the export of ${what} did not run: ${reason}`, 'Show Log').then((pick) => pick && log.show(true));
    return undefined;
  } finally {
    running.delete(out);
  }
  return reportOutcome(services, weights, format, outcome);
}

function reportOutcome(services: Services, weights: ExportableWeights, format: ExportFormat, outcome: ExportOutcome): ExportCheckpointResult | undefined {
  const { log } = services;
  const what = `${weights.name} as ${FORMAT_LABELS[format]}`;
  if (outcome.status === 'cancelled') {
    const removed = outcome.removed.length > 0 ? ` Removed the half-written ${outcome.removed.map(shown).join(' and ')}.` : '';
    log.info(`export of ${weights.dir} as ${format}: cancelled${removed}`);
    void vscode.window.showInformationMessage(`SEED: the export of ${what} was cancelled.${removed}`);
    return undefined;
  }
  if (outcome.status === 'failed') {
    log.error(`export of ${weights.dir} as ${format}: ${outcome.reason}`);
    const actions = outcome.missingExtra ? ['Set Up Trainer', 'Show Log'] : ['Show Log'];
    void vscode.window.showErrorMessage(`SEED: the export of ${what} ${outcome.reason}`, ...actions).then((pick) => {
      if (pick === 'Show Log') log.show(true);
      if (pick === 'Set Up Trainer') void vscode.commands.executeCommand('seedStudio.setUpTrainer', { extras: [outcome.missingExtra] });
    });
    return undefined;
  }
  const seconds = Number(outcome.seconds.toFixed(1));
  log.info(`export of ${weights.dir} as ${format}: ${outcome.dir} in ${seconds} s`);
  const use = format === 'onnx' ? ' What if… uses it for the trajectories these weights scored.' : '';
  void vscode.window.showInformationMessage(`SEED: exported ${what} to ${shown(outcome.dir)} in ${seconds} s.${use}`, 'Open Folder', 'Reveal').then((pick) => {
    if (pick) void revealExport(outcome.dir, pick === 'Open Folder');
  });
  return { dir: outcome.dir, format, weights: weights.name, seconds };
}

/** Open Folder: the folder in the operating system's file manager; Reveal: in the Explorer when it is inside the
 * workspace. Each falls back to the other where it is not available (a browser window has no file manager). */
async function revealExport(dir: string, inOs: boolean): Promise<void> {
  const uri = vscode.Uri.file(dir);
  const inWorkspace = vscode.workspace.getWorkspaceFolder(uri) !== undefined;
  const first = inOs || !inWorkspace ? 'revealFileInOS' : 'revealInExplorer';
  try {
    // A file inside, so the file manager opens the folder itself rather than its parent.
    await vscode.commands.executeCommand(first, first === 'revealFileInOS' ? vscode.Uri.joinPath(uri, markerFile(dir)) : uri);
  } catch {
    if (inWorkspace) await vscode.commands.executeCommand('revealInExplorer', uri);
  }
}

/** The file that names an export folder's kind (ONNX: export.json; Hugging Face: config.json). */
function markerFile(dir: string): string {
  return dir.endsWith('-onnx') ? 'export.json' : 'config.json';
}

export function registerExportCheckpoint(services: Services): vscode.Disposable {
  return vscode.commands.registerCommand(EXPORT_CHECKPOINT_COMMAND, (arg?: unknown) => exportCheckpoint(services, arg));
}
