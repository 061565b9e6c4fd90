// The skill review's model of skills.jsonl: parsing with located problems (diagnostics), counts, filters, and a
// decision applied as a one-line change that the run-format reader accepts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RunSchemas, applySkillReviews, findSchemasDir } from '../../../src/runs/core';
import { NO_FILTER, collectingRefusal, decideInText, effectiveSkill, fieldRange, matchesFilter, parseSkillsText, reviewCounts, taskTypes } from '../../../src/review/core/skillsDocument';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
const fixture = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid', 'skills.jsonl'), 'utf8');

test('the fixture parses: four records in all four states, the invalid one reported as a warning', () => {
  const parsed = parseSkillsText(fixture, schemas);
  assert.equal(parsed.records.length, 4);
  assert.deepEqual(reviewCounts(parsed.records), { total: 4, pending: 1, accepted: 1, rejected: 1, edited: 1, invalid: 1 });
  assert.deepEqual(parsed.problems, [{ line: 3, severity: 'warning', field: 'valid', message: 'skills.jsonl:3: format verification failed: episode_skill empty (never trained on)' }]);
  assert.deepEqual(taskTypes(parsed.records), ['clean', 'heat']);
});

test('bad lines are located problems: invalid JSON, a schema violation with its field, a duplicate id, a torn tail', () => {
  const lines = fixture.trimEnd().split('\n');
  const broken = JSON.parse(lines[0]!) as Record<string, unknown>;
  broken.review = { state: 'maybe' };
  const text = [lines[0], '{"id": oops', JSON.stringify(broken), lines[1], lines[1], '', '{"id":"torn'].join('\n');
  const parsed = parseSkillsText(text, schemas);
  assert.equal(parsed.records.length, 3);
  const byLine = new Map(parsed.problems.map((p) => [p.line, p]));
  assert.equal(byLine.get(2)?.severity, 'error');
  assert.match(byLine.get(2)!.message, /^skills\.jsonl:2: not valid JSON/);
  assert.equal(byLine.get(3)?.field, 'review.state');
  assert.match(byLine.get(3)!.message, /^skills\.jsonl:3: review\.state: /);
  assert.equal(byLine.get(5)?.field, 'id');
  assert.match(byLine.get(5)!.message, /already the id of line 4/);
  assert.equal(byLine.get(7)?.severity, 'warning');
  assert.match(byLine.get(7)!.message, /torn last line/);
  assert.ok(!byLine.has(6), 'blank lines are fine');
});

test('a diagnostic points at the key of the field at fault, else at the whole line', () => {
  const line = '{"id":"a","review":{"state":"maybe"}}';
  assert.deepEqual(fieldRange(line, 'review.state'), { start: 10, end: 18 });
  assert.deepEqual(fieldRange('  {"id": 1}', undefined), { start: 2, end: 11 });
  assert.deepEqual(fieldRange(line, 'absent'), { start: 0, end: line.length });
});

test('a decision changes exactly one line, the same way the run-format writer does', () => {
  const now = new Date('2026-03-02T10:00:00.000Z');
  const change = decideInText(fixture, 'collect-000001-0001', { state: 'accepted' }, schemas, now);
  assert.equal(change.line, 0);
  const record = JSON.parse(change.content) as { review: unknown; id: string };
  assert.deepEqual(record.review, { state: 'accepted', time: '2026-03-02T10:00:00.000Z' });
  const lines = fixture.split('\n');
  lines[change.line] = change.content;
  const expected = new TextDecoder().decode(applySkillReviews(new TextEncoder().encode(fixture), new Map([['collect-000001-0001', { state: 'accepted' as const }]]), schemas, now));
  assert.equal(lines.join('\n'), expected);
  // Key order is kept: the review object stays where it was.
  assert.deepEqual(Object.keys(record), Object.keys(JSON.parse(fixture.split('\n')[0]!) as object));
});

test('edited needs text; unknown ids, torn tails and bad lines refuse the decision', () => {
  const edited = decideInText(fixture, 'collect-000001-0002', { state: 'edited', text: 'Go to the sink first.' }, schemas);
  assert.equal(edited.line, 1);
  assert.equal((JSON.parse(edited.content) as { review: { text: string } }).review.text, 'Go to the sink first.');
  assert.throws(() => decideInText(fixture, 'collect-000001-0002', { state: 'edited', text: '  ' }, schemas), /review/);
  assert.throws(() => decideInText(fixture, 'nope', { state: 'accepted' }, schemas), /no record with id "nope"/);
  assert.throws(() => decideInText(fixture.trimEnd(), 'collect-000001-0001', { state: 'accepted' }, schemas), /torn last line/);
  assert.throws(() => decideInText(`${fixture}{oops\n`, 'collect-000001-0001', { state: 'accepted' }, schemas), /skills\.jsonl:5/);
});

test('filters by outcome, task type, state and text; the skill an SFT run would use', () => {
  const { records } = parseSkillsText(fixture, schemas);
  const ids = (filter: Partial<typeof NO_FILTER>) => records.filter((r) => matchesFilter(r, { ...NO_FILTER, ...filter })).map((r) => r.id.slice(-4));
  assert.deepEqual(ids({}), ['0001', '0002', '0003', '0004']);
  assert.deepEqual(ids({ outcome: 'failure' }), ['0003']);
  assert.deepEqual(ids({ outcome: 'success', taskType: 'heat' }), ['0001', '0004']);
  assert.deepEqual(ids({ state: 'edited' }), ['0004']);
  assert.deepEqual(ids({ text: 'MICROWAVE' }), ['0001', '0004']);
  assert.deepEqual(ids({ text: 'Heat tasks: take' }), ['0004'], 'the edited text is searched too');
  assert.deepEqual(records.map(effectiveSkill), [records[0]!.skill, records[1]!.skill, null, 'Heat tasks: take the object, heat it in the microwave, then place it.']);
});

test('reviews are refused while the run\'s collect stage may still append, and allowed otherwise', () => {
  assert.match(collectingRefusal({ id: 'c1', stage: 'collect', status: 'running' }) ?? '', /^run c1 is still collecting/);
  assert.match(collectingRefusal({ id: 'c1', stage: 'collect', status: 'stopping' }) ?? '', /still collecting/);
  assert.equal(collectingRefusal({ id: 'c1', stage: 'collect', status: 'completed' }), undefined);
  assert.equal(collectingRefusal({ id: 't1', stage: 'train', status: 'running' }), undefined);
});
