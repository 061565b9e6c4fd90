// The VS Code side of environmentProblems.ts: asks the trainer's doctor (only for an experiment whose environment
// needs an extra or data, and never in an untrusted workspace, where no Python is launched) and offers the quick fix
// that installs a missing extra through "SEED: Set Up Trainer".
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { SetUpTrainerArgs } from '../trainer/setUpTrainer';
import { resolveTrainerPython } from '../trainer/pythonInterpreter';
import { trainerEnv } from '../trainer/trainerHost';
import { defaultEnvironment } from './core/environmentCatalog';
import { MISSING_EXTRA, environmentProblems, extraOfProblem, namedEnvironment } from './core/environmentProblems';
import type { ExperimentProblem } from './core/experimentSchema';
import { SYNC_LIMIT } from './core/experimentService';

/** The environment problems of a document's text; the doctor is asked at most once per interpreter (cached). */
export async function environmentProblemsOf(document: vscode.TextDocument, text: string, services: Services): Promise<ExperimentProblem[]> {
  // Text past SYNC_LIMIT is validated in a worker so that the host never stops for long; parsing it here would undo
  // that (experiment files are a few KB).
  if (text.length > SYNC_LIMIT) return [];
  const { experiments } = services;
  const catalog = experiments.environments;
  const defaultName = defaultEnvironment(experiments.schema);
  const entry = namedEnvironment(text, catalog, defaultName);
  let report;
  if (entry && (entry.extra || entry.data) && vscode.workspace.isTrusted) {
    const python = await resolveTrainerPython(document.uri);
    const result = await services.doctor.get(python.path, trainerEnv());
    if (result.ok) report = result.report;
    else services.log.warn(`the trainer's doctor failed with ${python.path} (${python.source}): ${result.error}`);
  }
  return environmentProblems(text, { catalog, defaultName, ...(report ? { report } : {}) });
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
