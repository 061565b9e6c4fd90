// Experiment files for the other features: the compiled schema (loaded on first use), the problems of a document
// (cached per version), and the few facts "SEED: Train" needs from a file (name, algorithm, runs folder).
// Text above SYNC_LIMIT is validated in a worker thread (dist/experimentWorker.js), so the extension host never stops
// for long: small files take a few milliseconds, a 1 MiB one one to two seconds (bench/extension/experiment_validation.mjs).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type * as vscode from 'vscode';
import { loadYaml } from '../../common/core/lazyRequire';
import { algorithmCatalog, type AlgorithmEntry } from './algorithmCatalog';
import { environmentCatalog, type EnvironmentEntry } from './environmentCatalog';
import { ExperimentSchema, type ExperimentProblem, type JsonSchema } from './experimentSchema';
import { modelPathProblems } from './modelPath';
import type { ValidationRequest } from './validationWorker';

/** UTF-16 units (or bytes) up to which validation runs on the calling thread: ~20 ms at most (experiment files are
 *  a few KB and take 1–3 ms). */
export const SYNC_LIMIT = 16 * 1024;

/** `problems` plus the check of model.path against the disk, for a file on disk (an untitled document has no folder
 *  to resolve it against) whose model.path the schema did not already object to. */
function withModelPath(document: vscode.TextDocument, text: string, problems: ExperimentProblem[]): ExperimentProblem[] {
  if (document.uri.scheme !== 'file' || problems.some((p) => p.field === 'model.path')) return problems;
  return [...problems, ...modelPathProblems(text, path.dirname(document.uri.fsPath))];
}

const NO_RANGE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

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
  /** `sft.mode`: `agent` trains on the environment's demonstrations (no collected data) */
  sftMode?: string;
  /** `model.path` as written */
  modelPath?: string;
}

export class ExperimentService {
  private schemaValue: ExperimentSchema | undefined;
  private environmentsValue: Map<string, EnvironmentEntry> | undefined;
  private algorithmsValue: AlgorithmEntry[] | undefined;
  private readonly cache = new Map<string, { version: number; problems: ExperimentProblem[] }>();
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (problems: ExperimentProblem[]) => void; reject: (error: Error) => void }>();

  constructor(private readonly extensionRoot: string) {}

  private get schemaFile(): string {
    return path.join(this.extensionRoot, 'schemas', 'experiment.schema.json');
  }

  get schema(): ExperimentSchema {
    if (!this.schemaValue) {
      this.schemaValue = new ExperimentSchema(JSON.parse(readFileSync(this.schemaFile, 'utf8')) as JsonSchema);
    }
    return this.schemaValue;
  }

  /** The built-in environments the schema describes (environmentCatalog.ts). */
  get environments(): Map<string, EnvironmentEntry> {
    this.environmentsValue ??= environmentCatalog(this.schema);
    return this.environmentsValue;
  }

  /** The Stage-2 algorithms the schema describes, in the trainer's order (algorithmCatalog.ts). */
  get algorithms(): AlgorithmEntry[] {
    this.algorithmsValue ??= algorithmCatalog(this.schema);
    return this.algorithmsValue;
  }

  static isExperiment(uri: vscode.Uri): boolean {
    return EXPERIMENT_FILE.test(uri.path);
  }

  problems(document: vscode.TextDocument): ExperimentProblem[] {
    const key = document.uri.toString();
    const cached = this.cache.get(key);
    if (cached && cached.version === document.version) return cached.problems;
    const text = document.getText();
    const problems = withModelPath(document, text, this.schema.validate(text));
    this.cache.set(key, { version: document.version, problems });
    return problems;
  }

  /** The problems of this version of the document when they are known already (for the CodeLens). */
  knownProblems(document: vscode.TextDocument): ExperimentProblem[] | undefined {
    const cached = this.cache.get(document.uri.toString());
    return cached && cached.version === document.version ? cached.problems : undefined;
  }

  /** The problems of a document, large ones validated in the worker thread. */
  async problemsAsync(document: vscode.TextDocument): Promise<ExperimentProblem[]> {
    const known = this.knownProblems(document);
    if (known) return known;
    const { version } = document;
    const text = document.getText();
    // U+FFFD in a saved file may stand for bytes that are not UTF-8, which only the bytes can show (and locate).
    const found =
      text.includes('\uFFFD') && !document.isDirty && document.uri.scheme === 'file'
        ? await this.problemsOfFile(document.uri.fsPath)
        : text.length <= SYNC_LIMIT
          ? this.schema.validate(text)
          : await this.inWorker({ text });
    const problems = withModelPath(document, text, found);
    this.cache.set(document.uri.toString(), { version, problems });
    return problems;
  }

  /** The problems of the file as the trainer will read it (its bytes: size and UTF-8 included). */
  async problemsOfFile(file: string): Promise<ExperimentProblem[]> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      return [{ message: `cannot read the file: ${reason}`, range: NO_RANGE, severity: 'error', field: '', source: 'limit' }];
    }
    return bytes.length <= SYNC_LIMIT ? this.schema.validateBytes(bytes) : this.inWorker({ bytes });
  }

  private inWorker(request: Omit<ValidationRequest, 'id'>): Promise<ExperimentProblem[]> {
    if (!this.worker) {
      const worker = new Worker(path.join(this.extensionRoot, 'dist', 'experimentWorker.js'), { workerData: { schemaFile: this.schemaFile } });
      worker.unref();
      const failAll = (error: Error): void => {
        for (const { reject } of this.pending.values()) reject(error);
        this.pending.clear();
        if (this.worker === worker) this.worker = undefined;
      };
      worker.on('message', (reply: { id: number; problems?: ExperimentProblem[]; error?: string }) => {
        const waiting = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if (reply.problems) waiting?.resolve(reply.problems);
        else waiting?.reject(new Error(`experiment validation failed: ${reply.error ?? 'no reply'}`));
      });
      worker.on('error', failAll);
      worker.on('exit', (code) => failAll(new Error(`the experiment validation worker exited (${code})`)));
      this.worker = worker;
    }
    const id = (this.nextId += 1);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker?.postMessage({ ...request, id });
    });
  }

  dispose(): void {
    void this.worker?.terminate();
    this.worker = undefined;
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
    const sftMode = section('sft').mode;
    const modelPath = section('model').path;
    return {
      ...(typeof value.name === 'string' ? { name: value.name } : {}),
      ...(typeof value.algorithm === 'string' ? { algorithm: value.algorithm } : {}),
      ...(typeof value.updates === 'number' ? { updates: value.updates } : {}),
      runsDir: path.resolve(path.dirname(file), runsDir),
      ...(Array.isArray(splits) ? { evalSplits: splits.filter((s): s is string => typeof s === 'string') } : {}),
      ...(typeof sftData === 'string' && sftData ? { sftData: path.resolve(path.dirname(file), sftData) } : {}),
      ...(typeof sftMode === 'string' ? { sftMode } : {}),
      ...(typeof modelPath === 'string' && modelPath ? { modelPath } : {}),
    };
  }
}
