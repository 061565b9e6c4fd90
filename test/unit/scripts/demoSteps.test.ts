// npm run demo's trainer commands (scripts/lib/demoSteps.mjs) chain: each step reads the folder an earlier step wrote,
// and the train run is linked to both base evaluations, so the extension can show the demo's before/after.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import YAML from 'yaml';
import { repoRoot } from '../support/repoPaths';

interface Step { heading?: string; label: string; args: string[] }
interface Module {
  SPLITS: string[];
  STAGE2: string;
  demoRuns: (prefix: string) => Record<string, string>;
  demoSteps: (runs: Record<string, string>) => Step[];
}

async function load(): Promise<Module> {
  return (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'lib', 'demoSteps.mjs')).href)) as Module;
}

/** The values of every `--flag` in a command's arguments. */
function flag(args: string[], name: string): string[] {
  return args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1] as string] : []));
}

test('npm run demo: base evaluations, collect, SFT on the collection, then train linked to both evaluations', async () => {
  const { SPLITS, demoRuns, demoSteps } = await load();
  const runs = demoRuns('runs/household-demo');
  const steps = demoSteps(runs);
  assert.deepEqual(steps.map((s) => s.args[0]), ['eval', 'eval', 'collect', 'sft', 'train']);
  const evals = steps.filter((s) => s.args[0] === 'eval');
  assert.deepEqual(evals.map((s) => flag(s.args, '--split')[0]), SPLITS);
  const evalDirs = evals.map((s) => flag(s.args, '--run-dir')[0]);
  const [collect, sft, train] = steps.slice(2) as [Step, Step, Step];
  assert.deepEqual(flag(sft.args, '--data'), flag(collect.args, '--run-dir'));
  assert.deepEqual(flag(train.args, '--baseline-eval'), evalDirs);
  // Every run folder is distinct, so no step overwrites another's output.
  const dirs = steps.map((s) => flag(s.args, '--run-dir')[0]);
  assert.equal(new Set(dirs).size, dirs.length);
  assert.deepEqual(new Set(dirs), new Set(Object.values(runs)));
});

test('npm run demo: the Stage-2 experiment trains the model the SFT step writes', async () => {
  const { STAGE2, demoRuns } = await load();
  const runs = demoRuns('runs/household-demo');
  const experiment = YAML.parse(readFileSync(path.join(repoRoot, STAGE2), 'utf8')) as { model: { path: string } };
  // model.path is relative to the experiment file's folder; the run folders to the repository root.
  const modelPath = path.resolve(repoRoot, path.dirname(STAGE2), experiment.model.path);
  assert.equal(modelPath, path.resolve(repoRoot, runs.sft ?? '', 'model'));
});
