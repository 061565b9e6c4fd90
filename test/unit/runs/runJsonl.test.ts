// JSONL parsing and the incremental tail the live dashboard uses.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { RunFormatError } from '../../../src/runs/core/errors';
import { JsonlTail, parseJsonl } from '../../../src/runs/core/jsonl';
import { RunSchemas } from '../../../src/runs/core/schemas';
import type { MetricRow } from '../../../src/runs/shared/types';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(path.join(repoRoot, 'schemas'));
let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seed-jsonl-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const row = (step: number, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ step, time: '2026-03-01T12:00:00Z', kind: 'update', 'success/overall': step / 10, ...extra })}\n`;

test('parseJsonl: blank lines skipped, torn last line reported, bad middle line located', () => {
  const parsed = parseJsonl('{"a":1}\n\n{"a":2}\n{"a":', { file: 'x.jsonl' });
  assert.deepEqual(parsed.records, [{ line: 1, value: { a: 1 } }, { line: 3, value: { a: 2 } }]);
  assert.deepEqual({ line: parsed.torn?.line, size: parsed.torn?.size }, { line: 4, size: 5 });
  assert.equal(parseJsonl('{"a":1}\n  ', { file: 'x.jsonl' }).torn, undefined);
  assert.throws(
    () => parseJsonl('{"a":1}\n{"a":\n{"a":3}\n', { file: 'x.jsonl' }),
    (error: unknown) => error instanceof RunFormatError && error.kind === 'invalid_json' && error.line === 2 && /^x\.jsonl:2: not valid JSON/.test(error.message),
  );
  assert.throws(() => parseJsonl(new Uint8Array([0x22, 0xff, 0x22, 0x0a]), { file: 'x.jsonl' }), /x\.jsonl:1: not UTF-8/);
});

test('parseJsonl validates each record and names the field', () => {
  const validate = schemas.validator('metric', { file: 'metrics.jsonl' });
  assert.throws(
    () => parseJsonl(row(1) + row(2, { 'loss/pg': '0.1' }), { file: 'metrics.jsonl' }, validate),
    (error: unknown) => error instanceof RunFormatError && error.line === 2 && error.field === 'loss/pg',
  );
  assert.throws(
    () => parseJsonl(row(1, { success: 1 }), { file: 'metrics.jsonl' }, validate),
    (error: unknown) => error instanceof RunFormatError && error.field === 'success' && /not a known field/.test(error.message),
  );
});

test('JsonlTail reads only new bytes, waits for a torn line to complete, and keeps line numbers', async () => {
  const file = path.join(dir, 'metrics.jsonl');
  const tail = new JsonlTail<MetricRow>(file, { file: 'metrics.jsonl' }, schemas.validator('metric', { file: 'metrics.jsonl' }));
  assert.deepEqual(await tail.read(), { records: [], errors: [], reset: false }); // no file yet

  await writeFile(file, row(1) + row(2));
  let chunk = await tail.read();
  assert.deepEqual(chunk.records.map((r) => [r.line, r.value.step]), [[1, 1], [2, 2]]);
  assert.equal(tail.offset, Buffer.byteLength(row(1) + row(2)));

  const third = row(3);
  await appendFile(file, third.slice(0, 20));
  chunk = await tail.read();
  assert.deepEqual(chunk.records, []);
  assert.equal(chunk.torn?.line, 3);
  const offsetBefore = tail.offset;

  await appendFile(file, third.slice(20) + row(4));
  chunk = await tail.read();
  assert.deepEqual(chunk.records.map((r) => [r.line, r.value.step]), [[3, 3], [4, 4]]);
  assert.equal(chunk.torn, undefined);
  assert.equal(tail.offset, offsetBefore + Buffer.byteLength(third + row(4)));
  assert.deepEqual((await tail.read()).records, []);
});

test('JsonlTail reports a bad line once and goes on', async () => {
  const file = path.join(dir, 'events-bad.jsonl');
  const tail = new JsonlTail(file, { file: 'metrics.jsonl' }, schemas.validator('metric', { file: 'metrics.jsonl' }));
  await writeFile(file, `${row(1)}not json\n${row(3, { kind: 'nope' })}${row(4)}`);
  const chunk = await tail.read();
  assert.deepEqual(chunk.records.map((r) => r.line), [1, 4]);
  assert.deepEqual(chunk.errors.map((e) => [e.kind, e.line, e.field]), [['invalid_json', 2, undefined], ['schema', 3, 'kind']]);
  assert.deepEqual(await tail.read(), { records: [], errors: [], reset: false });
});

test('JsonlTail starts over when the file shrinks or is replaced', async () => {
  const file = path.join(dir, 'replaced.jsonl');
  const tail = new JsonlTail(file, { file: 'replaced.jsonl' });
  await writeFile(file, row(1) + row(2));
  assert.equal((await tail.read()).records.length, 2);
  await truncate(file, 0);
  await writeFile(file, row(7));
  let chunk = await tail.read();
  assert.equal(chunk.reset, true);
  assert.deepEqual(chunk.records.map((r) => [r.line, (r.value as MetricRow).step]), [[1, 7]]);

  const other = path.join(dir, 'other.jsonl');
  await writeFile(other, row(8) + row(9) + row(10));
  await rename(other, file);
  chunk = await tail.read();
  assert.equal(chunk.reset, true);
  assert.deepEqual(chunk.records.map((r) => (r.value as MetricRow).step), [8, 9, 10]);

  await rm(file);
  chunk = await tail.read();
  assert.equal(chunk.reset, true);
  assert.equal(tail.offset, 0);
});
