// The what-if results of one trajectory as a file next to the run (whatif/<trajectory id>.json,
// schemas/whatif.schema.json): written atomically, reopened with the viewer, refused with a located error when bad.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../runs/core/atomicWrite';
import type { RunSchemas } from '../../runs/core/schemas';
import type { RescoreResult } from './rescore';
import type { WhatIfFile, WhatIfResultRecord } from '../shared/whatIfRecord';

export type { WhatIfFile, WhatIfResultRecord } from '../shared/whatIfRecord';

/** float32 values with the digits that tell them apart (7 significant), so the file reads and diffs well. */
function float32List(values: ArrayLike<number>): number[] {
  return Array.from(values, (value) => Number(value.toPrecision(7)));
}

export function resultRecord(result: RescoreResult, exportDir: string, runDir: string): WhatIfResultRecord {
  const relative = path.relative(runDir, exportDir);
  return {
    skill: result.skill,
    export: relative.startsWith('..') || path.isAbsolute(relative) ? exportDir : relative.split(path.sep).join('/'),
    path: 'onnxruntime-node',
    provider: result.provider,
    seconds: Number((result.millis / 1000).toFixed(3)),
    beta: result.beta,
    temperature: result.temperature,
    steps: result.steps.map((step) => ({
      t: step.t,
      logp: float32List(step.studentLogp),
      teacher_logp: float32List(step.teacherLogp),
      delta: float32List(step.delta),
      gate: float32List(step.gate),
    })),
  };
}

const SAFE_NAME = /[^A-Za-z0-9._-]/g;

export function whatIfPath(runDir: string, trajectoryId: string): string {
  return path.join(runDir, 'whatif', `${trajectoryId.replace(SAFE_NAME, '_')}.json`);
}

/** The saved results of a trajectory, or undefined when none were saved; throws a located error for a bad file. */
export function readWhatIf(runDir: string, trajectoryId: string, schemas: RunSchemas): WhatIfFile | undefined {
  const file = whatIfPath(runDir, trajectoryId);
  if (!existsSync(file)) return undefined;
  const where = { file: path.relative(runDir, file), path: file };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not readable JSON (${(error as Error).message})`);
  }
  const saved = schemas.validate('whatif', value, where);
  if (saved.trajectory !== trajectoryId) throw new Error(`${file}: holds the results of trajectory ${saved.trajectory}, not ${trajectoryId}`);
  return saved;
}

/** Writes the file (indent 1: one number per line) atomically; returns its path. */
export async function writeWhatIf(runDir: string, content: WhatIfFile): Promise<string> {
  const file = whatIfPath(runDir, content.trajectory);
  mkdirSync(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(content, null, 1)}\n`);
  return file;
}
