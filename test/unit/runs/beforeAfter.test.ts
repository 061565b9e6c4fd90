// Before/after (issue 41 item 3): run.json `baseline_evals` read by the TS runs layer, the paired change per split,
// the base evaluation as update 0 of the evaluation chart, and the words the tree and the dashboard show.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { baselineDirs, readBeforeAfter } from '../../../src/runs/core/beforeAfter';
import { RunSchemas } from '../../../src/runs/core/schemas';
import { changeTexts, clampNote, intervalClamped, intervalPoints, shortChange, successChange } from '../../../src/runs/shared/pairedChange';
import { changeText, changeTitle } from '../../../src/runsTable/shared/runsTable';
import { baselineRows } from '../../../src/dashboard/shared/evaluation';
import type { EvalReport, RunManifest } from '../../../src/runs/shared/types';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(path.join(repoRoot, 'schemas'));
const scratch: string[] = [];
after(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

function report(split: string, outcomes: string): EvalReport {
  const episodes = [...outcomes].map((c, i) => ({ task: { id: `t${i}`, type: i % 2 ? 'heat' : 'cool' }, success: c === '1', reward: Number(c), length: 3 }));
  const rate = (list: typeof episodes): number => list.filter((e) => e.success).length / list.length;
  return {
    split,
    step: 30,
    time: '2026-03-01T12:00:21.000Z',
    overall: { success: rate(episodes), n: episodes.length },
    by_task_type: {
      cool: { success: rate(episodes.filter((e) => e.task.type === 'cool')), n: episodes.filter((e) => e.task.type === 'cool').length },
      heat: { success: rate(episodes.filter((e) => e.task.type === 'heat')), n: episodes.filter((e) => e.task.type === 'heat').length },
    },
    episodes,
  };
}

async function runPair(): Promise<{ train: string; base: string; manifest: RunManifest }> {
  const root = await mkdtemp(path.join(tmpdir(), 'seed-before-after-'));
  scratch.push(root);
  const train = path.join(root, 'train');
  const base = path.join(root, 'base-valid_seen');
  await cp(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), train, { recursive: true });
  await cp(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), base, { recursive: true });
  const baseManifest = JSON.parse(await readFile(path.join(base, 'run.json'), 'utf8')) as RunManifest;
  await writeFile(path.join(base, 'run.json'), JSON.stringify({ ...baseManifest, id: 'base-valid_seen', stage: 'eval' }));
  await writeFile(path.join(base, 'eval', 'valid_seen.json'), JSON.stringify({ ...report('valid_seen', '0101000011'), step: null }));
  await writeFile(path.join(train, 'eval', 'valid_seen.json'), JSON.stringify(report('valid_seen', '1101010011')));
  const manifest = { ...(JSON.parse(await readFile(path.join(train, 'run.json'), 'utf8')) as RunManifest), baseline_evals: { valid_seen: '../base-valid_seen', valid_unseen: '../gone' } };
  schemas.validate('run', manifest, { file: 'run.json', path: path.join(train, 'run.json') });
  await writeFile(path.join(train, 'run.json'), JSON.stringify(manifest));
  return { train, base, manifest };
}

test('a train run linked to its base evaluation reads the before/after, paired task by task', async () => {
  const { train, base, manifest } = await runPair();
  assert.deepEqual(baselineDirs(train, manifest), [['valid_seen', base], ['valid_unseen', path.join(path.dirname(train), 'gone')]]);
  const [seen, unseen] = await readBeforeAfter(train, manifest, schemas);
  assert.equal(seen?.split, 'valid_seen');
  assert.equal(seen?.before?.overall.success, 0.4);
  assert.equal(seen?.after?.overall.success, 0.6);
  assert.ok(seen?.change?.paired);
  assert.ok(Math.abs((seen?.change?.change ?? 0) - 0.2) < 1e-12);
  // a missing base evaluation is a problem shown beside the split, never an exception
  assert.equal(unseen?.split, 'valid_unseen');
  assert.equal(unseen?.before, undefined);
  assert.match(unseen?.problem ?? '', /base evaluation gone/);
  assert.deepEqual(await readBeforeAfter(train, { ...manifest, baseline_evals: null }, schemas), []);
});

test('the base evaluation is update 0 of the evaluation chart, per split and task type', () => {
  const rows = baselineRows([{ split: 'valid_seen', before: report('valid_seen', '0101000011') }, { split: 'valid_unseen' }], '2026-03-01T12:00:00Z');
  assert.deepEqual(rows, [{ step: 0, time: '2026-03-01T12:00:00Z', kind: 'eval', split: 'valid_seen', 'success/overall': 0.4, 'success/cool': 0.2, 'success/heat': 0.6 }]);
});

test('the words of a before/after: label, interval and verdict', () => {
  const change = successChange(report('s', '1101010011'), report('s', '0101000011'));
  const texts = changeTexts('valid_seen', change && { success: 0.4, n: 10 }, { success: 0.6, n: 10 }, change);
  assert.equal(texts.label, 'valid_seen 40% → 60%');
  assert.match(texts.description, /^\+20 \[-?\d+, \+\d+\] noise$/);
  assert.match(texts.tooltip, /paired over the same 10 tasks — inside the evaluation's noise/);
  assert.equal(changeTexts('valid_seen', { success: 0.4, n: 10 }, undefined, undefined).description, 'no final evaluation yet');
});

test('an interval past ±100 points is printed cut there, and the tooltip says so (issue 54: [-130, +130] was printed)', () => {
  // By hand: three tasks, 000 → 110: differences 1, 1, 0; mean 2/3, sd √(1/3) = 0.5774, t(2) = 4.303,
  // half = 4.303 · 0.5774 / √3 = 1.4343: [−0.768, +2.101], i.e. −77 and +210 points.
  const change = successChange(report('s', '110'), report('s', '000'));
  assert.ok(Math.abs(change.low - (2 / 3 - 4.303 / 3)) < 1e-9 && Math.abs(change.high - (2 / 3 + 4.303 / 3)) < 1e-9, `${change.low}, ${change.high}`);
  assert.equal(intervalClamped(change.low, change.high), true);
  const texts = changeTexts('valid_seen', { success: 0, n: 3 }, { success: 2 / 3, n: 3 }, change);
  assert.equal(texts.description, '+67 [-77, +100] noise');
  assert.match(texts.tooltip, /95 % interval \[-77, \+100\] \(cut at ±100 points, which a change in success cannot leave; the t-interval over so few tasks is \[-77, \+210\]\) paired/);
  assert.equal(shortChange(change), '+67 pts [-77, +100]');
  assert.equal(changeText(change), '+67 [-77, +100]');
  assert.match(changeTitle(change), /95 % interval in points \(cut at ±100 points/);
  // Two tasks, one gained and one lost: t(1) = 12.706 gives ±1271 points, printed [-100, +100].
  const wide = successChange(report('s', '10'), report('s', '01'));
  assert.equal(intervalPoints(wide.low, wide.high), '[-100, +100]');
  // Inside the bounds: as computed, no note.
  const usual = successChange(report('s', '1101010011'), report('s', '0101000011'));
  assert.equal(intervalClamped(usual.low, usual.high), false);
  assert.equal(clampNote(usual.low, usual.high), '');
  assert.doesNotMatch(changeTexts('valid_seen', { success: 0.4, n: 10 }, { success: 0.6, n: 10 }, usual).tooltip, /cut at/);
});
