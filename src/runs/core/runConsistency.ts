// Checks across records and files that break `resume` or mislead a reader although every record is valid on its own:
// update numbers that repeat or skip, quantiles out of order, trajectories of updates the metrics lack, incomplete
// checkpoints; and, as warnings, metric names the schema does not list and temporary files an interrupted write left
// behind. The same rules and words as seed_trainer/runlog/consistency.py, quantiles.py and metric_names.py.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { RunFormatError, staleFile, unknownMetric, type StaleFile, type UnknownMetric } from './errors';
import { runOwnership } from './runOwner';
import { RUN_FILES, checkpointStep } from './runFiles';
import type { RunSchemas } from './schemas';
import { RESERVED_METRIC_KEYS, metricEntry } from '../shared/knownMetrics';
import { quantileDisorder } from '../shared/metricQuantiles';
import type { MetricRow, RunStatus, TrajectoryIndexRow } from '../shared/types';

/** Metric kinds numbered 1, 2, 3 … one row each (sft rows may repeat a step; eval rows are per split). */
const NUMBERED_KINDS = new Set(['update', 'collect']);
const CHECKPOINT_MANIFEST = 'manifest.json';
const STALE_DOCUMENT_TEMP = /^\..+\.tmp-\d+$/;
const STALE_CHECKPOINT_TEMP = /^\.(tmp|old)-step-\d{6,}$/;

interface Line<T> {
  line: number;
  value: T;
}

/** The first metrics row of a numbered kind whose step is not the previous one's + 1 (starting at 1). */
export function metricSequenceError(rows: readonly Line<MetricRow>[]): RunFormatError | undefined {
  const last = new Map<string, number>();
  for (const { line, value } of rows) {
    if (!NUMBERED_KINDS.has(value.kind)) continue;
    const previous = last.get(value.kind) ?? 0;
    if (value.step !== previous + 1) {
      const what = value.step <= previous ? 'repeats' : 'skips';
      return new RunFormatError('sequence', { file: RUN_FILES.metrics, line, field: 'step' }, `${value.kind} step ${value.step} ${what} (expected ${previous + 1})`);
    }
    last.set(value.kind, value.step);
  }
  return undefined;
}

/** The first metrics row whose quantiles of g or Δ decrease from min to max (docs/run-format.md §6). */
export function quantileOrderError(rows: readonly Line<MetricRow>[]): RunFormatError | undefined {
  for (const { line, value } of rows) {
    const disorder = quantileDisorder(value);
    if (!disorder) continue;
    const number = (x: number): string => String(Number(x.toPrecision(6)));
    return new RunFormatError(
      'consistency',
      { file: RUN_FILES.metrics, line, field: disorder.key },
      `${number(disorder.value)} is below ${disorder.previousKey} ${number(disorder.previous)} (quantiles never decrease from min to max)`,
    );
  }
  return undefined;
}

/** One warning per metric name of the rows that schemas/metric.schema.json does not list, at the first line holding it. */
export function unknownMetrics(rows: readonly Line<MetricRow>[]): UnknownMetric[] {
  const seen = new Map<string, UnknownMetric>();
  for (const { line, value } of rows) {
    for (const key of Object.keys(value)) {
      if (!RESERVED_METRIC_KEYS.has(key) && !seen.has(key) && !metricEntry(key)) seen.set(key, unknownMetric(RUN_FILES.metrics, line, key));
    }
  }
  return [...seen.values()];
}

/** A run that ended (completed or stopped) indexes every trajectory its files hold; fewer rows mean the index lost
 * some, and every reader that goes through it would miss them. A running run's index may trail its files by the record
 * being written, and a failed one may have died between the two appends. (runlog/consistency.py, the same.) */
export function lostIndexRows(status: RunStatus, indexRead: boolean, indexed: number, held: number): RunFormatError | undefined {
  if ((status !== 'completed' && status !== 'stopped') || !indexRead || indexed >= held) return undefined;
  return new RunFormatError('index', { file: RUN_FILES.trajectoryIndex }, `lists ${indexed} trajectories; the trajectory files hold ${held}: the index lost rows`);
}

/** The first repeated id, the first train update going back or skipping one, the first train trajectory of an update
 * the metrics lack. */
