// Webview tests in headless Chromium with a stubbed VS Code API (harness.ts): the trajectory viewer's heatmap colours
// the right tokens with the right values, the hover card shows the numbers, modes / keyboard / copy work, the view is
// virtualized; the diff highlights the first divergence; the review posts decisions; a hostile corpus renders inert.
// Screenshots go to test-results/webview-*.png.
//
//   npm run build && node out/test/webview/run.js        (prints "webview (Chromium): N passed, M failed")
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { RunReader, RunSchemas, decodeTokenArrays, findSchemasDir, type TokenArrays, type Trajectory } from '../../src/runs/core';
import { diffTrajectories } from '../../src/diff/shared/align';
import { BINS, CENTER_BIN, binOf, colorOf, fittedScale, heatScale } from '../../src/trajectory/shared/colorScale';
import { strongestDisagreements } from '../../src/trajectory/shared/disagreement';
import { sharedRange, sparkColumns, sparkSummary, tokenAt, yOf } from '../../src/trajectory/shared/sparklineData';
import { formatNumber } from '../../src/trajectory/shared/format';
import { displayText } from '../../src/common/shared/inertText';
import { stepStats } from '../../src/trajectory/shared/turnStats';
import { PageServer, launchChromium, openWebview, repoRoot, resultsDir, type WebviewPage } from './harness';
import { HOSTILE_SHORT, hostileSkillRecords, hostileTrajectory } from './hostile';
import { syntheticTrajectory } from './synthetic';
import { reviewTests } from './review';
import { dashboardTests } from './dashboard';
import { inertTests } from './inert';
import { neutralTokenTests } from './neutralTokens';
import { tableTests } from './trajectoryTable';
import { whatIfTests } from './whatIf';
import { whatIfReloadTests } from './whatIfReload';
import { diffLabelTests } from './diffLabels';
import { skillMismatchTests } from './skillMismatch';
import { evalSamplesCompareTests } from './evalSamplesCompare';
import { runsTableGroupsTests } from './runsTableGroups';
import { dashboardGroupTests } from './dashboardGroups';
import { premiseTests } from './premise';

const LABEL = 'webview (Chromium)';
const fixtureRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
const reader = new RunReader(fixtureRun, schemas);

export interface Context {
  browser: Browser;
  server: PageServer;
  open(bundle: string, viewport?: { width: number; height: number }): Promise<WebviewPage>;
  screenshot(page: WebviewPage, name: string): Promise<void>;
}

export type TestCase = [name: string, body: (context: Context) => Promise<void>];

interface TokenView {
  i: number;
  text: string;
  background: string;
  className: string;
}

async function tokensOfTurn(view: WebviewPage, turn: number): Promise<TokenView[]> {
  return view.page.$$eval(`.turn[data-turn="${turn}"] .tok`, (spans) =>
    spans.map((span) => ({ i: Number(span.getAttribute('data-i')), text: span.textContent ?? '', background: getComputedStyle(span).backgroundColor, className: span.className })),
  );
}

function payload(trajectory: Trajectory, run = 'valid') {
  return { runDir: `/runs/${run}`, run, trajectory };
}

async function showTrajectory(context: Context, trajectory: Trajectory, viewport?: { width: number; height: number }): Promise<WebviewPage> {
  const view = await context.open('trajectory', viewport);
  await view.send('show', payload(trajectory));
  await view.waitFor('rendered');
  return view;
}

function arraysOf(trajectory: Trajectory, turn: number): TokenArrays {
  return decodeTokenArrays(trajectory.steps[turn]!.tokens!);
}

type Mode = 'gate' | 'delta' | 'teacher' | 'student';

function valuesOf(arrays: TokenArrays, mode: Mode): Float32Array | undefined {
  return { gate: arrays.gate, delta: arrays.delta, teacher: arrays.teacherLogp, student: arrays.logp }[mode];
}

/** The scale the viewer colours by: fitted to all the trajectory's values of the mode (default), or absolute. */
function viewerScale(trajectory: Trajectory, mode: Mode, absolute = false) {
  if (absolute) return heatScale(mode);
  return fittedScale(mode, trajectory.steps.map((step) => (step.tokens ? valuesOf(decodeTokenArrays(step.tokens), mode) : undefined)));
}

