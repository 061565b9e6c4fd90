// The runs table and the evaluation sample table over the learning benchmark's 19 runs (test/ui/benchmarkRuns.ts):
// the generated runs are valid run directories; rows carry config, final metrics, evaluations with Wilson intervals
// and tags; columns, sorting, the filter language, Δ against a baseline and the CSV; the sample table's summary per
// task type, sorting and filter; tags.json round trip.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { checkRun } from '../../src/runs/core/checkRun';
import { RunIndex } from '../../src/runs/core/runIndex';
import { RunReader } from '../../src/runs/core/runReader';
import { RunSchemas, findSchemasDir } from '../../src/runs/core/schemas';
import { normalizeTags, writeTags } from '../../src/runs/core/tags';
import { runsTableRow } from '../../src/runsTable/core/runsTableRows';
import { availableColumns, cellText, defaultColumnIds, delta, deltaText, filterRows, runsCsv, sortRows, type RunsTableRow } from '../../src/runsTable/shared/runsTable';
import { sampleRows } from '../../src/evalSamples/core/sampleRows';
import { evaluationsOf, filterSamples, sortSamples, summarizeSamples } from '../../src/evalSamples/shared/evalSamples';
import { wilsonInterval } from '../../src/dashboard/shared/evaluation';
import { writeBenchmarkRuns, type WrittenRun } from '../ui/benchmarkRuns';
import { repoRoot } from './repoPaths';

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

test('columns, sorting, the filter and Δ against a baseline', async () => {
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

  const baseline = rows.find((r) => r.title.endsWith('bench-grpo-s0'))!;
  const other = rows.find((r) => r.title.endsWith('bench-seed-s4'))!;
  const d = delta(other, baseline, 'eval:valid_seen')!;
  assert.ok(Math.abs(d - (other.evals['valid_seen']!.success - baseline.evals['valid_seen']!.success) * 100) < 1e-9);
  assert.equal(deltaText(5, 'eval:valid_seen'), '+5.0 pp');
  assert.equal(deltaText(-0.0123, 'metric:loss/pg'), '−0.0123');
  assert.equal(deltaText(0, 'metric:loss/pg'), '±0');
  assert.equal(delta(other, baseline, 'status'), undefined);
});

test('CSV: ids, intervals as four fields, Δ columns with a baseline, quoting', async () => {
  const rows = await allRows();
  rows[0]!.title = 'a, "quoted" run';
  rows[0]!.tags = ['x', '=cmd()'];
  const csv = runsCsv(rows, ['run', 'tags', 'eval:valid_seen', 'config:seed'], rows[1]);
  const lines = csv.trim().split('\n');
  assert.equal(lines.length, 20);
  assert.equal(lines[0], 'id,dir,run,tags,eval valid_seen,eval valid_seen low,eval valid_seen high,eval valid_seen n,Δ eval valid_seen (pp),config:seed'.replace('config:seed', 'seed,Δ seed'));
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
