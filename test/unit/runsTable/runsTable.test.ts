// The runs table and the evaluation sample table over the learning benchmark's 19 runs (test/ui/benchmarkRuns.ts):
// the generated runs are valid run directories; rows carry config, final metrics, evaluations with Wilson intervals
// and tags; columns, sorting, the filter language, a baseline per split with the paired change against it (issue 54
// item 4) and the CSV; the sample table's summary per task type, sorting and filter; tags.json round trip.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { checkRun } from '../../../src/runs/core/checkRun';
import { RunIndex } from '../../../src/runs/core/runIndex';
import { RunReader } from '../../../src/runs/core/runReader';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core/schemas';
import { normalizeTags, writeTags } from '../../../src/runs/core/tags';
import { runsTableRow } from '../../../src/runsTable/core/runsTableRows';
import { RunsTableStore } from '../../../src/runsTable/core/runsTableStore';
import {
  availableColumns,
  baselinesOf,
  cellText,
  changeClass,
  changeText,
  changeTitle,
  defaultColumnIds,
  deltaCell,
  filterRows,
  pinBaseline,
  runsCsv,
  sortRows,
  unpinBaseline,
  type RunsTableRow,
} from '../../../src/runsTable/shared/runsTable';
import { changeTexts, successChange, type EvalSample } from '../../../src/runs/shared/pairedChange';
import type { EvalReport } from '../../../src/runs/shared/types';
import { sampleRows } from '../../../src/evalSamples/core/sampleRows';
import { evaluationsOf, filterSamples, sortSamples, summarizeSamples } from '../../../src/evalSamples/shared/evalSamples';
import { wilsonInterval } from '../../../src/dashboard/shared/evaluation';
import { writeBenchmarkRuns, type WrittenRun } from '../../ui/benchmarkRuns';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
const workspace = mkdtempSync(path.join(os.tmpdir(), 'seed-runs-table-'));
after(() => rmSync(workspace, { recursive: true, force: true }));
const written: WrittenRun[] = writeBenchmarkRuns(workspace, repoRoot);

async function entryOf(dir: string) {
  const index = new RunIndex(dir, schemas);
  await index.refresh();
  return { dir, index, state: 'completed' as const };
}

async function allRows(): Promise<RunsTableRow[]> {
  return Promise.all(written.map(async (run) => runsTableRow(await entryOf(run.dir), path.basename(run.dir))));
}

test('the 19 benchmark runs are valid run directories', async () => {
  assert.equal(written.length, 19);
  assert.deepEqual(
    Object.entries(written.reduce<Record<string, number>>((n, r) => ({ ...n, [r.variant]: (n[r.variant] ?? 0) + 1 }), {})),
    [['grpo', 5], ['seed', 5], ['sdar', 3], ['grpo_opsd', 3], ['seed_oracle', 3]],
  );
  for (const run of written) {
    const report = await checkRun(run.dir, schemas);
    assert.deepEqual(report.errors.map((e) => e.message), [], run.dir);
    assert.equal(report.counts.metrics, 100 + 12);
  }
});

test('rows: config, final metrics, evaluations with their Wilson interval, tags', async () => {
  const rows = await allRows();
  const seed0 = rows.find((r) => r.title.endsWith('bench-seed-s0'))!;
  assert.equal(seed0.config['algorithm'], 'seed');
  assert.equal(seed0.config['rollout.group_size'], '8');
  assert.equal(seed0.step, 100);
  assert.ok(typeof seed0.metrics['gate/mean'] === 'number');
  const final = written.find((r) => r.dir === seed0.key)!.final['valid_seen']!;
  const cell = seed0.evals['valid_seen']!;
  assert.equal(cell.n, 120);
  assert.equal(cell.success, final.successes / 120);
  assert.deepEqual(cell.interval, wilsonInterval(final.successes, 120));
  assert.match(cellText(seed0, 'eval:valid_seen'), /^\d+% \[\d+–\d+\] n=120$/);
  assert.deepEqual(seed0.tags, []);
  await writeTags(seed0.key, ['  keep  ', 'keep', 'oracle  analyzer', '']);
  assert.deepEqual(await new RunReader(seed0.key, schemas).readTags(), ['keep', 'oracle analyzer']);
  assert.deepEqual((await runsTableRow(await entryOf(seed0.key), 'x')).tags, ['keep', 'oracle analyzer']);
  assert.deepEqual(normalizeTags(['a', ' a ', 'x'.repeat(65)]), ['a']);
  await writeTags(seed0.key, []);
});