async function assertColouredBy(view: WebviewPage, trajectory: Trajectory, turn: number, mode: Mode, absolute = false): Promise<number> {
  const arrays = arraysOf(trajectory, turn);
  const values = valuesOf(arrays, mode)!;
  const scale = viewerScale(trajectory, mode, absolute);
  const tokens = await tokensOfTurn(view, turn);
  assert.equal(tokens.length, arrays.count, `turn ${turn}: ${tokens.length} token spans for ${arrays.count} tokens`);
  for (const token of tokens) {
    assert.equal(token.text, displayText(arrays.text[token.i]!), `turn ${turn} token ${token.i}: text`);
    assert.equal(token.background, colorOf(mode, values[token.i]!, scale), `turn ${turn} token ${token.i} (${mode} ${values[token.i]}): colour`);
  }
  return tokens.length;
}

const viewerTests: TestCase[] = [
  [
    'viewer: a well-formed action the environment answered "Nothing happens." is not called valid; the score explains itself',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 3, tokensPerTurn: 8, deltaWidth: 0.2 });
      trajectory.steps[0] = { ...trajectory.steps[0]!, valid: true, score: 0 };
      trajectory.steps[1] = { ...trajectory.steps[1]!, observation: 'Nothing happens.', valid: false, score: -0.1 };
      const view = await showTrajectory(context, trajectory);
      const badges = (turn: number) => view.page.$$eval(`.turn[data-turn="${turn}"] .turn-head [data-k="action"]`, (spans) => spans.map((s) => ({ text: s.textContent, title: (s as HTMLElement).title })));
      const first = await badges(0);
      assert.deepEqual(first.map((b) => b.text), ['well-formed', 'no effect'], JSON.stringify(first));
      assert.match(first[1]!.title, /Nothing happens/);
      assert.deepEqual((await badges(1)).map((b) => b.text), ['malformed']);
      assert.ok(!(await view.page.locator('.turn-head').first().textContent())?.includes('valid'));
      const score = await view.page.locator('.turn[data-turn="0"] [data-k="score"]').getAttribute('title');
      assert.match(score ?? '', /reward_scale \(10\) × the episode's success/);
      await context.screenshot(view, 'viewer-action-badges');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'viewer: the colour scale is fitted to the trajectory (g ≈ 0.5 ± 0.02 is visible), "a" switches to the absolute scale',
    async (context) => {
      // Gates as in the demo trajectory: within a few hundredths of 0.5, where the absolute scale colours nothing.
      const trajectory = syntheticTrajectory({ turns: 3, tokensPerTurn: 60, deltaWidth: 0.032 });
      const view = await showTrajectory(context, trajectory);
      const gates = trajectory.steps.map((step) => decodeTokenArrays(step.tokens!).gate!);
      const blank = (scale: ReturnType<typeof heatScale>) => gates.flatMap((g) => [...g]).filter((g) => binOf(scale, g) === CENTER_BIN).length / (3 * 60);
      assert.ok(blank(heatScale('gate')) > 0.9, `absolute scale leaves ${blank(heatScale('gate'))} blank`);
      assert.ok(blank(viewerScale(trajectory, 'gate')) < 0.2, `fitted scale leaves ${blank(viewerScale(trajectory, 'gate'))} blank`);
      for (let turn = 0; turn < 3; turn += 1) await assertColouredBy(view, trajectory, turn, 'gate');
      assert.equal(await view.page.locator('.legend').getAttribute('data-scale'), 'fitted');
      await context.screenshot(view, 'viewer-fitted-scale');
      await view.page.keyboard.press('a');
      assert.equal(await view.page.locator('.legend').getAttribute('data-scale'), 'absolute');
      for (let turn = 0; turn < 3; turn += 1) await assertColouredBy(view, trajectory, turn, 'gate', true);
      assert.equal(await view.page.locator('[data-action="scale"]').textContent(), 'Scale: absolute');
      await view.page.locator('[data-action="scale"]').click();
      await assertColouredBy(view, trajectory, 0, 'gate');
      // Dark theme: the body class switches the bins to the dark palette (lighter ends).
      await view.page.evaluate(() => document.body.classList.add('vscode-dark'));
      const top = await view.page.evaluate((bin) => {
        const probe = document.createElement('span');
        probe.className = `tok h-d${bin}`;
        document.body.append(probe);
        const colour = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return colour;
      }, BINS - 1);
      assert.equal(top, colorOf('gate', 1, heatScale('gate'), 'dark'));
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'viewer: "next strongest disagreement" walks the tokens by |Δ|, marks the token and shows its numbers',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 12, tokensPerTurn: 40 });
      const view = await showTrajectory(context, trajectory, { width: 1000, height: 500 });
      const order = strongestDisagreements(trajectory.steps.map((step) => decodeTokenArrays(step.tokens!).delta));
      for (let k = 0; k < 3; k += 1) {
        if (k === 0) await view.page.locator('[data-action="next-disagreement"]').click();
        else await view.page.keyboard.press('d');
        const target = order[k]!;
        const focused = view.page.locator('.tok.focus-token');
        assert.equal(await focused.count(), 1);
        assert.equal(await focused.getAttribute('data-i'), String(target.token));
        assert.equal(await focused.evaluate((span) => span.closest<HTMLElement>('[data-turn]')?.dataset.turn), String(target.turn));
        assert.equal(await view.page.locator('.token-card [data-k="delta"] .card-value').textContent(), formatNumber(target.delta));
        assert.match((await view.page.locator('#nav-status').textContent()) ?? '', new RegExp(`^Disagreement ${k + 1} of ${order.length}:`));
      }
      await view.page.keyboard.press('D');
      assert.equal(await view.page.locator('.tok.focus-token').getAttribute('data-i'), String(order[1]!.token));
      assert.ok(Math.abs(order[0]!.delta) >= Math.abs(order[1]!.delta) && Math.abs(order[1]!.delta) >= Math.abs(order[2]!.delta));
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'viewer: a Δ sparkline per turn on a shared scale; its peak is drawn and a click on it goes to that token',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 6, tokensPerTurn: 400 });
      const deltas = trajectory.steps.map((step) => decodeTokenArrays(step.tokens!).delta!);
      const range = sharedRange(deltas);
      const view = await showTrajectory(context, trajectory, { width: 1100, height: 700 });
      await context.screenshot(view, 'viewer-sparkline');
      const strips = view.page.locator('.turn[data-turn="0"] canvas.spark');
      assert.equal(await strips.count(), 1, 'turn 1 has one sparkline');
      const peak = sparkSummary(deltas[0]!);
      assert.equal(await strips.getAttribute('data-peak-token'), String(peak.peakToken));
      assert.equal(await strips.getAttribute('data-tokens'), '400');
      const label = (await strips.getAttribute('aria-label')) ?? '';
      assert.ok(label.includes(`strongest Δ ${formatNumber(peak.peak)} at token ${peak.peakToken + 1}`), label);
      assert.ok(label.includes(`±${formatNumber(range)}`), label);
      // The peak's column is painted to the height its Δ gives on the shared scale (above the line for Δ > 0).
      const peakColumn = sparkColumns(deltas[0]!, 240).filter((column) => column.token <= peak.peakToken).pop()!;
      const drawn = await strips.evaluate((canvas: HTMLCanvasElement, args: { x: number; y: number }) => {
        const ratio = canvas.width / 240;
        const data = canvas.getContext('2d')!.getImageData(Math.floor(args.x * ratio), Math.floor(args.y * ratio), 1, 1).data;
        return data[3]!;
      }, { x: (peakColumn.token / 400) * 240 + 0.5, y: yOf(peak.peak, range, 22) + (peak.peak > 0 ? 0.5 : -0.5) });
      assert.ok(drawn > 0, 'the peak column is not drawn');
      const blankTop = await strips.evaluate((canvas: HTMLCanvasElement) => {
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, 1).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted += 1;
        return painted;
      });
      assert.ok(blankTop <= 1, `${blankTop} pixels drawn on the top row: only the trajectory's largest |Δ| may reach it`);
      // A click at the peak's x goes to the token under the pointer, marks it and shows its Δ.
      const box = (await strips.boundingBox())!;
      const x = Math.round(((peak.peakToken + 0.5) / 400) * box.width);
      await strips.click({ position: { x, y: box.height / 2 } });
      // The pointer lands on a whole pixel: any token of that pixel's column (400 tokens on 240 px: 1–2 per pixel).
      const focused = view.page.locator('.turn[data-turn="0"] .tok.focus-token');
      const picked = Number(await focused.getAttribute('data-i'));
      assert.ok(Math.abs(picked - tokenAt(x, box.width, 400)) <= 2 && Math.abs(picked - peak.peakToken) <= 3, `clicked near token ${peak.peakToken}, went to ${picked}`);
      assert.equal(await view.page.locator('.token-card [data-k="delta"] .card-value').textContent(), formatNumber(deltas[0]![picked]!));
      // Turns without a teacher pass have no sparkline.
      const plain = await showTrajectory(context, syntheticTrajectory({ turns: 2, tokensPerTurn: 20, teacher: false }));
      assert.equal(await plain.page.locator('canvas.spark').count(), 0);
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'viewer: every generated token is coloured by its gate value, header and skill shown',
    async (context) => {
      const trajectory = await reader.findTrajectory('it-000001-0001');
      const view = await showTrajectory(context, trajectory);
      let total = 0;
      for (let turn = 0; turn < trajectory.steps.length; turn += 1) total += await assertColouredBy(view, trajectory, turn, 'gate');
      assert.equal(total, 73);
      const distinct = new Set((await tokensOfTurn(view, 0)).map((t) => t.background));
      assert.ok(distinct.size >= 3, `expected several colours, saw ${[...distinct].join(' ')}`);
      const fact = (key: string) => view.page.locator(`[data-fact="${key}"] .fact-value`).textContent();
      assert.equal(await fact('task'), 'household/heat-mug-3');
      assert.equal(await fact('reward'), '1');
      assert.equal(await fact('length'), '3');
      assert.equal(await fact('split'), 'train');
      assert.equal(await view.page.locator('.outcome').textContent(), 'success');
      assert.equal(await view.page.locator('[data-k="skill"]').textContent(), trajectory.skill!.text);
      assert.equal(await view.page.locator('[data-k="source"]').textContent(), 'source: self');
      assert.equal(await view.page.locator('.legend').getAttribute('data-mode'), 'gate');
      const stats = stepStats(trajectory.steps[0]!);
      assert.equal(await view.page.locator('.turn[data-turn="0"] [data-k="meanGate"]').textContent(), `mean g ${formatNumber(stats.meanGate)}`);
      assert.deepEqual(await view.violations(), []);
      await context.screenshot(view, 'viewer-heatmap');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'viewer: hovering a token shows Δ, g, ℓ^skill and ℓ^θ',
    async (context) => {
      const trajectory = await reader.findTrajectory('it-000001-0001');
      const view = await showTrajectory(context, trajectory);
      const arrays = arraysOf(trajectory, 1);
      for (const index of [0, 5, arrays.count - 1]) {
        await view.page.locator(`.turn[data-turn="1"] .tok[data-i="${index}"]`).hover();
        const card = view.page.locator('.token-card');
        await card.waitFor({ state: 'visible' });
        const value = (key: string) => card.locator(`[data-k="${key}"] .card-value`).textContent();
        assert.equal(await value('gate'), formatNumber(arrays.gate![index]));
        assert.equal(await value('delta'), formatNumber(arrays.delta![index]));
        assert.equal(await value('teacher'), formatNumber(arrays.teacherLogp![index]));
        assert.equal(await value('student'), formatNumber(arrays.logp![index]));
        assert.match((await card.locator('.card-where').textContent()) ?? '', new RegExp(`turn 2 · token ${index + 1} of ${arrays.count} · id ${arrays.ids[index]}`));
      }
      await context.screenshot(view, 'viewer-hover');
    },
  ],
  [
    'viewer: colour toggles (Δ, teacher, student) recolour the tokens; keyboard moves between turns; copy asks the host',
    async (context) => {
      const trajectory = await reader.findTrajectory('it-000001-0002');
      const view = await showTrajectory(context, trajectory);
      await view.page.locator('.mode[data-mode="delta"]').click();
      await assertColouredBy(view, trajectory, 0, 'delta');
      assert.equal(await view.page.locator('.legend').getAttribute('data-mode'), 'delta');
      await view.page.locator('.mode[data-mode="teacher"]').click();
      await assertColouredBy(view, trajectory, 1, 'teacher');
      await view.page.locator('.turns').focus();
      await view.page.keyboard.press('4');
      await assertColouredBy(view, trajectory, 2, 'student');
      assert.equal((await view.page.evaluate(() => (window as unknown as { __state: { mode: string } }).__state)).mode, 'student');
      await view.page.keyboard.press('1');
      await assertColouredBy(view, trajectory, 0, 'gate');

      await view.page.keyboard.press('j');
      await view.page.keyboard.press('j');
      assert.equal(await view.page.locator('.turn.current').getAttribute('data-turn'), '2');
      assert.equal(await view.page.evaluate(() => document.activeElement?.closest('.turn')?.getAttribute('data-turn')), '2');
      await view.page.keyboard.press('ArrowUp');
      assert.equal(await view.page.locator('.turn.current').getAttribute('data-turn'), '1');
      await view.page.keyboard.press('G');
      assert.equal(await view.page.locator('.turn.current').getAttribute('data-turn'), String(trajectory.steps.length - 1));
      assert.equal(await view.page.locator('#nav-status').textContent(), `Turn ${trajectory.steps.length} of ${trajectory.steps.length}`);
      await view.page.keyboard.press('g');
      assert.equal(await view.page.locator('.turn.current').getAttribute('data-turn'), '0');

      await view.page.locator('[data-action="copy"]').click();
      await view.waitFor('copyText');
      await view.page.locator('[data-action="compare"]').click();
      await view.waitFor('compare');
    },
  ],
  [
    'viewer: a token split inside a multi-byte character keeps its own (empty) coloured span; no teacher pass → student colours',
    async (context) => {
      const rows = (await reader.readTrajectoryIndex()).records.map((r) => r.value);
      let found: { trajectory: Trajectory; turn: number; index: number } | undefined;
      for (const row of rows.filter((r) => r.teacher)) {
        const trajectory = await reader.readTrajectory(row);
        trajectory.steps.forEach((step, turn) => {
          const index = step.tokens?.text.indexOf('') ?? -1;
          if (index >= 0 && !found) found = { trajectory, turn, index };
        });
      }
      assert.ok(found, 'the fixtures have a token split inside a character');
      const view = await showTrajectory(context, found.trajectory);
      await assertColouredBy(view, found.trajectory, found.turn, 'gate');
      const empty = view.page.locator(`.turn[data-turn="${found.turn}"] .tok[data-i="${found.index}"]`);
      assert.match((await empty.getAttribute('class')) ?? '', /\bempty\b/);
      const text = await view.page.locator(`.turn[data-turn="${found.turn}"] .tokens`).textContent();
      assert.equal(text, found.trajectory.steps[found.turn]!.tokens!.text.join(''));
      await empty.hover();
      assert.match((await view.page.locator('.token-card .card-token').textContent()) ?? '', /empty piece/);
      await view.close();

      const plain = await reader.findTrajectory('it-000001-0003');
      const second = await showTrajectory(context, plain);
      assert.equal(await second.page.locator('.mode[data-mode="gate"]').isDisabled(), true);
      assert.equal(await second.page.locator('.mode[data-mode="student"]').getAttribute('aria-checked'), 'true');
      await assertColouredBy(second, plain, 0, 'student');
      assert.match((await second.page.locator('[data-k="parse"]').textContent()) ?? '', /invalid/);
    },
  ],
  [
    'viewer: 50 turns × 512 tokens is virtualized, scrolls to the end, colours stay right',
    async (context) => {
      const trajectory = syntheticTrajectory({ turns: 50, tokensPerTurn: 512 });
      const view = await showTrajectory(context, trajectory);
      const report = await view.waitFor<{ ms: number; tokens: number; tokensInDom: number; turnsInDom: number; turns: number }>('rendered');
      assert.equal(report.tokens, 50 * 512);
      assert.equal(report.turns, 50);
      assert.ok(report.turnsInDom < 20, `${report.turnsInDom} turns in the DOM at first`);
      assert.ok(report.tokensInDom < 50 * 512 / 3, `${report.tokensInDom} token spans in the DOM at first`);
      await view.page.locator('.turns').focus();
      await view.page.keyboard.press('G');
      await assertColouredBy(view, trajectory, 49, 'gate');
      const inDom = await view.page.locator('.turn[data-turn]').count();
      assert.ok(inDom < 20, `${inDom} turns in the DOM at the end`);
      assert.equal(await view.page.locator('.turn[data-turn="0"]').count(), 0, 'turn 1 left the DOM');
      // Scrolling by hand through the middle draws the rows there.
      await view.page.evaluate(() => {
        const scroller = document.querySelector('.turns')!;
        scroller.scrollTop = scroller.scrollHeight / 2;
      });
      await view.page.waitForFunction(() => {
        const scroller = document.querySelector('.turns')!;
        const top = scroller.getBoundingClientRect().top + 10;
        return [...document.querySelectorAll('.turn[data-turn]')].some((row) => {
          const rect = row.getBoundingClientRect();
          return rect.top <= top && rect.bottom > top;
        });
      });
      await context.screenshot(view, 'viewer-50x512');
      assert.deepEqual(view.errors, []);
    },
  ],
];

