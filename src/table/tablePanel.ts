// The trajectory table of one batch of a run (an update, a collection batch, an evaluation split): rows from the runs
// model's index, the mean gate read once from the batch's trajectory files; a row opens the viewer, two selected rows
// open the diff. Opened from a batch (or run: its newest batch) in the Runs tree.
import * as vscode from 'vscode';
import { TABLE_TO_HOST, type TableToHost, type TableToWebview } from './shared/protocol';
import type { RunsModel } from '../runs/runsModel';
import { WebviewChannel } from '../webviewHost/webviewChannel';
import { localResourceRoots, webviewHtml } from '../webviewHost/webviewHtml';
import { batchRows } from './core/batchTable';

export const TABLE_VIEW_TYPE = 'seedStudio.trajectoryTable';

/** `{dir, batch}` of a Runs tree node (a batch, or a run: its newest batch). */
function target(runs: RunsModel, arg: unknown): { runDir: string; batch: string } | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const node = arg as { dir?: unknown; batch?: unknown };
  if (typeof node.dir !== 'string') return undefined;
  if (typeof node.batch === 'string') return { runDir: node.dir, batch: node.batch };
  const newest = [...(runs.get(node.dir)?.index.batches.keys() ?? [])].pop();
  return newest ? { runDir: node.dir, batch: newest } : undefined;
}

export function registerTrajectoryTable(context: vscode.ExtensionContext, runs: RunsModel, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand('seedStudio.openTrajectoryTable', async (arg?: unknown) => {
    const where = target(runs, arg);
    if (!where) {
      void vscode.window.showInformationMessage('SEED: open the trajectory table from a run or an update in the Runs view.');
      return undefined;
    }
    const panel = vscode.window.createWebviewPanel(TABLE_VIEW_TYPE, `Trajectories · ${runs.title(where.runDir)}`, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: localResourceRoots(context.extensionUri),
    });
    panel.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'seed.svg');
    const channel = new WebviewChannel<TableToWebview, TableToHost>(panel.webview, TABLE_TO_HOST, log);
    channel
      .onReady(() => {
        runs
          .add(where.runDir) // the known entry, or the run read now
          .then((entry) => batchRows(entry, where.batch))
          .then(
            ({ batch, rows }) => channel.post('rows', { run: runs.title(where.runDir), batch, rows }),
            (error: unknown) => channel.post('error', { message: error instanceof Error ? error.message : String(error) }),
          );
      })
      .on('open', async ({ id }) => {
        await vscode.commands.executeCommand('seedStudio.openTrajectory', where.runDir, id);
      })
      .on('compare', async ({ a, b }) => {
        await vscode.commands.executeCommand('seedStudio.compareTrajectories', { runDir: where.runDir, id: a }, { runDir: where.runDir, id: b });
      })
      .on('rendered', () => undefined);
    panel.webview.html = webviewHtml(panel.webview, context.extensionUri, { title: 'Trajectories', bundle: 'table', stylesheet: true });
    panel.onDidDispose(() => channel.dispose());
    return panel;
  });
}
