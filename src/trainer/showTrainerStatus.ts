// "SEED: Show Trainer Status": which interpreter, whether the trainer imports, torch and CUDA devices (or why not).
import * as vscode from 'vscode';
import { resolvePythonInterpreter } from './pythonInterpreter';
import { describeProbe, probeInterpreter, summarizeProbe, type ProbeResult } from './core/trainerProbe';

export function registerShowTrainerStatus(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  const probeScript = vscode.Uri.joinPath(context.extensionUri, 'resources', 'probe_environment.py').fsPath;
  return vscode.commands.registerCommand('seedStudio.showTrainerStatus', async (): Promise<ProbeResult> => {
    const choice = resolvePythonInterpreter();
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'SEED: probing the Python interpreter' },
      () => probeInterpreter(choice.path, probeScript),
    );
    log.info(`Trainer status (interpreter from ${choice.source}):`);
    for (const line of describeProbe(result)) log.info(`  ${line}`);
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
}
