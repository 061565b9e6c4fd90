// The trajectory table's rows and sorting: every column sorts both ways, missing mean gates go last either way, ties
// keep the id order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import path from 'node:path';
import { RunsCore } from '../../../src/runs/core/runsCore';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core/schemas';
import type { TrajectoryIndexRow } from '../../../src/runs/shared/types';
import { batchRows } from '../../../src/trajectoryTable/core/batchTable';
import { trajectoryStats } from '../../../src/trajectory/shared/turnStats';
import { repoRoot } from '../support/repoPaths';
import { sortRows, tableRow } from '../../../src/trajectoryTable/shared/trajectoryTable';

function index(id: string, fields: Partial<TrajectoryIndexRow>): TrajectoryIndexRow {
  return { id, file: 'it-000001.jsonl', line: 1, offset: 0, size: 1, phase: 'train', update: 1, task: { id: `t-${id}`, type: 'heat' }, success: false, reward: 0, length: 3, tokens: 10, teacher: true, ...fields };
}

test('rows carry task, type, outcome, length, tokens, skill validity and mean g; sorting by any column both ways', () => {
  const rows = [
    tableRow(index('a', { success: true, length: 5, skill: { valid: true, source: 'self' } }), 0.61),
    tableRow(index('b', { length: 2, skill: { valid: false, source: 'self' }, task: { id: 't-b', type: 'clean' } }), 0.48),
    tableRow(index('c', { length: 5, teacher: false, skill: null }), null),
  ];
  assert.deepEqual(rows.map((r) => r.skill), ['valid', 'invalid', 'none']);
  assert.deepEqual(sortRows(rows, 'meanGate', 'descending').map((r) => r.id), ['a', 'b', 'c']);
  assert.deepEqual(sortRows(rows, 'meanGate', 'ascending').map((r) => r.id), ['b', 'a', 'c'], 'no mean g: last either way');
  assert.deepEqual(sortRows(rows, 'length', 'ascending').map((r) => r.id), ['b', 'a', 'c'], 'ties by id');
  assert.deepEqual(sortRows(rows, 'success', 'descending').map((r) => r.id), ['a', 'b', 'c']);
  assert.deepEqual(sortRows(rows, 'type', 'ascending').map((r) => r.id), ['b', 'a', 'c']);
});

test('a batch of the fixture run: one row per trajectory, mean g read from its trajectory file', async () => {
  const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
  const runDir = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
  const core = new RunsCore({ schemas: () => schemas, scan: async () => [runDir], warn: () => undefined });
  await core.rescan();
  const entry = core.get(runDir)!;
  const key = [...entry.index.batches.keys()].find((k) => k.startsWith('train:'))!;
  const { batch, rows } = await batchRows(entry, key);
  assert.match(batch, /^Update \d+$/);
  const indexed = [...entry.index.batches.get(key)!.groups.values()].flatMap((g) => g.rows);
  assert.equal(rows.length, indexed.length);
  for (const row of rows) {
    const index = indexed.find((r) => r.id === row.id)!;
    if (!index.teacher) {
      assert.equal(row.meanGate, null);
      continue;
    }
    const expected = trajectoryStats(await entry.index.reader.findTrajectory(row.id)).total.meanGate;
    assert.equal(row.meanGate, expected);
  }
  await assert.rejects(batchRows(entry, 'train:999'), /has no batch train:999/);
  core.dispose();
});
