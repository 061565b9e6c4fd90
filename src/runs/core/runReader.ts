// Reads a run directory (docs/run-format.md), validating every record against the schemas. Problems throw a
// RunFormatError naming file, line and field; torn last lines are skipped and collected in `warnings`.
import { open, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { RunFormatError, formatFieldPath, type TornLine } from './errors';
import { JsonlTail, parseJsonLine, readJsonlFile, type JsonlParse, type RecordValidator } from './jsonl';
import { FORMAT_VERSION, RUN_FILES, checkpointStep, evalFile, runPaths, trajectoryRelative, type RunPaths } from './runFiles';
import type { RecordKind, RecordTypes, RunSchemas } from './schemas';
import { BASELINE_FIELD, decodeTokenArrays, gateBaselineProblem, tokenArrayProblems, type TokenArrays } from '../shared/tokenArrays';
import type {
  ControlRequest,
  EvalReport,
  MetricRow,
  RunEvent,
  RunManifest,
  SkillRecord,
  Trajectory,
  TrajectoryIndexRow,
  TrajectoryStep,
} from '../shared/types';

/** Refuses a run.json whose integer format_version these readers do not know. */
function checkFormatVersion(manifest: unknown, filePath: string = RUN_FILES.manifest): void {
  if (manifest === null || typeof manifest !== 'object') return;
  const version = (manifest as { format_version?: unknown }).format_version;
  if (typeof version === 'number' && Number.isInteger(version) && version !== FORMAT_VERSION) {
    const hint = version > FORMAT_VERSION ? 'written by a newer trainer; update SEED Studio' : 'not a valid version';
    throw new RunFormatError(
      'unsupported_version',
      { file: RUN_FILES.manifest, field: 'format_version', path: filePath },
      `format_version ${version} is not supported (${hint}); this reader reads format_version ${FORMAT_VERSION}`,
    );
  }
}

async function readJsonDocument(filePath: string, file: string): Promise<unknown> {
  let data: Buffer;
  try {
    data = await readFile(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new RunFormatError('missing_file', { file, path: filePath }, 'file not found');
    }
    throw error;
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch (error) {
    throw new RunFormatError('invalid_json', { file, path: filePath }, `not valid JSON: ${(error as Error).message}`);
  }
}

/** run.json, version-checked and validated. */
export async function readManifest(runDir: string, schemas: RunSchemas): Promise<RunManifest> {
  const filePath = runPaths(runDir).manifest;
  const value = await readJsonDocument(filePath, RUN_FILES.manifest);
  checkFormatVersion(value, filePath);
  return schemas.validate('run', value, { file: RUN_FILES.manifest, path: filePath });
}

/**
 * Throws a `token_array` error for the first step whose arrays disagree with their `count`, or whose `gate_baseline`
 * does not decode to finite numbers (the one array whose values are checked here: the viewer subtracts it from g).
 */
function checkTrajectoryTokens(record: Trajectory, where: { file: string; line?: number; path?: string }): void {
  record.steps.forEach((step, index) => {
    if (!step.tokens) return;
    const [name, problem] = tokenArrayProblems(step.tokens)[0] ?? [BASELINE_FIELD, gateBaselineProblem(step.tokens)];
    if (problem) {
      const field = formatFieldPath(['steps', index, 'tokens', name]);
      throw new RunFormatError('token_array', { ...where, field }, problem);
    }
  });
}

const JSONL = {
  events: [RUN_FILES.events, 'event'],
  metrics: [RUN_FILES.metrics, 'metric'],
  skills: [RUN_FILES.skills, 'skill'],
  trajectoryIndex: [RUN_FILES.trajectoryIndex, 'trajectory-index'],
} as const satisfies Record<string, readonly [string, RecordKind]>;

export type JsonlFileName = keyof typeof JSONL;
/** The record type of a JSONL file of the run: the one generated from its schema. */
type JsonlFileRecord<K extends JsonlFileName> = RecordTypes[(typeof JSONL)[K][1]];

export class RunReader {
  readonly paths: RunPaths;
  /** Torn last lines met by the reads so far. */
  readonly warnings: TornLine[] = [];

  constructor(
    readonly runDir: string,
    readonly schemas: RunSchemas,
  ) {
    this.paths = runPaths(runDir);
  }

  private at(relative: string): string {
    return path.join(this.runDir, ...relative.split('/'));
  }

  readManifest(): Promise<RunManifest> {
    return readManifest(this.runDir, this.schemas);
  }

  private validator<K extends JsonlFileName>(name: K): RecordValidator<JsonlFileRecord<K>> {
    const file = JSONL[name][0];
    const kind: (typeof JSONL)[K][1] = JSONL[name][1]; // typed by K (destructuring would widen it to every kind)
    return this.schemas.validator(kind, { file, path: this.at(file) });
  }

  /** All complete records of one JSONL file of the run (missing file: none). */
  async readJsonl<K extends JsonlFileName>(name: K): Promise<JsonlParse<JsonlFileRecord<K>>> {
    const file = JSONL[name][0];
    const result = await readJsonlFile(this.at(file), { file, path: this.at(file) }, this.validator(name));
    if (result.torn) this.warnings.push(result.torn);
    return result;
  }

  readEvents(): Promise<JsonlParse<RunEvent>> {
    return this.readJsonl('events');
  }

  readMetrics(): Promise<JsonlParse<MetricRow>> {
    return this.readJsonl('metrics');
  }

  readSkills(): Promise<JsonlParse<SkillRecord>> {
    return this.readJsonl('skills');
  }

  readTrajectoryIndex(): Promise<JsonlParse<TrajectoryIndexRow>> {
    return this.readJsonl('trajectoryIndex');
  }

  /** A live follower of one JSONL file: each `read()` returns only the records appended since the last one. */
  tail<K extends JsonlFileName>(name: K): JsonlTail<JsonlFileRecord<K>> {
    const file = JSONL[name][0];
    return new JsonlTail(this.at(file), { file, path: this.at(file) }, this.validator(name));
  }

  /** Trajectory files in trajectories/ (not the index), sorted. */
  async listTrajectoryFiles(): Promise<string[]> {
    const index = path.posix.basename(RUN_FILES.trajectoryIndex);
    try {
      return (await readdir(this.paths.trajectories)).filter((n) => n.endsWith('.jsonl') && n !== index).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Every trajectory of one file, validated and token-checked (large: prefer readTrajectory with an index row). */
  async readTrajectoryFile(name: string): Promise<JsonlParse<Trajectory>> {
    const file = trajectoryRelative(name);
    const filePath = this.at(file);
    const validate = this.schemas.validator('trajectory', { file, path: filePath });
    const result = await readJsonlFile(filePath, { file, path: filePath }, (value, line) => {
      const record = validate(value, line);
      checkTrajectoryTokens(record, { file, line, path: filePath });
      return record;
    });
    if (result.torn) this.warnings.push(result.torn);
    return result;
  }

  /** One trajectory: exactly the bytes its index row points at, validated, its id and token arrays checked. */
  async readTrajectory(row: TrajectoryIndexRow): Promise<Trajectory> {
    const file = trajectoryRelative(row.file);
    const filePath = this.at(file);
    const where = { file, line: row.line, path: filePath };
    const bytes = Buffer.alloc(row.size);
    let read = 0;
    const handle = await open(filePath, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      throw new RunFormatError('index', { file, path: filePath }, `${RUN_FILES.trajectoryIndex} names this file for trajectory ${JSON.stringify(row.id)}; it does not exist`);
    });
    try {
      while (read < row.size) {
        const { bytesRead } = await handle.read(bytes, read, row.size - read, row.offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
    } finally {
      await handle.close();
    }
    if (read !== row.size || bytes[row.size - 1] !== 0x0a) {
      throw new RunFormatError('index', where, `the index points at bytes ${row.offset}+${row.size}, which are not a whole line`);
    }
    const record = this.schemas.validate('trajectory', parseJsonLine(bytes, where, row.line), where);
    if (record.id !== row.id) {
      throw new RunFormatError('index', { ...where, field: 'id' }, `holds trajectory ${JSON.stringify(record.id)}, the index says ${JSON.stringify(row.id)}`);
    }
    checkTrajectoryTokens(record, where);
    return record;
  }

  /** One trajectory by id (looked up in the index). */
  async findTrajectory(id: string): Promise<Trajectory> {
    const row = (await this.readTrajectoryIndex()).records.find((r) => r.value.id === id)?.value;
    if (!row) throw new Error(`${this.paths.trajectoryIndex}: no trajectory with id ${JSON.stringify(id)}`);
    return this.readTrajectory(row);
  }

  /** The decoded per-token arrays of a step (undefined when it recorded none). */
  static decodeStep(step: TrajectoryStep): TokenArrays | undefined {
    return step.tokens ? decodeTokenArrays(step.tokens) : undefined;
  }

  async listEvalSplits(): Promise<string[]> {
    try {
      return (await readdir(this.paths.evalDir))
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .map((n) => n.slice(0, -'.json'.length))
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async readEval(split: string): Promise<EvalReport> {
    const filePath = evalFile(this.runDir, split);
    const file = `${RUN_FILES.evalDir}/${split}.json`;
    return this.schemas.validate('eval', await readJsonDocument(filePath, file), { file, path: filePath });
  }

  /** Complete checkpoints by step (temporary directories are not listed). */
  async listCheckpoints(): Promise<{ step: number; dir: string }[]> {
    let entries;
    try {
      entries = await readdir(this.paths.checkpoints, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const found: { step: number; dir: string }[] = [];
    for (const entry of entries) {
      const step = checkpointStep(entry.name);
      if (step !== undefined && entry.isDirectory()) found.push({ step, dir: path.join(this.paths.checkpoints, entry.name) });
    }
    return found.sort((a, b) => a.step - b.step);
  }

  /** The run's tags (tags.json); [] without the file. */
  async readTags(): Promise<string[]> {
    try {
      await readFile(this.paths.tags);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const value = await readJsonDocument(this.paths.tags, RUN_FILES.tags);
    return this.schemas.validate('tags', value, { file: RUN_FILES.tags, path: this.paths.tags }).tags;
  }

  /** The control request; undefined without a control file or when it is empty (an empty file still means stop). */
  async readControl(): Promise<ControlRequest | undefined> {
    let data: Buffer;
    try {
      data = await readFile(this.paths.control);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (data.toString('utf8').trim() === '') return undefined;
    const value = await readJsonDocument(this.paths.control, RUN_FILES.control);
    return this.schemas.validate('control', value, { file: RUN_FILES.control, path: this.paths.control });
  }
}
