// Names and places inside a run directory (docs/run-format.md). No I/O.
import path from 'node:path';

/** The run-directory format version these readers understand (run.json `format_version`). */
export const FORMAT_VERSION = 1;

export const RUN_FILES = {
  manifest: 'run.json',
  events: 'events.jsonl',
  metrics: 'metrics.jsonl',
  skills: 'skills.jsonl',
  control: 'control',
  tags: 'tags.json',
  lock: 'lock',
  trajectoriesDir: 'trajectories',
  trajectoryIndex: 'trajectories/index.jsonl',
  evalDir: 'eval',
  checkpointsDir: 'checkpoints',
} as const;

const CHECKPOINT_NAME = /^step-(\d{6,})$/;
const SPLIT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export interface RunPaths {
  root: string;
  manifest: string;
  events: string;
  metrics: string;
  skills: string;
  control: string;
  tags: string;
  lock: string;
  trajectories: string;
  trajectoryIndex: string;
  evalDir: string;
  checkpoints: string;
}

export function runPaths(runDir: string): RunPaths {
  const at = (relative: string) => path.join(runDir, ...relative.split('/'));
  return {
    root: runDir,
    manifest: at(RUN_FILES.manifest),
    events: at(RUN_FILES.events),
    metrics: at(RUN_FILES.metrics),
    skills: at(RUN_FILES.skills),
    control: at(RUN_FILES.control),
    tags: at(RUN_FILES.tags),
    lock: at(RUN_FILES.lock),
    trajectories: at(RUN_FILES.trajectoriesDir),
    trajectoryIndex: at(RUN_FILES.trajectoryIndex),
    evalDir: at(RUN_FILES.evalDir),
    checkpoints: at(RUN_FILES.checkpointsDir),
  };
}

/** `trajectories/<name>` relative to the run directory, as errors name it. */
export function trajectoryRelative(name: string): string {
  return `${RUN_FILES.trajectoriesDir}/${name}`;
}

export function evalFile(runDir: string, split: string): string {
  if (!SPLIT_NAME.test(split)) throw new Error(`eval split name ${JSON.stringify(split)} is not allowed`);
  return path.join(runDir, RUN_FILES.evalDir, `${split}.json`);
}

/** The step of a checkpoint directory name (`step-000050` → 50), or undefined for anything else (temp dirs). */
export function checkpointStep(name: string): number | undefined {
  const match = CHECKPOINT_NAME.exec(name);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