const diffTests: TestCase[] = [
  [
    'diff: the first divergence of a success and a failure of one task is highlighted, with reward and gate deltas',
    async (context) => {
      const a = await reader.findTrajectory('it-000001-0001');
      const b = await reader.findTrajectory('it-000001-0002');
      const expected = diffTrajectories(a, b, a.steps.map(stepStats), b.steps.map(stepStats));
      assert.ok(expected.firstDivergence >= 0, 'the fixtures diverge');
      const view = await context.open('diff');
      await view.send('show', { a: payload(a), b: payload(b) });
      const report = await view.waitFor<{ rows: number; firstDivergence: number }>('rendered');
      assert.equal(report.rows, expected.rows.length);
      assert.equal(report.firstDivergence, expected.firstDivergence);
      const first = view.page.locator('.row.first-divergence');
      assert.equal(await first.count(), 1);
      assert.equal(await first.getAttribute('data-row'), String(expected.firstDivergence));
      assert.equal(await first.getAttribute('data-kind'), expected.rows[expected.firstDivergence]!.kind);
      assert.match((await first.textContent()) ?? '', /first divergence/);
      const kinds = await view.page.$$eval('.row', (rows) => rows.map((row) => row.getAttribute('data-kind')));
      assert.deepEqual(kinds, expected.rows.map((row) => row.kind));
      const sameRow = expected.rows.findIndex((row) => row.a !== undefined && row.b !== undefined);
      const delta = expected.deltas[sameRow]!;
      if (delta.meanGate !== null) {
        assert.match((await view.page.locator(`.row[data-row="${sameRow}"] [data-k="meanGate"]`).textContent()) ?? '', /^Δg [+−]?\d/);
      }
      assert.match((await view.page.locator('[data-k="counts"]').textContent()) ?? '', new RegExp(`^${expected.counts.same} same · ${expected.counts.changed} changed`));
      await first.locator('.expand').click();
      assert.ok((await view.page.locator(`.row[data-row="${expected.firstDivergence}"] .tok`).count()) > 0, 'tokens shown on demand');
      await context.screenshot(view, 'diff-fixture');
      await view.page.locator('[data-action="textDiff"]').click();
      await view.waitFor('openTextDiff');
      assert.deepEqual(view.errors, []);
    },
  ],
  [
    'diff: one inserted step does not cascade; 50-turn trajectories align',
    async (context) => {
      const actions = Array.from({ length: 50 }, (_, t) => `go to place ${t}`);
      const withExtra = [...actions.slice(0, 20), 'look', ...actions.slice(20, 49)];
      const a = syntheticTrajectory({ id: 'it-000001-0001', actions, seed: 1, success: false });
      const b = syntheticTrajectory({ id: 'it-000002-0001', actions: withExtra, seed: 2 });
      const view = await context.open('diff');
      await view.send('show', { a: payload(a, 'run-a'), b: payload(b, 'run-b') });
      await view.waitFor('rendered');
      const kinds = await view.page.$$eval('.row', (rows) => rows.map((row) => row.getAttribute('data-kind')));
      assert.equal(kinds.filter((k) => k === 'same').length, 49);
      assert.deepEqual(kinds.slice(0, 21), [...Array(20).fill('same'), 'inserted']);
      assert.equal(kinds[kinds.length - 1], 'removed');
      assert.equal(await view.page.locator('.row.first-divergence').getAttribute('data-row'), '20');
      assert.match((await view.page.locator('[data-k="divergence"]').textContent()) ?? '', /after 20 agreeing turns: turn 21 of B/);
      await context.screenshot(view, 'diff-inserted-step');
    },
  ],
];

