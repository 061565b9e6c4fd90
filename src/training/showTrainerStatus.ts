// "SEED: Show Trainer Status": which interpreter, whether the trainer imports, torch and CUDA devices (or why not).
// The TRAINER view lists the same report, line by line, from the last probe: probed when the view is first shown in a
// trusted workspace, and again by the command; before any probe it shows its welcome text and button.
import * as vscode from 'vscode';
import { resolvePythonInterpreter } from '../python/pythonInterpreter';
import { describeProbe, probeInterpreter, summarizeProbe, type ProbeResult } from './core/trainerProbe';
import { trainerStatusRow } from './core/trainerStatusRows';

/** The TRAINER view: one row per line of the last probe's report. */
class TrainerStatusView implements vscode.TreeDataProvider<string> {
  static current: TrainerStatusView | undefined;
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private lines: string[] = [];
  private healthy = false;

  show(result: ProbeResult): void {
    this.lines = describeProbe(result);
    this.healthy = result.ok && result.report.trainer.importable && result.report.torch.importable;
    this.changed.fire(undefined);
  }

  getChildren(element?: string): string[] {
    return element === undefined ? this.lines : [];
  }

  getTreeItem(line: string): vscode.TreeItem {
    const row = trainerStatusRow(line);
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.description = row.description;
    item.tooltip = line;
    const bad = /not importable|failed|none \(/.test(line);
    item.iconPath = new vscode.ThemeIcon(bad ? 'warning' : this.healthy ? 'pass' : 'info', bad ? new vscode.ThemeColor('list.warningForeground') : undefined);
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerShowTrainerStatus(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  const probeScript = vscode.Uri.joinPath(context.extensionUri, 'resources', 'probe_environment.py').fsPath;
  const view = new TrainerStatusView();
  TrainerStatusView.current = view;
  const probe = async (): Promise<ProbeResult> => {
    const choice = resolvePythonInterpreter();
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'SEED: probing the Python interpreter' },
      () => probeInterpreter(choice.path, probeScript),
    );
    log.info(`Trainer status (interpreter from ${choice.source}):`);
    for (const line of describeProbe(result)) log.info(`  ${line}`);
    view.show(result);
    return result;
  };
  const tree = vscode.window.createTreeView('seedStudio.trainer', { treeDataProvider: view });
  let probed = false;
  const probeOnce = (): void => {
    if (probed || !tree.visible || !vscode.workspace.isTrusted) return;
    probed = true;
    void probe().catch((error: unknown) => log.warn(`trainer status: ${String(error)}`));
  };
  const visibility = tree.onDidChangeVisibility(probeOnce);
  probeOnce();
  const command = vscode.commands.registerCommand('seedStudio.showTrainerStatus', async (): Promise<ProbeResult> => {
    probed = true;
    const result = await probe();
    const summary = `SEED trainer: ${summarizeProbe(result)}`;
    const healthy = result.ok && result.report.trainer.importable && result.report.torch.importable;
    const show = healthy
      ? vscode.window.showInformationMessage(summary, 'Show Details')
      : vscode.window.showWarningMessage(summary, 'Show Details');
    void show.then((choice) => {
      if (choice === 'Show Details') log.show(true);
    });
    return result;
  });
  return vscode.Disposable.from(command, visibility, tree, view, { dispose: () => (TrainerStatusView.current = undefined) });
}
