// Before/after of a train run: its end-of-run evaluation of each split beside the base evaluation run.json's
// `baseline_evals` links it to (docs/run-format.md §4), with the change in success and its 95 % interval, paired task
// by task when both played the same tasks (src/runs/shared/pairedChange.ts). No `vscode`.
import path from 'node:path';
import type { EvalReport, RunManifest } from '../shared/types';
import { successChange, type SuccessChange } from '../shared/pairedChange';
import { RunReader } from './runReader';
import type { RunSchemas } from './schemas';

export interface BeforeAfter {
  split: string;
  /** The base evaluation's run directory (absolute). */
  baseRun: string;
  before?: EvalReport;
  /** This run's eval/<split>.json; absent until its final evaluation is written. */
  after?: EvalReport;
  change?: SuccessChange;
  /** Why the base evaluation could not be read (missing directory, bad report): shown, never an error of the run. */
  problem?: string;
}

/** The base-evaluation directories a manifest links to, split → absolute directory, in split order. */
export function baselineDirs(runDir: string, manifest: RunManifest | undefined): [string, string][] {
  const links = manifest?.baseline_evals;
  if (!links || typeof links !== 'object') return [];
  return Object.entries(links)
    .filter((pair): pair is [string, string] => typeof pair[1] === 'string' && pair[1] !== '')
    .map(([split, rel]): [string, string] => [split, path.resolve(runDir, rel)])
    .sort((a, b) => a[0].localeCompare(b[0]));
}

/** Reads the before/after of every linked split (empty when the run links none). */
export async function readBeforeAfter(runDir: string, manifest: RunManifest | undefined, schemas: RunSchemas): Promise<BeforeAfter[]> {
  const own = new RunReader(runDir, schemas);
  return Promise.all(
    baselineDirs(runDir, manifest).map(async ([split, baseRun]): Promise<BeforeAfter> => {
      const result: BeforeAfter = { split, baseRun };
      try {
        result.before = await new RunReader(baseRun, schemas).readEval(split);
      } catch (error) {
        result.problem = `base evaluation ${path.basename(baseRun)}: ${error instanceof Error ? error.message : String(error)}`;
      }
      try {
        result.after = await own.readEval(split);
      } catch {
        // no final evaluation yet (running, stopped early): the before stands alone
      }
      if (result.before && result.after) result.change = successChange(result.after, result.before);
      return result;
    }),
  );
}
