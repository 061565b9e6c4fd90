// A live, incrementally updated picture of one run directory for the runs tree, the dashboard and the trainer host:
// the manifest, recent events, every metrics row, and the trajectory index grouped as batches (Stage-2 updates,
// Stage-1 collection batches, eval splits) → task groups → trajectories. `refresh()` re-reads run.json only when it
// changed and reads only the bytes appended to the JSONL files since the previous call (JsonlTail); nothing ever
// reads a trajectory file. No `vscode` import.
import { stat } from 'node:fs/promises';
import { RunFormatError } from './errors';
import type { JsonlTail } from './jsonl';
import { RunReader } from './runReader';
import type { RunSchemas } from './schemas';
import type { MetricRow, Phase, RunEvent, RunManifest, Task, TrajectoryIndexRow } from '../shared/types';

export interface TaskGroup {
  key: string;
  /** GRPO group number within the update, when the trainer recorded one. */
  group?: number;
  task: Task;
  rows: TrajectoryIndexRow[];
  successes: number;
}

/** One trajectory file's worth: a Stage-2 update, a Stage-1 collection batch or an eval split. */
export interface TrajectoryBatch {
  key: string;
  phase: Phase;
  update: number | null;
  split?: string;
  label: string;
  groups: Map<string, TaskGroup>;
  trajectories: number;
  successes: number;
}

export interface RunIndexChange {
  manifest: boolean;
  events: RunEvent[];
  metrics: MetricRow[];
  /** metrics.jsonl was replaced or shrank: `metrics` is the whole file again. */
  metricsReset: boolean;
  trajectories: TrajectoryIndexRow[];
  trajectoriesReset: boolean;
  /** Bad records and files met in this refresh (located messages). */
  problems: string[];
}

const RECENT_EVENTS = 200;
const RECENT_PROBLEMS = 20;

function batchKey(row: Pick<TrajectoryIndexRow, 'phase' | 'update' | 'task' | 'file'>): string {
  if (row.phase === 'eval') return `eval:${row.task.split ?? row.file}`;
  return `${row.phase}:${row.update ?? row.file}`;
}

function batchLabel(row: TrajectoryIndexRow): string {
  if (row.phase === 'eval') return `Eval ${row.task.split ?? row.file}`;
  if (row.phase === 'collect') return `Collection batch ${row.update ?? '?'}`;
  return `Update ${row.update ?? '?'}`;
}

export function hasChanges(change: RunIndexChange): boolean {
  return (
    change.manifest ||
    change.metricsReset ||
    change.trajectoriesReset ||
    change.events.length > 0 ||
    change.metrics.length > 0 ||
    change.trajectories.length > 0 ||
    change.problems.length > 0
  );
}

export class RunIndex {
  readonly reader: RunReader;
  manifest: RunManifest | undefined;
  /** Why run.json cannot be read (the run is then shown as broken). */
  manifestError: Error | undefined;
  readonly metrics: MetricRow[] = [];
  readonly batches = new Map<string, TrajectoryBatch>();
  trajectoryCount = 0;
  eventCount = 0;
  /** The latest problems (bad lines, unreadable files), newest last. */
  readonly problems: string[] = [];
  private readonly events: RunEvent[] = [];
  private manifestStamp = '';
  private readonly eventsTail: JsonlTail<RunEvent>;
  private readonly metricsTail: JsonlTail<MetricRow>;
  private readonly indexTail: JsonlTail<TrajectoryIndexRow>;
  private refreshing: Promise<RunIndexChange> | undefined;
  private again = false;

  constructor(
    readonly runDir: string,
    schemas: RunSchemas,
  ) {
    this.reader = new RunReader(runDir, schemas);
    this.eventsTail = this.reader.tail('events');
    this.metricsTail = this.reader.tail('metrics');
    this.indexTail = this.reader.tail('trajectoryIndex');
  }

  /** Makes the next refresh read run.json even when its stamp looks unchanged. */
  reloadManifest(): void {
    this.manifestStamp = '';
  }

  /** The last `count` events, oldest first. */
  recentEvents(count = RECENT_EVENTS): RunEvent[] {
    return this.events.slice(-count);
  }

  get lastEvent(): RunEvent | undefined {
    return this.events[this.events.length - 1];
  }

  /**
   * Reads what changed since the previous call. Concurrent calls share one read; a call that arrives during a read
   * schedules one more read right after it, so no change is missed.
   */
  refresh(): Promise<RunIndexChange> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      const change = await this.readChanges();
      while (this.again) {
        this.again = false;
        mergeChanges(change, await this.readChanges());
      }
      return change;
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private noteProblem(change: RunIndexChange, message: string): void {
    change.problems.push(message);
    this.problems.push(message);
    if (this.problems.length > RECENT_PROBLEMS) this.problems.splice(0, this.problems.length - RECENT_PROBLEMS);
  }

