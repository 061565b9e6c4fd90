// The demo summary's SEED-against-GRPO lines (scripts/lib/againstGrpo.mjs), from learning.json-shaped reports.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { repoRoot } from '../support/repoPaths';

type Lines = (report: unknown, file?: string, weights?: string) => string[];
interface Module { againstGrpoLines: Lines; weightsFingerprint: (dir: string) => string }

async function load(): Promise<Module> {
  return (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'lib', 'againstGrpo.mjs')).href)) as Module;
}

async function againstGrpoLines(): Promise<Lines> {
  return (await load()).againstGrpoLines;
}

function report(seen: object, unseen: object, seedMean = [0.5, 0.3], grpoMean = [0.3, 0.3]) {
  const split = (mean: number, against?: object) => ({ final_across_seeds: { mean }, ...(against ? { against_grpo: against } : {}) });
  return {
    settings: { updates: 100 },
    summary: {
      grpo: { valid_seen: split(grpoMean[0]!), valid_unseen: split(grpoMean[1]!) },
      seed: { valid_seen: split(seedMean[0]!, seen), valid_unseen: split(seedMean[1]!, unseen) },
    },
  };
}

const pooledOnly = (d: number, lo: number, hi: number) => ({
  across_seeds: { d, lo: null, hi: null, seeds: [1, 1] },
  pooled_episodes: { d, lo, hi, episodes: [120, 120] },
});

test('with one seed a side the pooled interval is used and named as such; a lead beyond it is not called resolved', async () => {
  const lines = (await againstGrpoLines())(report(pooledOnly(0.2, 0.08, 0.32), pooledOnly(0, -0.12, 0.12)));
  assert.match(lines[0]!, /100 updates per run/);
  assert.equal(lines[1], '  valid_seen: SEED 50 %, GRPO 30 %: +20 points, 95 % interval [+8, +32] over the pooled episodes '
    + '(fewer than two seeds a side: seed-to-seed variation not included) — SEED ahead over these episodes, but one '
    + 'training seed a side cannot tell that from seed-to-seed variation: not resolved.');
  assert.match(lines[2]!, /valid_unseen: SEED 30 %, GRPO 30 %: \+0 points, 95 % interval \[-12, \+12\] .* — not resolved\.$/);
  assert.match(lines[3]!, /does not show SEED ahead of GRPO: the change above is against the base policy/);
});

test('across seeds wins over pooled when both sides have two seeds; nothing resolved is said plainly', async () => {
  const seen = { across_seeds: { d: 0.05, lo: -0.1, hi: 0.2, seeds: [5, 5] }, pooled_episodes: { d: 0.05, lo: 0.01, hi: 0.09 } };
  const unseen = { across_seeds: { d: -0.2, lo: -0.3, hi: -0.1, seeds: [5, 5] }, pooled_episodes: { d: -0.2, lo: -0.25, hi: -0.15 } };
  const lines = (await againstGrpoLines())(report(seen, unseen, [0.35, 0.1], [0.3, 0.3]));
  assert.match(lines[1]!, /\+5 points, 95 % interval \[-10, \+20\] across seeds \(5 SEED, 5 GRPO\) — not resolved\.$/);
  assert.match(lines[2]!, /-20 points, 95 % interval \[-30, -10\] across seeds .* — SEED behind, beyond its interval\.$/);
  assert.match(lines[3]!, /does not show SEED ahead of GRPO: the change above is against the base policy/);
});

test('paired by seed wins where two or more seeds have both; its seed count is named', async () => {
  const seen = {
    across_seeds: { d: 0.04, lo: -0.06, hi: 0.13, seeds: [5, 4] },
    paired_seeds: { d: 0.03, lo: -0.07, hi: 0.13, seeds: [0, 1, 2, 3] },
    pooled_episodes: { d: 0.04, lo: -0.02, hi: 0.09 },
  };
  const unseen = { ...seen, paired_seeds: { d: 0.1, lo: null, hi: null, seeds: [0] } };  // one pair: not used
  const lines = (await againstGrpoLines())(report(seen, unseen, [0.3, 0.3], [0.26, 0.26]));
  assert.match(lines[1]!, /\+3 points, 95 % interval \[-7, \+13\] paired over the 4 seeds both completed \(the same evaluation tasks per seed\) — not resolved\.$/);
  assert.match(lines[2]!, /\+4 points, 95 % interval \[-6, \+13\] across seeds \(5 SEED, 4 GRPO\) — not resolved\.$/);
});

test('a missing, empty or malformed report gives one line and no exception', async () => {
  const lines = await againstGrpoLines();
  for (const bad of [undefined, null, {}, { summary: { seed: { valid_seen: { against_grpo: { pooled_episodes: { d: 'x' } } } } } }]) {
    assert.deepEqual(lines(bad, 'learning.json'), ['SEED against GRPO: learning.json holds no completed SEED and GRPO runs to compare.']);
  }
});

test('a report made from other starting weights says so; the fingerprint is the one bench/learning/learning.py records', async () => {
  const { againstGrpoLines: lines, weightsFingerprint } = await load();
  const made = { ...report(pooledOnly(0.2, 0.08, 0.32), pooledOnly(0, -0.12, 0.12)) };
  made.settings = { updates: 100, weights: 'aaaaaaaaaaaaaaaa' } as typeof made.settings;
  assert.match(lines(made, 'learning.json', 'aaaaaaaaaaaaaaaa')[0]!, /^SEED against GRPO on this default .*100 updates per run/);
  const other = lines(made, 'learning.json', 'bbbbbbbbbbbbbbbb')[0]!;
  assert.match(other, /from an earlier tiny policy .* made from weights aaaaaaaaaaaaaaaa; this demo starts from bbbbbbbbbbbbbbbb, whose benchmark has not been run yet/);
  // the committed TextWorld report was made from the committed TextWorld policy (Python's fingerprint, same bytes)
  const textworld = JSON.parse(readFileSync(path.join(repoRoot, 'bench', 'results', 'learning-textworld.json'), 'utf8'));
  const asset = path.join(repoRoot, 'trainer', 'seed_trainer', 'assets', 'textworld-tiny');
  assert.equal(weightsFingerprint(asset), textworld.settings.weights);
});
