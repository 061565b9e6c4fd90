// The trainer's settings as the host reads them: extra environment variables and the lifetime of launched runs.
import * as vscode from 'vscode';
import type { RunLifetime } from './core/runSession';

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

export function configuredLifetime(): RunLifetime {
  return vscode.workspace.getConfiguration('seedStudio').get<boolean>('train.stopRunsWhenWindowCloses') ? 'window' : 'detached';
}