test('columns, sorting and the filter', async () => {
  const rows = await allRows();
  const ids = availableColumns(rows).map((c) => c.id);
  for (const id of ['run', 'tags', 'eval:valid_seen', 'eval:valid_unseen', 'metric:success/overall', 'metric:gate/mean', 'config:seed', 'config:analyzer.kind']) assert.ok(ids.includes(id), id);
  const shown = defaultColumnIds(rows);
  assert.deepEqual(shown.slice(0, 5), ['run', 'tags', 'status', 'eval:valid_seen', 'eval:valid_unseen']);
  assert.ok(shown.includes('config:algorithm') && shown.includes('config:seed') && shown.includes('config:analyzer.kind'), shown.join());
  assert.ok(!shown.includes('config:name'), 'the name differs in every run: not a column by default');

  const best = sortRows(rows, 'eval:valid_seen', 'descending');
  assert.ok(best[0]!.title.endsWith('bench-sdar-s1'), best[0]!.title); // 65 %, the benchmark's best valid_seen
  const ascending = sortRows(rows, 'eval:valid_seen', 'ascending');
  assert.ok(ascending[0]!.evals['valid_seen']!.success <= ascending[18]!.evals['valid_seen']!.success);
  assert.deepEqual(sortRows(rows, 'config:seed', 'ascending').map((r) => r.config['seed']).slice(0, 5), ['0', '0', '0', '0', '0']);

  assert.equal(filterRows(rows, 'algorithm=grpo', shown).length, 5);
  assert.equal(filterRows(rows, 'grpo', shown).length, 8, 'grpo and grpo_opsd by substring');
  assert.equal(filterRows(rows, 'algorithm=seed analyzer.kind=oracle', shown).length, 3);
  assert.equal(filterRows(rows, 'algorithm=seed -oracle', shown).length, 5);
  assert.equal(filterRows(rows, 'valid_seen>60', shown).length, rows.filter((r) => r.evals['valid_seen']!.success > 0.6).length);
  rows[0]!.tags = ['Baseline'];
  assert.equal(filterRows(rows, 'tag:baseline', shown).length, 1);

});

/** An evaluation report of these outcomes (`1` a success), task i being `<prefix>i`. */
function report(outcomes: string, prefix = 't'): EvalSample {
  const episodes = [...outcomes].map((c, i) => ({ task: { id: `${prefix}${i}` }, success: c === '1' }));
  return { overall: { success: episodes.filter((e) => e.success).length / episodes.length, n: episodes.length }, episodes };
}

/** 120 tasks, 40 successes before; after: the same plus `gained` more, minus `lost` of the first ones. */
function pair(gained: number, lost: number): [after: EvalSample, before: EvalSample] {
  const before = '1'.repeat(40) + '0'.repeat(80);
  const after = '0'.repeat(lost) + '1'.repeat(40 - lost) + '1'.repeat(gained) + '0'.repeat(80 - gained);
  return [report(after), report(before)];
}

