// Which Python runs the trainer. Order: the `seedStudio.pythonPath` setting (an explicit choice for SEED wins), the
// Python extension's active environment (@vscode/python-extension, when that extension is installed), the SEED_PYTHON
// environment variable, the workspace's .venv, then python3 on PATH. In an untrusted workspace, workspace-level
// settings, the Python extension's (workspace-chosen) environment and the workspace's .venv are ignored: a cloned
// repository must not choose the program we execute.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';

export interface InterpreterChoice {
  path: string;
  source: 'setting' | 'Python extension' | 'SEED_PYTHON' | 'workspace .venv' | 'PATH';
}

function venvPython(folder: string): string {
  return path.join(folder, '.venv', process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
}

function fromSetting(): InterpreterChoice | undefined {
  const setting = vscode.workspace.getConfiguration('seedStudio').inspect<string>('pythonPath');
  const value = vscode.workspace.isTrusted
    ? (setting?.workspaceFolderValue ?? setting?.workspaceValue ?? setting?.globalValue)
    : setting?.globalValue;
  return value ? { path: value, source: 'setting' } : undefined;
}

function fallbacks(): InterpreterChoice {
  const fromEnv = process.env.SEED_PYTHON;
  if (fromEnv) return { path: fromEnv, source: 'SEED_PYTHON' };
  if (vscode.workspace.isTrusted) {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const candidate = venvPython(folder.uri.fsPath);
      if (existsSync(candidate)) return { path: candidate, source: 'workspace .venv' };
    }
  }
  return { path: process.platform === 'win32' ? 'python' : 'python3', source: 'PATH' };
}

/** Synchronous resolution without the Python extension (setting, SEED_PYTHON, .venv, PATH). */
export function resolvePythonInterpreter(): InterpreterChoice {
  return fromSetting() ?? fallbacks();
}

/** The Python extension's active interpreter for `resource`, when that extension is installed. */
async function fromPythonExtension(resource?: vscode.Uri): Promise<InterpreterChoice | undefined> {
  if (!vscode.workspace.isTrusted || !vscode.extensions.getExtension('ms-python.python')) return undefined;
  try {
    const { PythonExtension } = await import('@vscode/python-extension');
    const api = await PythonExtension.api();
    const active = api.environments.getActiveEnvironmentPath(resource);
    const resolved = await api.environments.resolveEnvironment(active);
    const executable = resolved?.executable.uri?.fsPath ?? active.path;
    return executable ? { path: executable, source: 'Python extension' } : undefined;
  } catch {
    return undefined;
  }
}

/** The interpreter that runs the trainer for `resource` (an experiment file), the Python extension included. */
export async function resolveTrainerPython(resource?: vscode.Uri): Promise<InterpreterChoice> {
  return fromSetting() ?? (await fromPythonExtension(resource)) ?? fallbacks();
}

/** Tells the Python extension (when installed) to use `interpreter` for the workspace; false when it is absent. */
export async function selectInPythonExtension(interpreter: string, resource?: vscode.Uri): Promise<boolean> {
  if (!vscode.extensions.getExtension('ms-python.python')) return false;
  try {
    const { PythonExtension } = await import('@vscode/python-extension');
    const api = await PythonExtension.api();
    await api.environments.updateActiveEnvironmentPath(interpreter, resource);
    return true;
  } catch {
    return false;
  }
}
