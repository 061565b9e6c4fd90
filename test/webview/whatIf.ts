// Webview test of "What if…" in the trajectory viewer: the typed skill goes to the host as a request whose reply is
// the result, shown beside the recorded gates (summary row per skill, per-turn rows on one scale, flipped tokens
// marked), several skills can be compared, and Save asks the host. Reloads: test/webview/whatIfReload.ts. The
// screenshot is test-results/webview-whatif.png.
import assert from 'node:assert/strict';
import { decodeTokenArrays } from '../../src/runs/shared/tokenArrays';
import { formatNumber } from '../../src/trajectory/shared/format';
import { summarizeGates } from '../../src/runs/shared/gate';
import { gateFlips } from '../../src/whatIf/shared/gateFlips';
import type { WhatIfResultRecord } from '../../src/whatIf/shared/whatIfRecord';
import type { TestCase } from './run';
import { openWebview } from './harness';
import { syntheticTrajectory } from './synthetic';

/** A result whose gates are the recorded ones shifted by `shift` (clamped), as a rescoring with another skill gives. */
export function shiftedResult(trajectory: ReturnType<typeof syntheticTrajectory>, skill: string, shift: number, weights = 'exports/step-000006-onnx'): WhatIfResultRecord {
  return {
    skill,
    export: weights,
    path: 'onnxruntime-node',
    provider: 'cpu',
    seconds: 1.25,
    beta: 5,
    temperature: 1,
    steps: trajectory.steps.map((step) => {
      const arrays = decodeTokenArrays(step.tokens!);
      const gate = Array.from(arrays.gate!, (g) => Math.min(0.999, Math.max(0.001, g + shift)));
      const delta = gate.map((g) => Math.log(g / (1 - g)) / 5);
      return { t: step.t, logp: Array.from(arrays.logp!), teacher_logp: Array.from(arrays.logp!, (l, i) => l + delta[i]!), delta, gate };
    }),
  };
}


