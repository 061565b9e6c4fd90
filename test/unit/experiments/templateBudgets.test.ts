// Issue 54 item 3: every template either can succeed at its budget or says plainly, in its first line (what the
// template picker shows), that it cannot or is not expected to, and why. The SmolLM2 template gave household
// episodes 2 actions, where no task can be won in fewer than 3 (the least over 1 200 tasks).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';

const DIR = path.join(__dirname, '..', '..', '..', '..', 'resources', 'templates');
/** The fewest actions that win a task of the environment (household: the least over 1 200 generated tasks). */
const LEAST_ACTIONS: Record<string, number> = { household: 3 };
const SAYS_SO = /cannot succeed|not expected to (solve|win|succeed)/;

/** Why a template cannot succeed at its budget without saying so in its first line; undefined when it is fine. */
function budgetProblem(text: string): string | undefined {
  const data = parse(text.replaceAll('{{name}}', 'x')) as { environment?: { name?: string }; rollout?: { max_steps?: number } };
  const least = LEAST_ACTIONS[data.environment?.name ?? ''];
  const steps = data.rollout?.max_steps;
  if (least === undefined || steps === undefined || steps >= least || SAYS_SO.test(text.split('\n')[0]!)) return undefined;
  return `${steps} actions per episode cannot win a ${data.environment?.name} task (≥ ${least}), and its first line does not say so`;
}

test('every template can succeed at its budget, or its first line says it cannot', () => {
  const files = readdirSync(DIR).filter((name) => name.endsWith('.seed.yaml'));
  assert.ok(files.length >= 10);
  for (const file of files) assert.equal(budgetProblem(readFileSync(path.join(DIR, file), 'utf8')), undefined, file);
  // the rule catches what the SmolLM2 template was: 2-action episodes, not a word about it
  const before = readFileSync(path.join(DIR, 'smollm2-household.seed.yaml'), 'utf8')
    .replace(/^.*\n/, '# SEED template: Household · SmolLM2-135M — the budget below finishes on 2 CPU cores in minutes\n')
    .replace(/^ {2}max_steps: .*$/m, '  max_steps: 2');
  assert.match(budgetProblem(before) ?? '', /^2 actions per episode cannot win a household task/);
});

test('the SmolLM2 templates say plainly that raw SmolLM2 is not expected to succeed, and evaluate', () => {
  for (const file of ['smollm2-household.seed.yaml', 'smollm2-textworld.seed.yaml']) {
    const text = readFileSync(path.join(DIR, file), 'utf8');
    assert.match(text.split('\n')[0]!, SAYS_SO, file);
    const data = parse(text.replaceAll('{{name}}', 'x')) as { updates: number; eval: { every: number } };
    assert.ok(data.eval.every > 0 && data.updates % data.eval.every === 0, `${file}: evaluates after its last update`);
  }
});