  private async readChanges(): Promise<RunIndexChange> {
    const change: RunIndexChange = {
      manifest: false,
      events: [],
      metrics: [],
      metricsReset: false,
      trajectories: [],
      trajectoriesReset: false,
      problems: [],
    };
    await this.readManifestIfChanged(change);
    if (!this.manifest) return change;

    const events = await this.readTail(this.eventsTail, change);
    if (events.reset) {
      this.events.length = 0;
      this.eventCount = 0;
    }
    this.eventCount += events.records.length;
    this.events.push(...events.records);
    if (this.events.length > RECENT_EVENTS) this.events.splice(0, this.events.length - RECENT_EVENTS);
    change.events = events.records;

    const metrics = await this.readTail(this.metricsTail, change);
    if (metrics.reset) {
      this.metrics.length = 0;
      change.metricsReset = true;
    }
    for (const row of metrics.records) this.metrics.push(row);
    change.metrics = change.metricsReset ? [...this.metrics] : metrics.records;

    const index = await this.readTail(this.indexTail, change);
    if (index.reset) {
      this.batches.clear();
      this.trajectoryCount = 0;
      change.trajectoriesReset = true;
    }
    for (const row of index.records) this.addTrajectory(row);
    change.trajectories = index.records;
    return change;
  }

  private async readManifestIfChanged(change: RunIndexChange): Promise<void> {
    let stamp: string;
    try {
      const info = await stat(this.reader.paths.manifest);
      stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
    } catch (error) {
      stamp = `missing:${(error as NodeJS.ErrnoException).code ?? ''}`;
    }
    if (stamp === this.manifestStamp) return;
    this.manifestStamp = stamp;
    change.manifest = true;
    try {
      this.manifest = await this.reader.readManifest();
      this.manifestError = undefined;
    } catch (error) {
      // A replaced run.json is renamed into place, so a half-written one is never seen; any error here is real.
      this.manifestError = error as Error;
      this.noteProblem(change, (error as Error).message);
      if (!(error instanceof RunFormatError)) this.manifestStamp = ''; // an I/O hiccup: try again next time
    }
  }

  private async readTail<T>(tail: JsonlTail<T>, change: RunIndexChange): Promise<{ records: T[]; reset: boolean }> {
    try {
      const chunk = await tail.read();
      for (const error of chunk.errors) this.noteProblem(change, error.message);
      return { records: chunk.records.map((record) => record.value), reset: chunk.reset };
    } catch (error) {
      this.noteProblem(change, `${tail.source.file}: ${(error as Error).message}`);
      return { records: [], reset: false };
    }
  }

  private addTrajectory(row: TrajectoryIndexRow): void {
    const key = batchKey(row);
    let batch = this.batches.get(key);
    if (!batch) {
      batch = {
        key,
        phase: row.phase,
        update: row.update,
        label: batchLabel(row),
        groups: new Map(),
        trajectories: 0,
        successes: 0,
        ...(row.phase === 'eval' && row.task.split ? { split: row.task.split } : {}),
      };
      this.batches.set(key, batch);
    }
    const groupKey = `${key}/${row.group ?? row.task.id}`;
    let group = batch.groups.get(groupKey);
    if (!group) {
      group = { key: groupKey, task: row.task, rows: [], successes: 0, ...(row.group !== undefined ? { group: row.group } : {}) };
      batch.groups.set(groupKey, group);
    }
    group.rows.push(row);
    batch.trajectories += 1;
    this.trajectoryCount += 1;
    if (row.success) {
      group.successes += 1;
      batch.successes += 1;
    }
  }

  /** Finds a trajectory's index row by id (linear in the batches' rows; for commands, not for rendering). */
  findRow(id: string): TrajectoryIndexRow | undefined {
    for (const batch of this.batches.values()) {
      for (const group of batch.groups.values()) {
        const row = group.rows.find((r) => r.id === id);
        if (row) return row;
      }
    }
    return undefined;
  }
}

/** Folds a later change into an earlier one (in place). */
export function mergeChanges(into: RunIndexChange, next: RunIndexChange): void {
  into.manifest ||= next.manifest;
  into.events.push(...next.events);
  if (next.metricsReset) {
    into.metrics = next.metrics;
    into.metricsReset = true;
  } else into.metrics.push(...next.metrics);
  if (next.trajectoriesReset) {
    into.trajectories = next.trajectories;
    into.trajectoriesReset = true;
  } else into.trajectories.push(...next.trajectories);
  into.problems.push(...next.problems);
}
