// The live run index behind the runs tree and the dashboard: grouping, incremental reads, torn lines, resets.
import assert from 'node:assert/strict';
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { hasChanges, RunIndex } from '../../../src/runs/core/runIndex';
import { RunSchemas } from '../../../src/runs/core/schemas';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(path.join(repoRoot, 'schemas'));
const fixture = path.join(repoRoot, 'test', 'fixtures', 'runs');
let scratch: string;

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'seed-run-index-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

const metricRow = (step: number, success: number) =>
  `${JSON.stringify({ step, time: '2026-03-01T12:00:00.000Z', kind: 'update', 'success/overall': success, 'loss/pg': 0.1 })}\n`;

async function freshRun(name: string): Promise<{ dir: string; indexRows: string[] }> {
  const dir = path.join(scratch, name);
  await mkdir(path.join(dir, 'trajectories'), { recursive: true });
  await copyFile(path.join(fixture, 'valid', 'run.json'), path.join(dir, 'run.json'));
  const indexRows = (await readFile(path.join(fixture, 'valid', 'trajectories', 'index.jsonl'), 'utf8')).split('\n').filter(Boolean).map((l) => `${l}\n`);
  return { dir, indexRows };
}

test('the valid fixture: batches → task groups → trajectories, metrics and events', async () => {
  const index = new RunIndex(path.join(fixture, 'valid'), schemas);
  const change = await index.refresh();
  assert.equal(index.manifest?.id, 'valid');
  assert.equal(change.manifest, true);
  assert.equal(index.metrics.length, 3);
  assert.deepEqual([...index.batches.keys()], ['train:1', 'train:2', 'eval:test_seen']);
  const first = index.batches.get('train:1');
  assert.deepEqual([first?.label, first?.trajectories, first?.successes, first?.groups.size], ['Update 1', 3, 2, 2]);
  const group0 = first?.groups.get('train:1/0');
  assert.deepEqual(group0?.rows.map((r) => r.id), ['it-000001-0001', 'it-000001-0002']);
  assert.equal(index.batches.get('eval:test_seen')?.label, 'Eval test_seen');
  assert.equal(index.trajectoryCount, 6);
  assert.equal(index.lastEvent?.type, 'finished');
  assert.equal(index.findRow('it-000002-0001')?.update, 2);
  // Nothing changed on disk: nothing new is reported.
  assert.equal(hasChanges(await index.refresh()), false);
});

test('refresh reads only what was appended; a torn last line waits for its newline', async () => {
  const { dir, indexRows } = await freshRun('incremental');
  const index = new RunIndex(dir, schemas);
  const start = await index.refresh();
  assert.deepEqual([start.manifest, start.metrics.length, start.trajectories.length], [true, 0, 0]);

  await writeFile(path.join(dir, 'metrics.jsonl'), metricRow(1, 0.25) + metricRow(2, 0.5));
  const firstRow = indexRows[0] ?? '';
  await writeFile(path.join(dir, 'trajectories', 'index.jsonl'), firstRow + (indexRows[1] ?? '').slice(0, 40));
  const second = await index.refresh();
  assert.equal(second.manifest, false);
  assert.deepEqual(second.metrics.map((r) => r.step), [1, 2]);
  assert.deepEqual(second.trajectories.map((r) => r.id), ['it-000001-0001']);

  await appendFile(path.join(dir, 'metrics.jsonl'), metricRow(3, 0.75));
  await appendFile(path.join(dir, 'trajectories', 'index.jsonl'), (indexRows[1] ?? '').slice(40) + (indexRows[2] ?? ''));
  const third = await index.refresh();
  assert.deepEqual(third.metrics.map((r) => r.step), [3], 'only the new row');
  assert.deepEqual(third.trajectories.map((r) => r.id), ['it-000001-0002', 'it-000001-0003']);
  assert.equal(index.metrics.length, 3);
  assert.equal(index.batches.get('train:1')?.trajectories, 3);
  assert.equal(third.metricsReset, false);
});

test('a bad complete line is reported with file and line, and reading goes on after it', async () => {
  const { dir } = await freshRun('bad-line');
  await writeFile(path.join(dir, 'metrics.jsonl'), `${metricRow(1, 0.1)}{"step": 2, oops\n${metricRow(3, 0.3)}`);
  await writeFile(path.join(dir, 'events.jsonl'), '{"time":"2026-03-01T12:00:00Z","type":"started"}\n');
  const index = new RunIndex(dir, schemas);
  const change = await index.refresh();
  assert.deepEqual(change.metrics.map((r) => r.step), [1, 3]);
  assert.equal(change.problems.length, 2);
  assert.match(change.problems.find((p) => p.includes('metrics.jsonl')) ?? '', /metrics\.jsonl:2: not valid JSON/);
  assert.match(change.problems.find((p) => p.includes('events.jsonl')) ?? '', /events\.jsonl:1: \w+: is required/);
});

test('a replaced or shortened file starts over; a replaced run.json is read again', async () => {
  const { dir } = await freshRun('reset');
  await writeFile(path.join(dir, 'metrics.jsonl'), metricRow(1, 0.1) + metricRow(2, 0.2));
  const index = new RunIndex(dir, schemas);
  await index.refresh();
  await writeFile(path.join(dir, 'metrics.new'), metricRow(1, 0.9));
  await rename(path.join(dir, 'metrics.new'), path.join(dir, 'metrics.jsonl'));
  const change = await index.refresh();
  assert.equal(change.metricsReset, true);
  assert.deepEqual(index.metrics.map((r) => r['success/overall']), [0.9]);

  const manifest = JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8'));
  manifest.status = 'stopped';
  await writeFile(path.join(dir, '.run.json.tmp'), JSON.stringify(manifest));
  await rename(path.join(dir, '.run.json.tmp'), path.join(dir, 'run.json'));
  const next = await index.refresh();
  assert.equal(next.manifest, true);
  assert.equal(index.manifest?.status, 'stopped');
});

test('an unreadable run.json makes a broken run, not an exception', async () => {
  const index = new RunIndex(path.join(fixture, 'unknown-format-version'), schemas);
  const change = await index.refresh();
  assert.equal(index.manifest, undefined);
  assert.match(index.manifestError?.message ?? '', /format_version 2 is not supported/);
  assert.equal(change.problems.length, 1);
  const missing = new RunIndex(path.join(scratch, 'nowhere'), schemas);
  await missing.refresh();
  assert.match(missing.manifestError?.message ?? '', /run\.json: file not found/);
});

test('concurrent refreshes share one read and miss nothing', async () => {
  const { dir } = await freshRun('concurrent');
  await writeFile(path.join(dir, 'metrics.jsonl'), metricRow(1, 0.1));
  const index = new RunIndex(dir, schemas);
  const [a, b] = await Promise.all([index.refresh(), index.refresh()]);
  assert.equal(a, b);
  assert.deepEqual(a.metrics.map((r) => r.step), [1]);
  assert.equal(index.metrics.length, 1);
});
