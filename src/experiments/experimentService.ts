// Experiment files for the other features: the compiled schema (loaded on first use), the problems of a document
// (cached per version), and the few facts "SEED: Train" needs from a file (name, algorithm, runs folder).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as vscode from 'vscode';
import { loadYaml } from '../lazyRequire';
import { ExperimentSchema, type ExperimentProblem, type JsonSchema } from './experimentSchema';
import { modelPathProblems } from './modelPath';

export const EXPERIMENT_FILE = /\.seed\.ya?ml$/i;
export const EXPERIMENT_GLOB = '**/*.seed.{yaml,yml}';

export interface ExperimentFacts {
  name?: string;
  algorithm?: string;
  runsDir: string;
  updates?: number;
  /** `eval.splits` */
  evalSplits?: string[];
  /** `sft.data`, resolved against the file */
  sftData?: string;
}

export class ExperimentService {
  private schemaValue: ExperimentSchema | undefined;
  private readonly cache = new Map<string, { version: number; problems: ExperimentProblem[] }>();

  constructor(private readonly extensionRoot: string) {}

  get schema(): ExperimentSchema {
    if (!this.schemaValue) {
      const file = path.join(this.extensionRoot, 'schemas', 'experiment.schema.json');
      this.schemaValue = new ExperimentSchema(JSON.parse(readFileSync(file, 'utf8')) as JsonSchema);
    }
    return this.schemaValue;
  }

  static isExperiment(uri: vscode.Uri): boolean {
    return EXPERIMENT_FILE.test(uri.path);
  }

  problems(document: vscode.TextDocument): ExperimentProblem[] {
    const key = document.uri.toString();
    const cached = this.cache.get(key);
    if (cached && cached.version === document.version) return cached.problems;
    const text = document.getText();
    const problems = this.schema.validate(text);
    // Only a file on disk has a folder to resolve model.path against (an untitled document has none).
    if (document.uri.scheme === 'file' && !problems.some((p) => p.field === 'model.path')) {
      problems.push(...modelPathProblems(text, path.dirname(document.uri.fsPath)));
    }
    this.cache.set(key, { version: document.version, problems });
    return problems;
  }

  forget(document: vscode.TextDocument): void {
    this.cache.delete(document.uri.toString());
  }

  /** Name, algorithm and the runs folder (resolved against the file) of an experiment text. */
  static facts(text: string, file: string): ExperimentFacts {
    let data: unknown;
    try {
      data = loadYaml().parse(text);
    } catch {
      data = undefined;
    }
    const value = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
    const runsDir = typeof value.runs_dir === 'string' && value.runs_dir ? value.runs_dir : 'runs';
    const section = (name: string): Record<string, unknown> => {
      const found = value[name];
      return found && typeof found === 'object' ? (found as Record<string, unknown>) : {};
    };
    const splits = section('eval').splits;
    const sftData = section('sft').data;
    return {
      ...(typeof value.name === 'string' ? { name: value.name } : {}),
      ...(typeof value.algorithm === 'string' ? { algorithm: value.algorithm } : {}),
      ...(typeof value.updates === 'number' ? { updates: value.updates } : {}),
      runsDir: path.resolve(path.dirname(file), runsDir),
      ...(Array.isArray(splits) ? { evalSplits: splits.filter((s): s is string => typeof s === 'string') } : {}),
      ...(typeof sftData === 'string' && sftData ? { sftData: path.resolve(path.dirname(file), sftData) } : {}),
    };
  }
}