const securityTests: TestCase[] = [
  [
    'security: the hostile corpus renders inert in the viewer and keeps the layout',
    async (context) => {
      const trajectory = hostileTrajectory();
      const view = await showTrajectory(context, trajectory, { width: 1000, height: 700 });
      await assertInert(view);
      assert.ok((await view.page.locator('.turn[data-turn="0"] .text').first().textContent())?.includes('<script>'), 'markup is shown as text');
      await view.page.locator('.turns').focus();
      for (let turn = 0; turn < 13; turn += 1) await view.page.keyboard.press('j');
      const bidi = await view.page.locator('.turn[data-turn="13"] .observation .text').textContent();
      assert.ok(bidi?.includes('⟦U+202E⟧'), `bidi override shown as a marker: ${bidi}`);
      // Scroll through every turn: each draws, nothing runs, the page does not widen.
      for (let turn = 0; turn < trajectory.steps.length; turn += 1) {
        await view.page.keyboard.press(turn === 0 ? 'g' : 'j');
      }
      await view.page.keyboard.press('G');
      const last = view.page.locator('.turn.final .more');
      assert.match((await last.textContent()) ?? '', /Show all/);
      await assertInert(view);
      await context.screenshot(view, 'security-viewer');
      await view.page.keyboard.press('g');
      await context.screenshot(view, 'security-viewer-top');
    },
  ],
  [
    'security: the hostile corpus renders inert in the diff and the review',
    async (context) => {
      const a = hostileTrajectory();
      const b = syntheticTrajectory({ turns: 5, tokensPerTurn: 24, seed: 3 });
      const view = await context.open('diff', { width: 1000, height: 700 });
      await view.send('show', { a: payload(a), b: payload(b) });
      await view.waitFor('rendered');
      for (const toggle of await view.page.locator('.expand').all()) await toggle.click();
      await assertInert(view);
      await context.screenshot(view, 'security-diff');
      const review = await context.open('review', { width: 1000, height: 700 });
      const records = hostileSkillRecords();
      await review.send('records', { file: 'skills.jsonl', run: 'valid', runDir: '/runs/valid', lines: records.map((record, index) => ({ line: index + 1, record })), problems: [], readOnly: null });
      await review.waitFor('rendered');
      await assertInert(review);
      await context.screenshot(review, 'security-review');
      // A run file the reader refuses (e.g. invalid UTF-8) reaches the viewer as an error message: shown as text too.
      const failed = await context.open('trajectory', { width: 1000, height: 700 });
      await failed.send('error', { message: `trajectories/it-000001.jsonl:1: not UTF-8 ${HOSTILE_SHORT}` });
      await failed.page.locator('[role="alert"]').waitFor();
      assert.match((await failed.page.locator('[role="alert"] pre').textContent()) ?? '', /not UTF-8 <script>/);
      await assertInert(failed);
    },
  ],
];