export const whatIfTests: TestCase[] = [
  [
    'viewer: What if… sends the typed skill, shows recomputed gates beside the recorded ones with flips, compares skills, saves',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 3, tokensPerTurn: 30 });
      const view = await context.open('trajectory', { width: 1200, height: 1000 });
      await view.send('show', { runDir: '/runs/valid', run: 'valid', trajectory });
      await view.waitFor('rendered');
      assert.equal(await view.page.locator('#whatif').isHidden(), true);
      await view.page.locator('[data-action="what-if"]').click();
      const box = view.page.locator('.whatif-skill');
      assert.equal(await box.inputValue(), trajectory.skill!.text, 'starts from the recorded skill');
      await box.fill('Heat the mug <b>first</b>, then put it in the cabinet.');
      await view.page.locator('[data-action="whatif-rescore"]').click();
      const asked = await view.waitFor<{ skill: string }>('whatIf');
      assert.equal(asked.skill, 'Heat the mug <b>first</b>, then put it in the cabinet.');

      assert.equal(await view.page.locator('[data-action="whatif-rescore"]').isDisabled(), true, 'Rescore waits for the reply');
      const up = shiftedResult(trajectory, asked.skill, 0.2);
      await view.reply('whatIf', 1, { result: { kind: 'rescored', state: { results: [up] } } });
      const row = view.page.locator('.whatif-summary tr[data-result="0"]');
      const expected = summarizeGates(up.steps.map((s) => ({ gate: Float32Array.from(s.gate), delta: Float32Array.from(s.delta) })));
      assert.equal(await row.locator('[data-k="meanGate"]').textContent(), formatNumber(expected.meanGate));
      assert.equal(await row.locator('.skill-cell').textContent(), asked.skill, 'the skill is shown as text');
      // Per turn: recorded and recomputed rows of every token; exactly the tokens whose gate crossed 0.5 are marked.
      let ups = 0;
      for (let turn = 0; turn < 3; turn += 1) {
        const recorded = decodeTokenArrays(trajectory.steps[turn]!.tokens!).gate!;
        const flips = gateFlips(recorded, up.steps[turn]!.gate);
        const marked = await view.page.$$eval(`.whatif-turn[data-turn="${turn}"] .rescored .tok`, (spans) => spans.map((s) => (s.classList.contains('flip-up') ? 1 : s.classList.contains('flip-down') ? -1 : 0)));
        assert.deepEqual(marked, Array.from(flips), `turn ${turn}: flip marks`);
        assert.equal(await view.page.locator(`.whatif-turn[data-turn="${turn}"] .recorded .tok`).count(), 30);
        ups += flips.filter((f) => f === 1).length;
      }
      assert.ok(ups > 0, 'a +0.2 shift flips some tokens up');
      assert.equal(await row.locator('[data-k="flipsUp"]').textContent(), String(ups));
      assert.match((await view.page.locator('[data-k="whatif-status"]').textContent()) ?? '', /onnxruntime-node \(cpu\) in 1\.25 s with exports\/step-000006-onnx · not saved/);
      await context.screenshot(view, 'whatif');

      // A second skill: both rows stay, the newest is shown; choosing the first shows it again.
      const down = shiftedResult(trajectory, 'Never heat anything.', -0.2);
      await box.fill('Never heat anything.');
      await view.page.locator('[data-action="whatif-rescore"]').click();
      await view.reply('whatIf', 2, { result: { kind: 'rescored', state: { results: [up, down] } } });
      // a send is not a render: wait for the row the assertions read (the page re-renders on its next frame)
      await view.page.locator('.whatif-summary tr[data-result="1"]').waitFor();
      assert.equal(await view.page.locator('.whatif-summary tr[data-result]').count(), 3);
      assert.ok(Number(await view.page.locator('.whatif-summary tr[data-result="1"] [data-k="flipsDown"]').textContent()) > 0);
      assert.ok((await view.page.locator('.whatif-turns .flip-down').count()) > 0);
      await view.page.locator('.whatif-summary tr[data-result="0"] input').check();
      assert.equal(await view.page.locator('.whatif-turns .flip-down').count(), 0);

      await view.page.locator('[data-action="whatif-save"]').click();
      await view.reply('saveWhatIf', 1, { result: { results: [up, down], file: 'whatif/it-000007-0001.json' } });
      await view.page.locator('[data-k="whatif-status"]', { hasText: /saved in whatif\/it-000007-0001\.json/ }).waitFor({ timeout: 10_000 });
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
  [
    'viewer: the skill review\'s What if… opens the section with the reviewed skill typed in, rendered as text',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 2, tokensPerTurn: 10 });
      const view = await context.open('trajectory', { width: 1000, height: 800 });
      await view.send('show', { runDir: '/runs/valid', run: 'valid', trajectory });
      await view.waitFor('rendered');
      assert.equal(await view.page.locator('#whatif').isHidden(), true);
      const edited = 'Open the <img src=x onerror=alert(1)> fridge first.';
      await view.send('startWhatIf', { skill: edited });
      await view.page.locator('#whatif').waitFor({ state: 'visible', timeout: 5000 });
      assert.equal(await view.page.locator('.whatif-skill').inputValue(), edited);
      assert.equal(await view.page.locator('#whatif img').count(), 0);
      await view.page.locator('[data-action="whatif-rescore"]').click();
      assert.equal((await view.waitFor<{ skill: string }>('whatIf')).skill, edited);
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
  [
    'viewer: on weights that did not score the trajectory, flips are counted against the recorded skill on the same weights',
    async (context) => {
      // Update 7 was scored by step-000006; step-000010 is the nearest kept. The control (the recorded skill on
      // step-000010) and the typed skill both shift every gate by +0.3: against the recorded gates that is a weights
      // effect with many flips, against the control none.
      const trajectory = syntheticTrajectory({ turns: 3, tokensPerTurn: 30 });
      const view = await context.open('trajectory', { width: 1200, height: 1000 });
      await view.send('show', { runDir: '/runs/valid', run: 'valid', trajectory });
      await view.waitFor('rendered');
      await view.page.locator('[data-action="what-if"]').click();
      const control = shiftedResult(trajectory, trajectory.skill!.text!, 0.3, 'checkpoints/step-000010');
      const typed = shiftedResult(trajectory, 'Open the fridge last.', 0.3, 'checkpoints/step-000010');
      await view.send('whatIfState', { results: [control, typed] });
      await view.page.locator('.whatif-summary tr[data-result="1"]').waitFor();
      const controlRow = view.page.locator('.whatif-summary tr[data-result="0"]');
      const typedRow = view.page.locator('.whatif-summary tr[data-result="1"]');
      assert.equal(await controlRow.locator('[data-k="control"]').count(), 1, 'the control is named');
      assert.ok(Number(await controlRow.locator('[data-k="flipsUp"]').textContent()) > 0, 'the control differs from the recorded gates: the weights did');
      assert.equal(await typedRow.locator('[data-k="against"]').count(), 1);
      assert.equal(await typedRow.locator('[data-k="flipsUp"]').textContent(), '0');
      assert.equal(await typedRow.locator('[data-k="flipsDown"]').textContent(), '0');
      assert.equal(await view.page.locator('.whatif-turns .flip-up, .whatif-turns .flip-down').count(), 0);
      const labels = await view.page.locator('.whatif-turns .whatif-row.recorded .row-label').allTextContents();
      assert.deepEqual([...new Set(labels)], ['recorded skill, same weights']);
      assert.match((await view.page.locator('[data-k="whatif-weights"]').textContent()) ?? '', /step-000010 is the nearest kept, 4 updates after it/);
      await context.screenshot(view, 'whatif-control');
      assert.deepEqual(view.errors, []);
      assert.deepEqual(await view.violations(), []);
    },
  ],
  [
    'harness: under a 300 ms message delay a read right after send races; the waiting read the tests use does not',
    async (context) => {
      // Issue 52: the What if… test once read the status line right after sending "saved", before the page had the
      // message. The delay makes that race certain: the naive read sees the old text, the auto-waiting one the new.
      const trajectory = syntheticTrajectory({ turns: 2, tokensPerTurn: 10 });
      const view = await openWebview(context.browser, context.server, 'trajectory', { width: 1000, height: 700 }, { messageDelayMs: 300 });
      try {
        await view.send('show', { runDir: '/runs/valid', run: 'valid', trajectory });
        await view.waitFor('rendered');
        await view.page.locator('[data-action="what-if"]').click();
        await view.send('whatIfState', { results: [shiftedResult(trajectory, 'Open the fridge last.', 0.2)], file: 'whatif/it-000007-0001.json' });
        const raced = (await view.page.locator('[data-k="whatif-status"]').textContent()) ?? '';
        assert.doesNotMatch(raced, /saved in whatif/, 'the injected delay did not delay the message');
        await view.page.locator('[data-k="whatif-status"]', { hasText: /saved in whatif\/it-000007-0001\.json/ }).waitFor({ timeout: 10_000 });
        assert.deepEqual(view.errors, []);
      } finally {
        await view.close();
      }
    },
  ],
];
