// The trajectory table of one batch of a run (an update, a collection batch, an evaluation split): rows from the runs
// model's index, the mean gate read once from the batch's trajectory files; a row opens the viewer, two selected rows
// open the diff. Opened from a batch (or run: its newest batch) in the Runs tree.
import * as vscode from 'vscode';
import { TABLE_TO_HOST, type TableToHost, type TableToWebview } from './shared/protocol';
import type { RunsModel } from '../runs/runsModel';
import { PanelBase, createPanel, type PanelContext } from '../webviewHost/panelBase';
import { batchRows } from './core/batchTable';

const TABLE_VIEW_TYPE = 'seedStudio.trajectoryTable';

/** `{dir, batch}` of a Runs tree node (a batch, or a run: its newest batch). */
function target(runs: RunsModel, arg: unknown): { runDir: string; batch: string } | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const node = arg as { dir?: unknown; batch?: unknown };
  if (typeof node.dir !== 'string') return undefined;
  if (typeof node.batch === 'string') return { runDir: node.dir, batch: node.batch };
  const newest = [...(runs.get(node.dir)?.index.batches.keys() ?? [])].pop();
  return newest ? { runDir: node.dir, batch: newest } : undefined;
}

class TablePanel extends PanelBase<TableToWebview, TableToHost> {
  constructor(panel: vscode.WebviewPanel, runs: RunsModel, where: { runDir: string; batch: string }, context: PanelContext) {
    super(panel, { title: 'Trajectories', bundle: 'trajectoryTable', fromPage: TABLE_TO_HOST }, context);
    this.channel
      .onReady(() => {
        runs
          .add(where.runDir) // the known entry, or the run read now
          .then((entry) => batchRows(entry, where.batch))
          .then(
            ({ batch, rows }) => this.channel.post('rows', { run: runs.title(where.runDir), batch, rows }),
            (error: unknown) => this.channel.post('error', { message: error instanceof Error ? error.message : String(error) }),
          );
      })
      .on('open', async ({ id }) => {
        await vscode.commands.executeCommand('seedStudio.openTrajectory', where.runDir, id);
      })
      .on('compare', async ({ a, b }) => {
        await vscode.commands.executeCommand('seedStudio.compareTrajectories', { runDir: where.runDir, id: a }, { runDir: where.runDir, id: b });
      })
      .on('rendered', () => undefined);
  }
}

export function registerTrajectoryTable(context: vscode.ExtensionContext, runs: RunsModel, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand('seedStudio.openTrajectoryTable', async (arg?: unknown) => {
    const where = target(runs, arg);
    if (!where) {
      void vscode.window.showInformationMessage('SEED: open the trajectory table from a run or an update in the Runs view.');
      return undefined;
    }
    const panel = createPanel(TABLE_VIEW_TYPE, `Trajectories · ${runs.title(where.runDir)}`, vscode.ViewColumn.Active, context.extensionUri);
    new TablePanel(panel, runs, where, { extensionUri: context.extensionUri, log });
    return panel;
  });
}