test('Δ: the paired change with its 95 % interval, coloured only when the interval excludes 0', () => {
  // +4 tasks of 120 (+3.3 pp: 10 won, 6 lost): the interval spans 0 → neutral, never green.
  const small = successChange(...pair(10, 6));
  assert.ok(Math.abs(small.change - 4 / 120) < 1e-12 && small.low < 0 && small.high > 0);
  assert.equal(small.verdict, 'noise');
  assert.equal(changeText(small), '+3 [-3, +10]');
  assert.equal(changeTexts('valid_seen', undefined, undefined, small).description, '+3 [-3, +10] noise', 'the numbers the dashboard shows');
  assert.equal(changeClass(small), '');
  assert.match(changeTitle(small), /paired task by task over 120 tasks/);
  const better = successChange(...pair(30, 2));
  assert.equal(better.verdict, 'better');
  assert.equal(changeClass(better), 'up');
  const worse = successChange(...pair(0, 30));
  assert.equal(worse.verdict, 'worse');
  assert.equal(changeClass(worse), 'down');
  assert.match(changeText(worse), /^-25 \[-\d+, -\d+\]$/);
  // Different tasks: an unpaired (Newcombe) interval, said so.
  const unpaired = successChange(report('1'.repeat(44) + '0'.repeat(76), 'u'), report('1'.repeat(40) + '0'.repeat(80)));
  assert.equal(unpaired.paired, false);
  assert.match(changeTitle(unpaired), /unpaired: different tasks \(Newcombe interval\)/);
  assert.equal(changeClass(unpaired), '');
});

test('Δ cells: the change of a row with an evaluation, "baseline" on the baseline, empty elsewhere', async () => {
  const rows = await allRows();
  const baseline = rows.find((r) => r.title.endsWith('bench-grpo-s0'))!;
  const other = rows.find((r) => r.title.endsWith('bench-seed-s4'))!;
  const change = successChange(...pair(10, 6));
  other.changes = { valid_seen: change };
  const baselines = { valid_seen: baseline.key };
  assert.deepEqual(deltaCell(other, 'valid_seen', baselines), { text: changeText(change), className: '', title: changeTitle(change) });
  assert.deepEqual(deltaCell(baseline, 'valid_seen', baselines), { text: 'baseline', className: '' });
  assert.deepEqual(deltaCell(other, 'valid_unseen', baselines), { text: '', className: '' }, 'no baseline of that split');
  assert.deepEqual(deltaCell({ ...other, evals: {}, changes: {} }, 'valid_seen', baselines), { text: '', className: '' }, 'no evaluation of that split');
});

/** A separate base evaluation of one split (an `eval` run), made from a benchmark run's report of that split. */
function baseEvalRun(from: WrittenRun, split: string): string {
  const dir = path.join(workspace, 'runs', `base-eval-${split}`);
  cpSync(from.dir, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ ...manifest, id: `base-eval-${split}`, name: `base-eval-${split}`, stage: 'eval' }));
  for (const other of ['valid_seen', 'valid_unseen']) if (other !== split) rmSync(path.join(dir, 'eval', `${other}.json`));
  return dir;
}

const readReport = (dir: string, split: string): EvalReport => JSON.parse(readFileSync(path.join(dir, 'eval', `${split}.json`), 'utf8')) as EvalReport;