export function indexErrors(rows: readonly Line<TrajectoryIndexRow>[], metricUpdates: ReadonlySet<number> | undefined): RunFormatError[] {
  const where = (line: number, field: string) => ({ file: RUN_FILES.trajectoryIndex, line, field });
  const seen = new Set<string>();
  let previous = 0;
  let repeated: RunFormatError | undefined;
  let backwards: RunFormatError | undefined;
  let orphan: RunFormatError | undefined;
  for (const { line, value: row } of rows) {
    if (!repeated && seen.has(row.id)) repeated = new RunFormatError('sequence', where(line, 'id'), `trajectory id ${JSON.stringify(row.id)} repeats`);
    seen.add(row.id);
    if (row.phase !== 'train' || typeof row.update !== 'number') continue;
    if (!backwards && (row.update < previous || row.update > previous + 1)) {
      // every update has trajectories: going back or skipping one means two writers, or lost lines
      const gap = row.update < previous ? '' : ` (update ${previous + 1} has no trajectories)`;
      backwards = new RunFormatError('sequence', where(line, 'update'), `update ${row.update} after update ${previous}${gap}`);
    }
    previous = Math.max(previous, row.update);
    if (!orphan && metricUpdates && !metricUpdates.has(row.update)) {
      orphan = new RunFormatError(
        'consistency',
        where(line, 'update'),
        `trajectory ${JSON.stringify(row.id)} belongs to update ${row.update}, which metrics.jsonl has no row of`,
      );
    }
  }
  return [repeated, backwards, orphan].filter((e): e is RunFormatError => e !== undefined);
}

/** Why a checkpoint directory is incomplete (naming the file), or undefined when its manifest holds. */
async function checkpointProblem(dir: string, schemas?: RunSchemas): Promise<string | undefined> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(path.join(dir, CHECKPOINT_MANIFEST), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return `no ${CHECKPOINT_MANIFEST} (the checkpoint was never finished)`;
    return `${CHECKPOINT_MANIFEST} is unreadable (${String(error)})`;
  }
  try {
    schemas?.validate('checkpoint-manifest', manifest, { file: CHECKPOINT_MANIFEST });
  } catch (error) {
    return `${CHECKPOINT_MANIFEST} is not valid: ${error instanceof Error ? error.message : String(error)}`;
  }
  const files = manifest !== null && typeof manifest === 'object' ? (manifest as { files?: unknown }).files : undefined;
  if (files === null || typeof files !== 'object' || Object.keys(files).length === 0) return `${CHECKPOINT_MANIFEST} lists no files`;
  for (const [name, size] of Object.entries(files as Record<string, unknown>)) {
    let found: number;
    try {
      found = (await stat(path.join(dir, ...name.split('/')))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return `${name} is missing`;
      return `${name} is unreadable (${String(error)})`;
    }
    if (found !== size) return `${name} has ${found} bytes, the manifest says ${String(size)}`;
  }
  return undefined;
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

export async function checkpointErrors(runDir: string, schemas?: RunSchemas): Promise<RunFormatError[]> {
  const errors: RunFormatError[] = [];
  for (const name of await names(path.join(runDir, RUN_FILES.checkpointsDir))) {
    if (checkpointStep(name) === undefined) continue;
    const dir = path.join(runDir, RUN_FILES.checkpointsDir, name);
    if (!(await stat(dir).then((s) => s.isDirectory(), () => false))) continue;
    const problem = await checkpointProblem(dir, schemas);
    if (problem !== undefined) errors.push(new RunFormatError('checkpoint', { file: `${RUN_FILES.checkpointsDir}/${name}` }, `incomplete: ${problem}`));
  }
  return errors;
}

/** Temporary files of interrupted writes, only when no live trainer owns the run (its own are in flight, not stale). */
export async function staleFiles(runDir: string, status: RunStatus | undefined, ownership = runOwnership): Promise<StaleFile[]> {
  const owned = ownership(runDir);
  if (owned === 'owned' || (owned === 'unknown' && (status === 'running' || status === 'stopping'))) return [];
  const found: StaleFile[] = [];
  const folders: [string, RegExp][] = [
    ['', STALE_DOCUMENT_TEMP],
    [RUN_FILES.evalDir, STALE_DOCUMENT_TEMP],
    [RUN_FILES.checkpointsDir, STALE_CHECKPOINT_TEMP],
  ];
  for (const [folder, pattern] of folders) {
    for (const name of await names(path.join(runDir, folder))) {
      if (pattern.test(name)) found.push(staleFile(folder ? `${folder}/${name}` : name));
    }
  }
  return found;
}
