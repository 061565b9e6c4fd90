// Commands that only the walkthrough's buttons use (hidden from the palette). A step is ticked by its own command, so
// "Train on your GPU" has one: the demo step's "New Experiment" must not tick it.
import path from 'node:path';
import * as vscode from 'vscode';
import { gpuTemplates } from './core/gpuTemplates';

export function registerWalkthrough(context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.commands.registerCommand('seedStudio.walkthrough.newGpuExperiment', async () => {
    const templates = gpuTemplates(path.join(context.extensionPath, 'resources', 'templates'));
    const pick = await vscode.window.showQuickPick(
      templates.map((template) => ({ label: template.label, detail: template.description, id: template.id })),
      // Kept open when the walkthrough page takes the focus back just after the picker opened (as pickRun).
      { title: 'SEED: New Experiment for your GPU', placeHolder: 'Start from a template (the paper’s settings)', ignoreFocusOut: true },
    );
    return pick ? vscode.commands.executeCommand<vscode.Uri | undefined>('seedStudio.newExperiment', { template: pick.id }) : undefined;
  });
}