test('one baseline per split: two base evaluations pinned, the paired change read host-side and cached', async () => {
  const train = written.find((r) => r.variant === 'seed' && r.seed === 4)!;
  const seenBase = baseEvalRun(written.find((r) => r.variant === 'grpo' && r.seed === 0)!, 'valid_seen');
  const unseenBase = baseEvalRun(written.find((r) => r.variant === 'grpo' && r.seed === 1)!, 'valid_unseen');
  const entries = await Promise.all([train.dir, seenBase, unseenBase].map(entryOf));
  const store = new RunsTableStore();
  await store.update(entries, () => false, (dir) => path.basename(dir));
  const rows = store.list(entries);
  const [trainRow, seenRow, unseenRow] = rows as [RunsTableRow, RunsTableRow, RunsTableRow];

  // Pinning a base evaluation makes it the baseline of the split it has a report of (its metrics rows of the other
  // split have no episodes to pair).
  let baselines = pinBaseline({}, seenRow);
  assert.deepEqual(baselines, { valid_seen: seenBase });
  baselines = pinBaseline(baselines, unseenRow);
  assert.deepEqual(baselines, { valid_seen: seenBase, valid_unseen: unseenBase });
  assert.deepEqual(baselinesOf(baselines, rows), baselines);

  store.applyBaselines(rows, baselines);
  for (const [split, base] of [['valid_seen', seenBase], ['valid_unseen', unseenBase]] as const) {
    const expected = successChange(readReport(train.dir, split), readReport(base, split));
    assert.deepEqual(trainRow.changes[split], expected, split);
    assert.equal(expected.paired, true, 'the same 120 tasks in the same order');
    assert.equal(deltaCell(trainRow, split, baselines).text, changeText(expected));
  }
  assert.deepEqual(seenRow.changes, {}, 'the baseline of valid_seen has no report of valid_unseen');
  assert.deepEqual(unseenRow.changes, {});
  assert.equal(store.computed, 2);

  // A refresh reads no report again and computes nothing; a rebuilt run does.
  const before = trainRow.changes['valid_seen'];
  await store.update(entries, () => false, (dir) => path.basename(dir));
  store.applyBaselines(store.list(entries), baselines);
  assert.equal(store.computed, 2);
  assert.equal(store.list(entries)[0]!.changes['valid_seen'], before);
  await store.update(entries, (dir) => dir === train.dir, (dir) => path.basename(dir));
  store.applyBaselines(store.list(entries), baselines);
  assert.equal(store.computed, 4);

  // Pinning the train run replaces both; unpinning it leaves no baseline; unpinning a base run only its split.
  assert.deepEqual(pinBaseline(baselines, trainRow), { valid_seen: train.dir, valid_unseen: train.dir });
  assert.deepEqual(unpinBaseline(pinBaseline(baselines, trainRow), train.dir), {});
  assert.deepEqual(unpinBaseline(baselines, seenBase), { valid_unseen: unseenBase });
  assert.deepEqual(unpinBaseline(baselines, null), {});
  // The CSV: four Δ fields after each evaluation with a baseline, `baseline` on the baseline's row.
  const csv = runsCsv(store.list(entries), ['run', 'eval:valid_seen'], { valid_seen: seenBase }).trim().split('\n');
  assert.equal(csv[0], 'id,dir,run,eval valid_seen,eval valid_seen low,eval valid_seen high,eval valid_seen n,Δ eval valid_seen (pp),Δ eval valid_seen low,Δ eval valid_seen high,Δ eval valid_seen paired');
  assert.ok(csv[2]!.endsWith(',,,,baseline'), csv[2]);
  rmSync(seenBase, { recursive: true });
  rmSync(unseenBase, { recursive: true });
});

test('baselines kept by an older version (one run key) apply to every split that run has; runs gone are dropped', async () => {
  const rows = await allRows();
  const grpo = rows.find((r) => r.title.endsWith('bench-grpo-s0'))!;
  assert.deepEqual(baselinesOf(grpo.key, rows), { valid_seen: grpo.key, valid_unseen: grpo.key });
  assert.deepEqual(baselinesOf('/nowhere', rows), {});
  assert.deepEqual(baselinesOf({ valid_seen: '/nowhere', valid_unseen: grpo.key, test: 3 }, rows), { valid_unseen: grpo.key });
  assert.deepEqual(baselinesOf({ no_such_split: grpo.key }, rows), {});
  assert.deepEqual(baselinesOf(undefined, rows), {});
});

