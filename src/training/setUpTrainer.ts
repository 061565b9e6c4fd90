// "SEED: Set Up Trainer": creates or updates a virtual environment with the trainer package and the optional extras
// the user picks (setupPlan.ts says what runs), under a cancellable progress notification; every line of pip's output
// goes to a log channel. The extras and what each is for come from the trainer's doctor (trainerDoctor.ts).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { resolveTrainerPython, selectInPythonExtension } from '../python/pythonInterpreter';
import { FACTS_SCRIPT, planSetup, type InterpreterFacts, type SetupStep } from './core/setupPlan';
import { trainerEnv } from '../python/trainerSettings';
import type { SetUpTrainerArgs } from '../python/setUpTrainerArgs';
import type { Services } from '../services';
import { refuseWhenUntrusted } from '../common/trust';

interface SetUpTrainerResult {
  python: string;
  ok: boolean;
  error?: string;
}

function interpreterFacts(python: string): Promise<InterpreterFacts> {
  return new Promise((resolve, reject) => {
    execFile(python, ['-c', FACTS_SCRIPT], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) {
        const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (stderr.trim() || error.message);
        reject(new Error(`${python}: ${reason}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as InterpreterFacts);
      } catch {
        reject(new Error(`${python} printed no interpreter facts: ${stdout.slice(0, 200)}`));
      }
    });
  });
}

/** The extras to install: a multi-select of the doctor's list (the installed ones picked), what each is for beside
 *  it; undefined when the user cancels. Without a doctor report (the interpreter cannot run it) none are offered. */
async function pickExtras(python: string, services: Services, channel: vscode.LogOutputChannel): Promise<string[] | undefined> {
  const result = await services.doctor.get(python, trainerEnv());
  if (!result.ok) {
    channel.warn(`No optional extras offered: the trainer's doctor failed with ${python}: ${result.error}`);
    return [];
  }
  const picks = await vscode.window.showQuickPick(
    result.report.extras.map((extra) => ({
      label: extra.name,
      description: extra.installed ? 'installed' : '',
      detail: extra.purpose,
      picked: extra.installed,
    })),
    { title: 'SEED: Set Up Trainer — optional extras', placeHolder: 'Pick the extras to install with the trainer (none is fine)', canPickMany: true, ignoreFocusOut: true },
  );
  return picks?.map((pick) => pick.label);
}

function runStep(step: SetupStep, channel: vscode.LogOutputChannel, token: vscode.CancellationToken): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.info(`$ ${[step.file, ...step.args].join(' ')}`);
    const child = spawn(step.file, step.args, { env: { ...process.env, PIP_NO_INPUT: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const cancel = token.onCancellationRequested(() => child.kill('SIGTERM'));
    const forward = (level: 'info' | 'warn') => (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split(/\r?\n/)) if (line.trim()) channel[level](line);
    };
    child.stdout.on('data', forward('info'));
    child.stderr.on('data', forward('warn'));
    child.on('error', (error) => {
      cancel.dispose();
      reject(error);
    });
    child.on('close', (code, signal) => {
      cancel.dispose();
      if (token.isCancellationRequested) reject(new vscode.CancellationError());
      else if (code === 0) resolve();
      else reject(new Error(`${step.title} failed (${signal ?? `exit code ${code}`}); see the log`));
    });
  });
}

export function registerSetUpTrainer(context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  const channel = vscode.window.createOutputChannel('SEED Trainer Setup', { log: true });
  const command = vscode.commands.registerCommand('seedStudio.setUpTrainer', async (args?: SetUpTrainerArgs): Promise<SetUpTrainerResult | undefined> => {
    if (refuseWhenUntrusted('set up the trainer')) return undefined;
    const choice = await resolveTrainerPython();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const trainerSource = path.join(context.extensionPath, 'trainer');
    if (!existsSync(path.join(trainerSource, 'pyproject.toml'))) {
      void vscode.window.showErrorMessage(`SEED: this installation of SEED Studio has no trainer package (${trainerSource}).`);
      return undefined;
    }
    let facts: InterpreterFacts;
    try {
      facts = await interpreterFacts(choice.path);
    } catch (error) {
      void vscode.window.showErrorMessage(`SEED: the Python interpreter (${choice.source}) cannot be used: ${(error as Error).message}`);
      return { python: choice.path, ok: false, error: (error as Error).message };
    }
    const extras = args?.extras ?? (await pickExtras(choice.path, services, channel));
    if (extras === undefined) return undefined;
    const newVenvDir = folder ? path.join(folder, '.venv') : path.join(context.globalStorageUri.fsPath, 'venv');
    let plan;
    try {
      plan = planSetup({
        facts,
        newVenvDir,
        trainerSource,
        editable: context.extensionMode !== vscode.ExtensionMode.Production,
        torchRequirement: vscode.workspace.getConfiguration('seedStudio').get<string>('setup.torchRequirement') || 'torch',
        extras,
      });
    } catch (error) {
      void vscode.window.showErrorMessage(`SEED: Set Up Trainer: ${(error as Error).message}`);
      return { python: choice.path, ok: false, error: (error as Error).message };
    }
    if (plan.venvDir && !args?.confirmed) {
      const go = await vscode.window.showInformationMessage(
        `SEED: ${facts.executable} is not a virtual environment. Create one in ${plan.venvDir} and install the trainer there?`,
        { modal: true },
        'Create and Install',
      );
      if (go !== 'Create and Install') return undefined;
    }
    channel.info(`Setting up the trainer with ${facts.executable} (from ${choice.source})`);
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'SEED: Set Up Trainer', cancellable: true },
        async (progress, token) => {
          for (const [i, step] of plan.steps.entries()) {
            progress.report({ message: `${step.title} (${i + 1}/${plan.steps.length})`, increment: i === 0 ? 0 : 100 / plan.steps.length });
            await runStep(step, channel, token);
          }
        },
      );
    } catch (error) {
      if (error instanceof vscode.CancellationError) {
        channel.warn('Set Up Trainer was cancelled.');
        return { python: plan.python, ok: false, error: 'cancelled' };
      }
      channel.error(String((error as Error).message));
      void vscode.window.showErrorMessage(`SEED: ${(error as Error).message}`, 'Show Log').then((pick) => {
        if (pick === 'Show Log') channel.show(true);
      });
      return { python: plan.python, ok: false, error: (error as Error).message };
    }
    // Make sure the next Train uses the interpreter just set up.
    if ((await resolveTrainerPython()).path !== plan.python && !(await selectInPythonExtension(plan.python))) {
      const target = folder ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration('seedStudio').update('pythonPath', plan.python, target);
    }
    services.probes.invalidate();
    services.doctor.invalidate(); // open experiments are checked again: a missing-extra warning goes away
    channel.info(`Done: the trainer runs with ${plan.python}`);
    void vscode.window.showInformationMessage(`SEED: the trainer is set up in ${plan.python}.`, 'Show Trainer Status').then((pick) => {
      if (pick) void vscode.commands.executeCommand('seedStudio.showTrainerStatus');
    });
    return { python: plan.python, ok: true };
  });
  return vscode.Disposable.from(channel, command);
}
