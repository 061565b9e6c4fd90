// Issue 41 item 4 in Chromium: on a near-deterministic policy most tokens have g within 1e-7 of ½. The viewer must
// make the few informative ones stand out (a clearly visible tint, in the gate and in the Δ mode alike) and say why
// the rest are uncoloured (a caption under the legend, with the counts).
import assert from 'node:assert/strict';
import { PALETTE } from '../../src/trajectory/shared/colorScale';
import { gateOfDelta } from '../../src/runs/shared/gate';
import { decodeTokenArrays } from '../../src/runs/shared/tokenArrays';
import { encodeFloat32 } from '../unit/support/tokenEncoding';
import type { Trajectory } from '../../src/runs/shared/types';
import type { TestCase } from './run';
import { syntheticTrajectory } from './synthetic';

/** 44 tokens: 33 the skill leaves unchanged (|Δ| ≈ 1e-7, as a peaked policy gives) and 11 it moves. */
function peakedTrajectory(): { trajectory: Trajectory; informative: Set<number> } {
  const trajectory = syntheticTrajectory({ turns: 1, tokensPerTurn: 44 });
  const step = trajectory.steps[0]!;
  const arrays = decodeTokenArrays(step.tokens!);
  const informative = new Set([2, 5, 9, 14, 20, 23, 27, 31, 36, 40, 42]);
  const moved = [0.3, -0.25, 0.12, 0.05, -0.4, 0.2, 0.08, -0.1, 0.6, -0.03, 0.15];
  const delta = Array.from({ length: 44 }, (_, i) => (informative.has(i) ? moved[[...informative].indexOf(i)]! : i % 2 ? 1e-7 : -1e-7));
  const logp = [...arrays.logp!];
  step.tokens = {
    ...step.tokens!,
    delta: encodeFloat32(delta),
    gate: encodeFloat32(delta.map((d) => gateOfDelta(d, 5))),
    teacher_logp: encodeFloat32(logp.map((l, i) => l + delta[i]!)),
  };
  return { trajectory, informative };
}

async function tints(page: import('playwright-core').Page): Promise<number[]> {
  return page.$$eval('.turn .tok', (spans) =>
    spans.map((span) => {
      const match = /rgba?\((?:\d+, ){3}([\d.]+)\)/.exec(getComputedStyle(span).backgroundColor);
      return match ? Number(match[1]) : getComputedStyle(span).backgroundColor.startsWith('rgb(') ? 1 : 0;
    }),
  );
}

export const neutralTokenTests: TestCase[] = [
  [
    'heatmap: the few informative tokens stand out in g and Δ, and a caption says why the rest are neutral',
    async (context) => {
      const { trajectory, informative } = peakedTrajectory();
      const view = await context.open('trajectory', { width: 1100, height: 700 });
      await view.send('show', { runDir: '/runs/peaked', run: 'peaked', trajectory });
      await view.waitFor('rendered');
      for (const mode of ['gate', 'delta'] as const) {
        if (mode === 'delta') await view.page.locator('.mode[data-mode="delta"]').click();
        const alpha = await tints(view.page);
        assert.equal(alpha.length, 44);
        const coloured = alpha.flatMap((a, i) => (a > 0 ? [i] : []));
        assert.deepEqual(coloured, [...informative], `${mode}: coloured tokens`);
        for (const i of informative) assert.ok(alpha[i]! >= PALETTE.minAlpha - 1e-3, `${mode}: token ${i} is tinted only ${alpha[i]}`);
        const caption = view.page.locator('[data-k="neutral-caption"]');
        assert.equal(await caption.getAttribute('data-coloured'), '11');
        assert.equal(await caption.getAttribute('data-total'), '44');
        const text = (await caption.textContent()) ?? '';
        assert.match(text, /Uncoloured: 33 of 44 tokens/);
        assert.match(text, mode === 'gate' ? /g ≈ ½/ : /Δ ≈ 0/);
        assert.match(text, /the skill leaves this token's probability unchanged/);
        await context.screenshot(view, `heatmap-neutral-caption-${mode}`);
      }
      assert.deepEqual(view.errors, []);
    },
  ],
];
