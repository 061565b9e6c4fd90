// Issue 54 item 8: values the schema accepts but no run could mean are warned at the value (src/experiments/core/budgetProblems.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetProblems } from '../../../src/experiments/core/budgetProblems';

test('group_size 4000000: a warning at the value with the episodes one update would play', () => {
  const text = 'name: x\nmodel:\n  path: m\nrollout:\n  tasks_per_update: 4\n  group_size: 4000000\n';
  const [problem, ...rest] = budgetProblems(text);
  assert.equal(rest.length, 0);
  assert.equal(problem?.severity, 'warning');
  assert.equal(problem?.field, 'rollout.group_size');
  assert.deepEqual([problem?.range.start.line, problem?.range.start.character, problem?.range.end.character], [5, 14, 21]);
  assert.equal(problem?.message, 'rollout.group_size: 4,000,000 is far beyond what a run of this field uses (SEED and GRPO use 8; above 64 is flagged): one update would play 16,000,000 episodes');
});

test('the templates\' and the paper\'s values pass; a broken file gives nothing here (the schema speaks)', () => {
  assert.deepEqual(budgetProblems('name: x\nupdates: 150\nrollout:\n  group_size: 8\n  tasks_per_update: 16\n  max_steps: 50\n  max_response_tokens: 512\n'), []);
  assert.deepEqual(budgetProblems('name: [x\n'), []);
  assert.equal(budgetProblems('name: x\nupdates: 1000000\n')[0]?.field, 'updates');
});
