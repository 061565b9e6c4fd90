// The walkthrough as package.json declares it: every step's buttons run contributed commands, its completion events
// are commands (or views they open) that no other step's button runs (otherwise one click ticks two steps), and its
// picture exists and is small.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gpuTemplates } from '../../../src/walkthrough/core/gpuTemplates';
import { WALKTHROUGH_VIEW_OPENED } from '../../../src/walkthrough/core/walkthroughContext';
import { repoRoot } from '../support/repoPaths';

interface Step {
  id: string;
  description: string;
  media: { image: string; altText: string };
  completionEvents: string[];
}

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  contributes: { commands: Array<{ command: string }>; walkthroughs: Array<{ id: string; steps: Step[] }> };
};
const steps = manifest.contributes.walkthroughs[0]!.steps;

/** The commands a step's description links to (its buttons). */
function buttonCommands(step: Step): string[] {
  return [...step.description.matchAll(/\]\(command:([\w.]+)/g)].map((match) => match[1]!);
}

test('the walkthrough has the seven steps of a first hour, in order', () => {
  assert.deepEqual(
    steps.map((step) => step.id),
    ['setUpTrainer', 'runDemo', 'openDashboard', 'openHeatmap', 'compareTrajectories', 'reviewSkills', 'trainOnGpu'],
  );
});

test('each step: buttons run contributed commands; completion by its own commands or views, which no other step runs', () => {
  const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
  const viewOpened = WALKTHROUGH_VIEW_OPENED as Record<string, string>;
  for (const step of steps) {
    const buttons = buttonCommands(step);
    assert.ok(buttons.length > 0, `${step.id} has no button`);
    for (const command of buttons) assert.ok(contributed.has(command), `${step.id}: button runs ${command}, which is not contributed`);
    assert.ok(step.completionEvents.length > 0, `${step.id} has no completion event`);
    // The command behind each event: onCommand:<command>, or onContext:<key> that <command>'s view sets.
    const completing: string[] = [];
    for (const event of step.completionEvents) {
      const onCommand = /^onCommand:(.+)$/.exec(event)?.[1];
      const onContext = /^onContext:(.+)$/.exec(event)?.[1];
      const command = onCommand ?? (onContext ? viewOpened[onContext] : undefined);
      assert.ok(command, `${step.id}: ${event} is neither an onCommand event nor a view key of walkthroughContext.ts`);
      assert.ok(contributed.has(command), `${step.id}: completes on ${command}, which is not contributed`);
      const others = steps.filter((other) => other !== step && buttonCommands(other).includes(command)).map((other) => other.id);
      assert.deepEqual(others, [], `${step.id} completes on ${command}, which the button(s) of ${others.join(', ')} also run`);
      completing.push(command);
    }
    // The step's own button must be able to tick it.
    assert.ok(buttons.some((command) => completing.includes(command)), `${step.id}: no button fires a completion event`);
  }
});

test('every view key of walkthroughContext.ts ticks a step and is set where its view opens', () => {
  // The viewer's and the diff's registrations set them when their panels open.
  const source = ['trajectory/registerTrajectoryViewer.ts', 'diff/registerTrajectoryDiff.ts'].map((file) => readFileSync(path.join(repoRoot, 'src', file), 'utf8')).join('\n');
  const used = steps.flatMap((step) => step.completionEvents).filter((event) => event.startsWith('onContext:')).map((event) => event.slice('onContext:'.length));
  assert.deepEqual(used.sort(), Object.keys(WALKTHROUGH_VIEW_OPENED).sort());
  for (const key of used) assert.ok(source.includes(`viewOpened('${key}')`), `nothing sets ${key}`);
});

test('each step has its picture (a PNG under media/walkthrough, < 150 KB) and alt text', () => {
  let total = 0;
  for (const step of steps) {
    const file = path.join(repoRoot, step.media.image);
    assert.match(step.media.image, /^media\/walkthrough\/[\w-]+\.png$/);
    assert.ok(existsSync(file), `${step.id}: ${step.media.image} is missing (npm run screenshots)`);
    assert.deepEqual([...readFileSync(file).subarray(1, 4)], [0x50, 0x4e, 0x47], `${step.media.image} is not a PNG`);
    total += statSync(file).size;
    assert.ok(statSync(file).size < 150 * 1024, `${step.media.image} is ${statSync(file).size} bytes`);
    assert.ok(step.media.altText.length > 10, `${step.id} has no alt text`);
  }
  assert.ok(total < 700 * 1024, `the walkthrough's pictures weigh ${total} bytes`);
});