/** Nothing ran, nothing was loaded, no element or attribute came from the data, the page did not widen. */
async function assertInert(view: WebviewPage): Promise<void> {
  const report = await view.page.evaluate(() => {
    const w = window as unknown as { __pwned?: unknown; __alerts: number };
    const handlers: string[] = [];
    for (const element of document.querySelectorAll('*')) {
      for (const attribute of element.attributes) {
        if (/^on/i.test(attribute.name) || (/^(href|src|action|formaction|srcdoc|data|xlink:href|style)$/i.test(attribute.name) && /javascript:/i.test(attribute.value))) handlers.push(`${element.tagName} ${attribute.name}`);
      }
    }
    return {
      pwned: w.__pwned ?? null,
      alerts: w.__alerts,
      scripts: document.querySelectorAll('script').length,
      foreign: [...document.querySelectorAll('img, svg, iframe, a, style, link:not([rel="stylesheet"]), meta[http-equiv="refresh"], object, embed, form')].map((e) => e.tagName),
      stylesheets: document.querySelectorAll('link[rel="stylesheet"]').length,
      handlers,
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      bodyVisible: getComputedStyle(document.body).display !== 'none',
      background: getComputedStyle(document.body).backgroundColor,
    };
  });
  assert.equal(report.pwned, null, 'hostile script ran');
  assert.equal(report.alerts, 0, 'alert() was called');
  assert.equal(report.scripts, 1, 'only the bundle script exists');
  assert.deepEqual(report.foreign, [], 'elements from the data');
  assert.equal(report.stylesheets, 1, 'only the panel stylesheet');
  assert.deepEqual(report.handlers, [], 'event-handler attributes, or javascript: in a URL attribute');
  assert.ok(report.overflow <= 1, `the page is ${report.overflow}px wider than the viewport`);
  assert.ok(report.bodyVisible, 'body hidden by injected CSS');
  assert.notEqual(report.background, 'rgb(255, 0, 0)', 'background changed by injected CSS');
  assert.deepEqual(await view.violations(), [], 'CSP violations (something tried to load or run)');
  assert.deepEqual(view.errors, [], 'page errors');
}

