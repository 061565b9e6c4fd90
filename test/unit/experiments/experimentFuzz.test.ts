// Seeded fuzz of experiment-file validation on both sides: a few hundred mutants of the committed experiments
// (test/unit/support/experimentMutations.ts) — no crash in the editor's validator, no crash or hang of the trainer's
// `validate`, and the same verdict (valid or not) and the same first problem from both. bench/robustness/experiment_fuzz.mjs runs
// the same generator at scale, with per-file time and memory limits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ExperimentSchema, type ExperimentProblem, type JsonSchema } from '../../../src/experiments/core/experimentSchema';
import { mutants } from '../support/experimentMutations';
import { repoRoot, trainerPython } from '../support/repoPaths';

const SEED = 20261201;
const COUNT = 300;

describe('experiment fuzz (editor and trainer)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'seed-experiment-fuzz-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const schema = new ExperimentSchema(JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as JsonSchema);
  const files = mutants(repoRoot, SEED, COUNT);

  test(`${COUNT} mutants: no crash, no hang, the same verdict and first problem on both sides`, { timeout: 600_000 }, () => {
    const editor = new Map<string, ExperimentProblem[]>();
    const crashes: string[] = [];
    for (const file of files) {
      writeFileSync(path.join(dir, file.name), file.bytes);
      try {
        editor.set(file.name, schema.validateBytes(file.bytes));
      } catch (error) {
        crashes.push(`${file.name} (${file.recipe.join(' + ')}): ${String(error)}`);
      }
    }
    assert.deepEqual(crashes, [], 'the editor validator threw');

    const run = spawnSync(trainerPython(), ['-m', 'seed_trainer', 'validate', '--json', ...files.map((f) => path.join(dir, f.name))], {
      encoding: 'utf8',
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, OMP_NUM_THREADS: '1' },
    });
    assert.equal(run.error, undefined, `the trainer's validate did not finish: ${String(run.error)}`);
    assert.ok(run.status === 0 || run.status === 2, `validate exited ${run.status}: ${run.stderr.slice(-2000)}`);
    const trainer = new Map(
      run.stdout.trim().split('\n').map((line) => {
        const row = JSON.parse(line) as { file: string; problems: ExperimentProblem[] };
        return [path.basename(row.file), row.problems] as const;
      }),
    );

    const disagreements: string[] = [];
    let rejected = 0;
    for (const file of files) {
      const mine = editor.get(file.name) ?? [];
      const theirs = trainer.get(file.name);
      assert.ok(theirs, `no verdict from the trainer for ${file.name}`);
      if (mine.length > 0) rejected += 1;
      const describe = (p: ExperimentProblem | undefined): string => (p ? `${p.range.start.line + 1}:${p.range.start.character + 1} ${p.message}` : 'valid');
      const same =
        mine.length === 0
          ? theirs.length === 0
          : theirs.length > 0 && (mine[0]?.source === 'yaml' && theirs[0]?.source === 'yaml' ? true : describe(mine[0]) === describe(theirs[0]));
      if (!same) disagreements.push(`${file.name} (${file.recipe.join(' + ')}): editor ${describe(mine[0])} | trainer ${describe(theirs[0])}`);
    }
    assert.deepEqual(disagreements, []);
    // The generator must exercise both verdicts, or the comparison says little.
    assert.ok(rejected > COUNT / 2 && rejected < COUNT, `rejected ${rejected} of ${COUNT}`);
  });
});
