// Issue 54 item 6: the viewer's and the review's skill-relevance flag, on the cases the trainer's metric is checked on.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { skillMismatches, skillNamesTarget, summaryNamesTask, taskTerms } from '../../../src/runs/shared/skillRelevance';

const CASES = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'skills', 'relevance-cases.json'), 'utf8')) as {
  cases: { task: string; summary: string; skill: string; terms: string[]; summary_names_task: boolean; skill_names_target: boolean }[];
};

test('the same rule as the trainer, case for case', () => {
  assert.ok(CASES.cases.length >= 5);
  for (const c of CASES.cases) {
    assert.deepEqual(taskTerms(c.task), c.terms, c.task);
    assert.equal(summaryNamesTask(c.summary, c.task), c.summary_names_task, c.summary);
    assert.equal(skillNamesTarget(c.skill, c.task), c.skill_names_target, c.skill);
  }
});

test('the demo trajectory\'s skill is flagged three ways; its own task\'s skill is not', () => {
  const [demo, own] = CASES.cases;
  assert.deepEqual(skillMismatches({ text: demo!.skill, summary: demo!.summary }, demo!.task, 20), [
    "The episode summary does not name this task's lettuce and garbagecan.",
    'The skill names neither lettuce nor garbagecan.',
    'The summary counts 24 actions; this episode had 20.',
  ]);
  assert.deepEqual(skillMismatches({ text: own!.skill, summary: own!.summary }, own!.task, 9), []);
  assert.deepEqual(skillMismatches({ text: null, summary: null }, own!.task, 9), []);
});
