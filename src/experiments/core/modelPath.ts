// `model.path` checked against the disk: a `builtin:` name must be one the trainer ships, and a path that looks local
// (relative with a folder part, absolute, `~`, `.`) must exist — otherwise the trainer would spend a minute asking the
// model hub for it and fail with an error that never says the folder is missing. A bare `org/name` is a hub id,
// unless its first part is a folder beside the experiment (then it was meant as a local path). No `vscode` import.
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadYaml } from '../../common/core/lazyRequire';
import { LineMap, type ExperimentProblem } from './experimentSchema';

export const BUILTIN_PREFIX = 'builtin:';
/** The policies shipped in the trainer package (seed_trainer/config.py BUILTIN_MODELS). */
export const BUILTIN_MODELS: readonly string[] = ['household-tiny', 'textworld-tiny'];

function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `value` is meant as a local folder (as opposed to a hub id `org/name`), seen from `baseDir`. */
export function looksLocal(value: string, baseDir: string): boolean {
  if (/^(~|\.{1,2})([/\\]|$)/.test(value) || path.isAbsolute(value) || /^[A-Za-z]:[/\\]/.test(value) || value.includes('\\')) return true;
  const parts = value.split('/').filter(Boolean);
  if (parts.length !== 2) return parts.length > 2;
  return isFolder(path.join(baseDir, parts[0] ?? ''));
}

function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value;
}

/** The problem of `model.path` in an experiment text whose file is in `baseDir`, if any. */
export function modelPathProblems(text: string, baseDir: string): ExperimentProblem[] {
  let document;
  try {
    document = loadYaml().parseDocument(text, { prettyErrors: false });
  } catch {
    return [];
  }
  if (document.errors.length > 0) return [];
  const node = document.getIn(['model', 'path'], true) as { value?: unknown; range?: [number, number, number] } | undefined;
  const value = node?.value;
  if (typeof value !== 'string' || !value || !node?.range) return [];
  const lines = new LineMap(text);
  const at = (message: string, severity: ExperimentProblem['severity']): ExperimentProblem[] => [
    { message, range: lines.span(node.range![0], node.range![1]), severity, field: 'model.path', source: 'schema' },
  ];
  if (value.startsWith(BUILTIN_PREFIX)) {
    const name = value.slice(BUILTIN_PREFIX.length);
    return BUILTIN_MODELS.includes(name) ? [] : at(`model.path: unknown built-in model \`${name}\` (built-in: ${BUILTIN_MODELS.join(', ')})`, 'error');
  }
  if (!looksLocal(value, baseDir)) return [];
  const folder = path.resolve(baseDir, expandHome(value));
  if (existsSync(folder)) return [];
  return at(
    `model.path: no folder ${value} (resolved against the experiment's folder). Train Stage 1 first, point at a Hugging Face model folder, or use \`builtin:household-tiny\``,
    'warning',
  );
}
