// The trainer's environment variables as the host reads them, for every process that runs the trainer's Python.
import * as vscode from 'vscode';

/** The `seedStudio.trainer.env` setting (workspace levels only in a trusted workspace). */
export function trainerEnv(): Record<string, string> {
  const inspected = vscode.workspace.getConfiguration('seedStudio').inspect<Record<string, string>>('trainer.env');
  const value = vscode.workspace.isTrusted
    ? { ...(inspected?.globalValue ?? {}), ...(inspected?.workspaceValue ?? {}), ...(inspected?.workspaceFolderValue ?? {}) }
    : (inspected?.globalValue ?? {});
  const env: Record<string, string> = {};
  for (const [key, raw] of Object.entries(value)) if (typeof raw === 'string') env[key] = raw;
  return env;
}