async function main(): Promise<void> {
  const started = Date.now();
  mkdirSync(resultsDir, { recursive: true });
  const server = await PageServer.start();
  const browser = await launchChromium();
  const pages: WebviewPage[] = [];
  const context: Context = {
    browser,
    server,
    async open(bundle, viewport) {
      const page = await openWebview(browser, server, bundle, viewport);
      pages.push(page);
      return page;
    },
    async screenshot(view, name) {
      await view.page.screenshot({ path: path.join(resultsDir, `webview-${name}.png`) });
    },
  };
  const filter = process.env.SEED_TEST_GREP;
  const cases = [...viewerTests, ...whatIfTests, ...whatIfReloadTests, ...diffTests, ...diffLabelTests, ...skillMismatchTests, ...evalSamplesCompareTests, ...runsTableGroupsTests, ...premiseTests, ...reviewTests, ...dashboardTests, ...dashboardGroupTests, ...tableTests, ...securityTests, ...inertTests, ...neutralTokenTests].filter(([name]) => !filter || name.includes(filter));
  let passed = 0;
  let failed = 0;
  for (const [name, body] of cases) {
    const t0 = Date.now();
    try {
      await body(context);
      passed += 1;
      console.log(`  ✓ ${name} (${Date.now() - t0} ms)`);
    } catch (error) {
      failed += 1;
      console.log(`  ✗ ${name}\n    ${(error instanceof Error ? (error.stack ?? error.message) : String(error)).split('\n').join('\n    ')}`);
      const last = pages[pages.length - 1];
      if (last && !last.page.isClosed()) {
        await last.page.screenshot({ path: path.join(resultsDir, `webview-failure-${passed + failed}.png`) }).catch(() => undefined);
        if (last.errors.length) console.log(`    page errors: ${last.errors.join(' | ')}`);
      }
    } finally {
      for (const page of pages.splice(0)) await page.close().catch(() => undefined);
    }
  }
  await browser.close();
  await server.close();
  console.log(`${LABEL}: ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${path.relative(process.cwd(), resultsDir) || '.'}/webview-*.png`);
  console.log(`${LABEL}: ${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`${LABEL}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    console.log(`${LABEL}: 0 passed, 1 failed`);
    process.exit(1);
  });
}
