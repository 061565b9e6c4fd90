// "SEED: Open in TensorBoard": the run's (or several runs') event files in TensorBoard, inside VS Code's Simple
// Browser. The servers belong to the window: they end when the extension is disposed (window closed or reloaded).
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services';
import { resolveTrainerPython } from '../python/pythonInterpreter';
import { runDirOf } from '../training/trainCommands';
import { refuseWhenUntrusted } from '../common/trust';
import { TENSORBOARD_REQUIREMENT, TensorBoardMissingError, TensorBoardServers, logdirFor, logdirSpec, runEventsDir, type TensorBoardServer } from './core/tensorBoardServers';

/** What the command returns (for tests and other commands): the server and the address the browser was given. */
export interface OpenedTensorBoard extends TensorBoardServer {
  externalUrl: string;
}

const ALL_RUNS = 'All runs with TensorBoard events';

/** The runs the command was given: a tree node, a path or Uri, or the tree's multi-selection. */
function runsOfArgs(arg: unknown, selected: unknown): string[] {
  const many = Array.isArray(selected) && selected.length > 1 ? selected : Array.isArray(arg) ? arg : [arg];
  return many.map(runDirOf).filter((dir): dir is string => dir !== undefined).map((dir) => path.resolve(dir));
}

/** A quick pick of the runs that have event files, and "all of them" when there are several. */
async function pickRuns(services: Services): Promise<string[] | undefined> {
  await services.runs.ready;
  const withEvents = services.runs.runs().filter((entry) => existsSync(runEventsDir(entry.dir)));
  if (withEvents.length === 0) {
    void vscode.window.showInformationMessage('SEED: no run in this workspace has TensorBoard events. Add `report_to: [tensorboard]` to an experiment and train it.');
    return undefined;
  }
  if (withEvents.length === 1) return [withEvents[0]!.dir];
  const titles = services.runs.core.titles();
  const items = [
    { label: ALL_RUNS, description: `${withEvents.length} runs`, dirs: withEvents.map((entry) => entry.dir) },
    ...withEvents.map((entry) => ({ label: titles.get(entry.dir) ?? path.basename(entry.dir), description: vscode.workspace.asRelativePath(entry.dir), dirs: [entry.dir] })),
  ];
  const choice = await vscode.window.showQuickPick(items, { title: 'SEED: Open in TensorBoard', placeHolder: 'Run' });
  return choice?.dirs;
}

/** The extra's requirement installed with the trainer's interpreter, in a terminal the user watches. */
function offerInstall(python: string): void {
  void vscode.window
    .showErrorMessage(`SEED: TensorBoard is not installed for ${python}. It is the trainer's optional "tensorboard" extra (${TENSORBOARD_REQUIREMENT}).`, 'Install TensorBoard')
    .then((pick) => {
      if (!pick) return;
      const terminal = vscode.window.createTerminal({ name: 'SEED: install TensorBoard' });
      terminal.show();
      terminal.sendText(`"${python}" -m pip install "${TENSORBOARD_REQUIREMENT}"`);
    });
}

export function registerOpenTensorBoard(_context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  const servers = new TensorBoardServers({ onLine: (line) => services.log.info(`tensorboard: ${line}`) });
  const command = vscode.commands.registerCommand('seedStudio.openTensorBoard', async (arg?: unknown, selected?: unknown): Promise<OpenedTensorBoard | undefined> => {
    if (refuseWhenUntrusted('start TensorBoard')) return undefined;
    const given = runsOfArgs(arg, selected);
    const dirs = given.length > 0 ? given : await pickRuns(services);
    if (!dirs) return undefined;
    let logdir: string;
    try {
      logdir = logdirFor(dirs);
    } catch (error) {
      void vscode.window.showWarningMessage(`SEED: ${(error as Error).message}`);
      return undefined;
    }
    const python = (await resolveTrainerPython()).path;
    try {
      const server = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `SEED: starting TensorBoard on ${vscode.workspace.asRelativePath(logdir)}…` },
        () => servers.ensure(python, logdir, logdirSpec(dirs)),
      );
      // In a remote or browser window the local port is reached through VS Code's port forwarding or proxy.
      const externalUrl = (await vscode.env.asExternalUri(vscode.Uri.parse(server.url))).toString(true);
      services.log.info(`TensorBoard (pid ${server.pid}) on ${logdir}: ${server.url} → ${externalUrl}`);
      await vscode.commands.executeCommand('simpleBrowser.show', externalUrl);
      return { ...server, externalUrl };
    } catch (error) {
      if (error instanceof TensorBoardMissingError) offerInstall(python);
      else void vscode.window.showErrorMessage(`SEED: ${(error as Error).message}`, { modal: false });
      return undefined;
    }
  });
  return vscode.Disposable.from(command, servers);
}
