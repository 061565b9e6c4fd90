// Reading trajectories for the viewer, the diff, the review and the text documents, through the one runs model
// (its schemas, its discovery rules, its run titles): a trajectory by run directory and id, the name of a run, and
// the quick picks that choose a run and a trajectory when a command is run from the palette.
import path from 'node:path';
import * as vscode from 'vscode';
import { RunReader, type RunSchemas, type Trajectory, type TrajectoryIndexRow } from './core';
import { pickRun as pickRunOf, type RunsModel } from './runsModel';
import { opdEstimatorOf, type OpdEstimator } from './shared/opdEstimator';

/** A trajectory addressed by its run directory and its id (the arguments of the viewer's commands). */
export interface TrajectoryRef {
  runDir: string;
  id: string;
}

export interface LoadedTrajectory extends TrajectoryRef {
  /** The run's id from run.json, else the directory name. */
  run: string;
  trajectory: Trajectory;
  /** The run's OPD estimator (run.json config), when run.json can be read and names one this reader knows. */
  estimator?: OpdEstimator;
}

function asPath(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value;
  if (value instanceof vscode.Uri) return value.fsPath;
  if (value && typeof value === 'object' && typeof (value as { fsPath?: unknown }).fsPath === 'string') return (value as { fsPath: string }).fsPath;
  return undefined;
}

/** `{runDir, id}` (runDir a path or a Uri; `trajectoryId` is accepted for `id`), or undefined. */
export function toTrajectoryRef(value: unknown): TrajectoryRef | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as { runDir?: unknown; id?: unknown; trajectoryId?: unknown };
  const runDir = asPath(record.runDir);
  const id = typeof record.id === 'string' ? record.id : typeof record.trajectoryId === 'string' ? record.trajectoryId : undefined;
  return runDir && id ? { runDir, id } : undefined;
}

/** The command arguments `(runDir, id)` or `({runDir, id})`: the ref, or whatever part was given. */
export function refFromArgs(args: readonly unknown[]): { runDir?: string; id?: string } {
  const ref = toTrajectoryRef(args[0]);
  if (ref) return ref;
  const first = args[0];
  const runDir = asPath(first) ?? (first && typeof first === 'object' ? asPath((first as { runDir?: unknown }).runDir) : undefined);
  const id = typeof args[1] === 'string' ? args[1] : undefined;
  return { ...(runDir ? { runDir } : {}), ...(id ? { id } : {}) };
}

export class RunAccess {
  constructor(readonly runs: RunsModel) {}

  schemas(): RunSchemas {
    return this.runs.schemas;
  }

  /** The run directories the runs model lists (the discovery rules applied), sorted. */
  async runDirs(): Promise<string[]> {
    await this.runs.ready;
    return this.runs.runs().map((entry) => entry.dir).sort();
  }

  reader(runDir: string): RunReader {
    return new RunReader(runDir, this.schemas());
  }

  /** The run's id from run.json, or the directory name when run.json cannot be read. */
  async runName(runDir: string): Promise<string> {
    return (await this.runFacts(runDir)).run;
  }

  /** The run's name (as runName) and its OPD estimator, from one read of run.json. */
  private async runFacts(runDir: string): Promise<{ run: string; estimator?: OpdEstimator }> {
    try {
      const manifest = await this.reader(runDir).readManifest();
      const estimator = opdEstimatorOf(manifest.config);
      return { run: manifest.id, ...(estimator ? { estimator } : {}) };
    } catch {
      return { run: path.basename(runDir) };
    }
  }

  async load(ref: TrajectoryRef): Promise<LoadedTrajectory> {
    const trajectory = await this.reader(ref.runDir).findTrajectory(ref.id);
    return { ...ref, ...(await this.runFacts(ref.runDir)), trajectory };
  }

  async index(runDir: string): Promise<TrajectoryIndexRow[]> {
    return (await this.reader(runDir).readTrajectoryIndex()).records.map((r) => r.value);
  }
}

export function pickRun(access: RunAccess, title: string, preferred?: string): Promise<string | undefined> {
  return pickRunOf(access.runs, { title, ...(preferred ? { preferred } : {}), empty: 'no run directory (a folder with run.json) in this workspace.', pickSingle: true });
}

interface TrajectoryPick extends vscode.QuickPickItem {
  id?: string;
}

function describeRow(row: TrajectoryIndexRow): TrajectoryPick {
  const where = [row.phase, row.update !== null ? `update ${row.update}` : undefined, row.group !== undefined ? `group ${row.group}` : undefined, row.sample !== undefined ? `sample ${row.sample}` : undefined];
  return {
    label: `${row.success ? '$(pass)' : '$(error)'} ${row.id}`,
    description: `${row.task.id} · ${row.task.type} · reward ${row.reward} · ${row.length} steps`,
    detail: `${where.filter(Boolean).join(' · ')} · ${row.tokens} tokens${row.teacher ? ' · gate heatmap' : ''}${row.skill ? ` · skill ${row.skill.source}${row.skill.valid ? '' : ' (invalid)'}` : ''}`,
    id: row.id,
  };
}

/** Picks a trajectory of a run; with `sameTaskAs`, that task's trajectories come first under their own heading. */
export async function pickTrajectory(
  access: RunAccess,
  runDir: string,
  title: string,
  sameTaskAs?: { taskId: string; exclude?: string },
): Promise<string | undefined> {
  let rows: TrajectoryIndexRow[];
  try {
    rows = await access.index(runDir);
  } catch (error) {
    void vscode.window.showErrorMessage(`SEED: ${(error as Error).message}`);
    return undefined;
  }
  rows = rows.filter((row) => row.id !== sameTaskAs?.exclude);
  if (rows.length === 0) {
    void vscode.window.showWarningMessage(`SEED: run ${path.basename(runDir)} has no trajectories yet.`);
    return undefined;
  }
  let items: TrajectoryPick[];
  if (sameTaskAs) {
    const same = rows.filter((row) => row.task.id === sameTaskAs.taskId);
    const other = rows.filter((row) => row.task.id !== sameTaskAs.taskId);
    items = [
      { label: `same task: ${sameTaskAs.taskId}`, kind: vscode.QuickPickItemKind.Separator },
      ...same.map(describeRow),
      { label: 'other tasks', kind: vscode.QuickPickItemKind.Separator },
      ...other.map(describeRow),
    ];
  } else {
    items = rows.map(describeRow);
  }
  const choice = await vscode.window.showQuickPick(items, { title, placeHolder: 'Trajectory id, task, outcome…', matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true });
  return choice?.id;
}

/** A full ref from partial command arguments, asking for what is missing. */
export async function completeRef(access: RunAccess, partial: { runDir?: string | undefined; id?: string | undefined }, title: string): Promise<TrajectoryRef | undefined> {
  const runDir = partial.runDir ?? (await pickRun(access, title));
  if (!runDir) return undefined;
  const id = partial.id ?? (await pickTrajectory(access, runDir, title));
  return id ? { runDir, id } : undefined;
}