test('CSV: ids, intervals as four fields, the paired change after an evaluation with a baseline only, quoting', async () => {
  const rows = await allRows();
  rows[0]!.title = 'a, "quoted" run';
  rows[0]!.tags = ['x', '=cmd()'];
  const change = successChange(...pair(10, 6));
  rows[0]!.changes = { valid_seen: change };
  const csv = runsCsv(rows, ['run', 'tags', 'eval:valid_seen', 'eval:valid_unseen', 'metric:loss/pg', 'config:seed'], { valid_seen: rows[1]!.key });
  const lines = csv.trim().split('\n');
  assert.equal(lines.length, 20);
  assert.equal(
    lines[0],
    'id,dir,run,tags,eval valid_seen,eval valid_seen low,eval valid_seen high,eval valid_seen n,Δ eval valid_seen (pp),Δ eval valid_seen low,Δ eval valid_seen high,Δ eval valid_seen paired,' +
      'eval valid_unseen,eval valid_unseen low,eval valid_unseen high,eval valid_unseen n,loss/pg,seed',
  );
  const fields = lines[1]!.match(/("[^"]*(?:""[^"]*)*"|[^,]*)(,|$)/g)!.map((f) => f.replace(/,$/, ''));
  const at = (name: string): string => fields[lines[0]!.split(',').indexOf(name)]!;
  assert.equal(Number(at('Δ eval valid_seen (pp)')), Number((100 * change.change).toFixed(4)));
  assert.equal(Number(at('Δ eval valid_seen low').replace(/"/g, '')), Number((100 * change.low).toFixed(4)));
  assert.equal(Number(at('Δ eval valid_seen high')), Number((100 * change.high).toFixed(4)));
  assert.equal(at('Δ eval valid_seen paired'), 'true');
  assert.equal(runsCsv(rows, ['eval:valid_seen', 'config:seed']).split('\n')[0], 'id,dir,eval valid_seen,eval valid_seen low,eval valid_seen high,eval valid_seen n,seed', 'no baseline: no Δ');
  assert.ok(lines[1]!.includes('"a, ""quoted"" run"'));
  assert.ok(lines[1]!.includes('x; =cmd()'), 'a cell that does not start with = stays plain');
  const onlyTags = runsCsv(rows.slice(0, 1), ['tags'], undefined).trim().split('\n')[1]!;
  assert.ok(onlyTags.endsWith('x; =cmd()'));
  rows[0]!.tags = ['=cmd()'];
  assert.ok(runsCsv(rows.slice(0, 1), ['tags']).includes('"=cmd()"'), 'formula-looking cells are quoted');
});

test('evaluation samples: one row per episode, summary per type with Wilson intervals, sort and filter', async () => {
  const run = written[0]!;
  const rows = await sampleRows(await entryOf(run.dir));
  assert.equal(rows.length, 240);
  const evaluations = evaluationsOf(rows);
  assert.deepEqual(evaluations.map((e) => [e.key, e.n]), [['valid_seen@100', 120], ['valid_unseen@100', 120]]);
  const seen = rows.filter((r) => r.split === 'valid_seen');
  const summary = summarizeSamples(seen);
  assert.equal(summary.overall.n, 120);
  assert.equal(summary.overall.success, run.final['valid_seen']!.successes / 120);
  assert.equal(summary.byType.length, 6);
  for (const [type, cell] of summary.byType) {
    const ofType = seen.filter((r) => r.type === type);
    assert.deepEqual(cell.interval, wilsonInterval(ofType.filter((r) => r.success).length, ofType.length));
  }
  assert.equal(filterSamples(seen, 'failure type:heat').length, seen.filter((r) => !r.success && r.type === 'heat').length);
  assert.equal(sortSamples(seen, 'length', 'descending')[0]!.length, 20);
  assert.equal(sortSamples(seen, 'success', 'descending')[0]!.success, true);
  // The valid fixture's evaluation was recorded as trajectories: rows come from the index, with trajectory ids.
  const fixture = await sampleRows(await entryOf(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid')));
  assert.deepEqual(fixture.map((r) => [r.trajectory, r.split, r.type, r.success]), [['eval-test_seen-0001', 'test_seen', 'heat', true]]);
  assert.ok(readFileSync(path.join(run.dir, 'eval', 'valid_seen.json'), 'utf8').includes('"episodes"'));
});
