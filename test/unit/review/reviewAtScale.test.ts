// Review at scale without VS Code: the status bar counts rejections as reviewed ("2/96 reviewed" after 3 decisions
// was the bug), bulk decisions on a filtered set become one multi-line edit the run-format reader accepts, and
// identical or near-identical skills group together.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core';
import { bulkTargets, groupSkills, reviewCounts, reviewStatusText, skillKey } from '../../../src/review/shared/skillFilters';
import { decideManyInText, parseSkillsText } from '../../../src/review/core/skillsDocument';
import type { SkillRecord } from '../../../src/runs/shared/types';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
const fixture = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid', 'skills.jsonl'), 'utf8');

test('the review count includes rejections: accepted, edited and rejected records are all reviewed', () => {
  const records = parseSkillsText(fixture, schemas).records; // one record in each state
  assert.equal(reviewStatusText(reviewCounts(records)), '3/4 reviewed · 1 pending');
});

test('bulk: accept leaves out records that failed format verification or are already accepted; one edit for all', () => {
  const records = parseSkillsText(fixture, schemas).records;
  const accept = bulkTargets(records, 'accepted');
  assert.ok(accept.every((r) => r.valid && r.review.state !== 'accepted'));
  assert.equal(accept.length, records.filter((r) => r.valid && r.review.state !== 'accepted').length);
  const reject = bulkTargets(records, 'rejected');
  assert.equal(reject.length, 3);
  const changes = decideManyInText(fixture, new Map(reject.map((r) => [r.id, { state: 'rejected' as const }])), schemas, new Date('2026-11-30T12:00:00Z'));
  assert.equal(changes.length, 3);
  const lines = fixture.split('\n');
  for (const change of changes) lines[change.line] = change.content;
  const after = parseSkillsText(lines.join('\n'), schemas);
  assert.deepEqual(after.problems.filter((p) => p.severity === 'error'), []);
  assert.ok(after.records.every((r) => r.review.state === 'rejected'));
  assert.equal(reviewStatusText(reviewCounts(after.records)), '4/4 reviewed · 0 pending');
  assert.throws(() => decideManyInText(fixture, new Map([['no-such-id', { state: 'rejected' as const }]]), schemas), /no-such-id/);
});

test('grouping: identical and near-identical skills (case, spaces, quotes, final period) share a group; invalid apart', () => {
  const base = parseSkillsText(fixture, schemas).records[0]!;
  const make = (id: string, skill: string | null, valid = true): SkillRecord => ({ ...base, id, skill, valid });
  const records = [
    make('a', 'Take the mug first, then heat it.'),
    make('b', 'take the  mug first, then heat it'),
    make('c', '"Take the mug first, then heat it!"'),
    make('d', 'Open the fridge before looking inside.'),
    make('e', null, false),
  ];
  assert.equal(skillKey('  Take the  MUG first. '), 'take the mug first');
  const groups = groupSkills(records);
  assert.deepEqual(groups.map((g) => g.records.map((r) => r.id)), [['a', 'b', 'c'], ['e'], ['d']]);
  assert.equal(groups[0]?.text, 'Take the mug first, then heat it.');
});
