// Workspace Trust: an untrusted workspace shows runs read-only and launches nothing.
import * as vscode from 'vscode';

/** True (and a warning shown) when the workspace is not trusted, so the caller must not `action`. */
export function refuseWhenUntrusted(action: string): boolean {
  if (vscode.workspace.isTrusted) return false;
  void vscode.window
    .showWarningMessage(`SEED: this workspace is not trusted, so SEED Studio does not ${action}; runs stay viewable read-only.`, 'Manage Workspace Trust')
    .then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.trust.manage');
    });
  return true;
}