test('"Train on your GPU" offers the templates that do not pin the CPU', () => {
  const ids = gpuTemplates(path.join(repoRoot, 'resources', 'templates')).map((t) => t.id);
  assert.ok(ids.includes('alfworld-qwen2.5-3b') && ids.includes('webshop-qwen2.5-3b') && ids.includes('seed-stage2'), ids.join(', '));
  assert.ok(!ids.includes('cpu-quick') && !ids.includes('household-tiny') && !ids.includes('household-demo'), ids.join(', '));
});

test('"Run the demo" creates what npm run demo trains (smaller), evaluates the base first, and says what it shows', () => {
  const step = steps.find((s) => s.id === 'runDemo')!;
  const created = /command:seedStudio\.newExperiment\?([^)]+)\)/.exec(step.description)?.[1];
  const args = JSON.parse(decodeURIComponent(created ?? '[]')) as Array<{ template?: string }>;
  assert.equal(args[0]?.template, 'household-demo');
  const text = readFileSync(path.join(repoRoot, 'resources', 'templates', 'household-demo.seed.yaml'), 'utf8');
  const demo = readFileSync(path.join(repoRoot, 'examples', 'household-demo-stage2.seed.yaml'), 'utf8');
  // npm run demo's Stage-2 settings: 30 updates, rollouts at 0.4, 4 × 8, 20 steps, lr 1e-4, one evaluation at the end
  for (const key of ['updates: 30', '  temperature: 0.4', '  tasks_per_update: 4', '  group_size: 8', '  max_steps: 20', '  lr: 1.0e-4', '  every: 30', '  lambda: 0.01']) {
    assert.ok(text.includes(key) && demo.includes(key), key);
  }
  // It writes TensorBoard logs as npm run demo's Stage 2 does (tensorBoardServers.test.ts), so SEED: Open in
  // TensorBoard has something to show after the walkthrough's run (issue 41 item 6).
  assert.match(text, /^report_to: \[tensorboard\]/m, 'the template does not report to TensorBoard');
  assert.match(text, /path: builtin:household-tiny/);
  // evaluate the base on the split the run evaluates at its end (a paired before/after), then train
  const evaluate = /\[Evaluate the Base Policy\]\(command:seedStudio\.train\?([^)]+)\)/.exec(step.description)?.[1];
  assert.deepEqual(JSON.parse(decodeURIComponent(evaluate ?? '[]')), [{ stage: 'eval', split: 'valid_seen' }]);
  assert.match(text, /splits: \[valid_seen\]/);
  // it does not learn visibly in minutes, and the step says so plainly
  assert.match(step.description, /Expect no visible learning/);
  assert.match(step.description, /inside the evaluation's noise/);
  // how long on 2 CPU cores and what it showed: the figures measured with this template, which its comment records
  assert.match(step.description, /How long, measured on 2 CPU cores/);
  const measured = [...step.description.matchAll(/\d+ (?:minutes|s)\b|\d+ % → \d+ %, [+−]\d+ points \[[+−]?\d+, [+−]?\d+\]/g)].map((m) => m[0]);
  assert.ok(measured.length >= 4, `measured figures: ${measured.join(' | ')}`);
  for (const figure of measured) assert.ok(text.replace(/\n# ?/g, ' ').includes(figure), `"${figure}" is not what the template records`);
  assert.doesNotMatch(step.description, /npm run demo measured/, 'the figures are this experiment\'s, not npm run demo\'s');
  assert.match(step.description, /What you see change: .*Runs view counts its updates .*before → after/s);
  // the numbers it gives are the template's
  assert.equal(/^updates: (\d+)$/m.exec(text)?.[1], /(\d+) updates\)/.exec(step.description)?.[1]);
  assert.equal(/^ {2}tasks: (\d+)/m.exec(text)?.[1], /on (\d+) held-out tasks/.exec(step.description)?.[1]);
});
