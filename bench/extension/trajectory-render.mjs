#!/usr/bin/env node
// Render time of the trajectory viewer and the trajectory diff in headless Chromium, printed as JSON.
//
//   npm run build && node bench/extension/trajectory-render.mjs [--runs 7]
//
// Pages are served and stubbed exactly as in the webview tests (test/webview/harness.ts: the real bundle under the
// real CSP, a fake acquireVsCodeApi). Measured, each over fresh pages, median of the runs:
//   viewer   a 50-turn × 512-token trajectory (25 600 tokens, all four arrays): from posting the record into the page
//            to the webview's `rendered` report (decode, model, header, first rows drawn and measured), and to the next
//            painted frame; goal ≤ 150 ms.
//   baseline in the same browser and page: the naive way — all 25 600 tokens as coloured spans appended at once and
//            laid out (no virtualization). The ratio viewer / baseline is the figure to compare across machines.
//   scroll   the viewer scrolled top to bottom half a viewport at a time: time per step to the next frame.
//   diff     two 50-turn trajectories of one task (one inserted step): posting to `rendered`; and with every row's
//            tokens expanded (the worst case).
/* global window, document, requestAnimationFrame -- page functions run in Chromium */
import { createRequire } from 'node:module';
import os from 'node:os';

const require = createRequire(import.meta.url);
const { PageServer, launchChromium, openWebview } = require('../../out/test/webview/harness.js');
const { syntheticTrajectory } = require('../../out/test/webview/synthetic.js');
const { decodeTokenArrays } = require('../../out/src/runs/shared/tokenArrays.js');
const { binClass, binOf, heatScale } = require('../../out/src/trajectory/shared/colorScale.js');

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
const TURNS = 50;
const TOKENS = 512;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const round = (value, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Posts a host message with a timestamp taken in the page, waits for `rendered`, then for the next painted frame. */
async function timedShow(view, type, params) {
  await view.page.evaluate(
    ([t, p]) =>
      new Promise((resolve) => {
        window.__t0 = performance.now();
        window.postMessage({ type: t, params: p }, '*');
        resolve();
      }),
    [type, params],
  );
  const report = await view.waitFor('rendered', 1, 60_000);
  const timing = await view.page.evaluate(
    () =>
      new Promise((resolve) => {
        const rendered = window.__posted.find((p) => p.message.type === 'rendered');
        requestAnimationFrame(() => requestAnimationFrame(() => resolve({ toRendered: rendered.time - window.__t0, toFrame: performance.now() - window.__t0 })));
      }),
  );
  return { report, ...timing };
}

/** The naive render: every token a coloured span, appended at once, laid out. */
async function naiveRender(view, trajectory) {
  const scale = heatScale('gate');
  const turns = trajectory.steps.map((step) => {
    const arrays = decodeTokenArrays(step.tokens);
    return { text: arrays.text, classes: Array.from(arrays.gate, (g) => `tok ${binClass(scale.kind, binOf(scale, g))}`) };
  });
  return view.page.evaluate((data) => {
    const t0 = performance.now();
    const root = document.createElement('div');
    root.className = 'tokens';
    for (const turn of data) {
      const block = document.createElement('div');
      for (let i = 0; i < turn.text.length; i += 1) {
        const span = document.createElement('span');
        span.className = turn.classes[i];
        span.textContent = turn.text[i];
        block.append(span);
      }
      root.append(block);
    }
    document.body.append(root);
    void root.offsetHeight;
    const ms = performance.now() - t0;
    root.remove();
    return ms;
  }, turns);
}

async function scrollThrough(view) {
  return view.page.evaluate(async () => {
    const scroller = document.querySelector('.turns');
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const steps = [];
    for (let top = 0; top < scroller.scrollHeight - scroller.clientHeight; top += scroller.clientHeight / 2) {
      const t0 = performance.now();
      scroller.scrollTop = top;
      await frame();
      steps.push(performance.now() - t0);
    }
    return { steps, maxTurnsInDom: document.querySelectorAll('.turn[data-turn]').length };
  });
}

async function main() {
  const server = await PageServer.start();
  const browser = await launchChromium();
  const payload = (trajectory, run) => ({ runDir: `/runs/${run}`, run, trajectory });
  const viewer = { toRendered: [], toFrame: [], webviewMs: [] };
  const baseline = [];
  let report;
  let scroll;
  const trajectory = syntheticTrajectory({ turns: TURNS, tokensPerTurn: TOKENS, seed: 1 });
  for (let run = 0; run < RUNS; run += 1) {
    const view = await openWebview(browser, server, 'trajectory', { width: 1200, height: 800 });
    // Alternate the order so neither measurement always runs on a warmer page.
    if (run % 2 === 1) baseline.push(await naiveRender(view, trajectory));
    const shown = await timedShow(view, 'show', payload(trajectory, 'bench'));
    if (run % 2 === 0) baseline.push(await naiveRender(view, trajectory));
    viewer.toRendered.push(shown.toRendered);
    viewer.toFrame.push(shown.toFrame);
    viewer.webviewMs.push(shown.report.ms);
    report = shown.report;
    if (run === RUNS - 1) scroll = await scrollThrough(view);
    await view.close();
  }

  const actions = Array.from({ length: TURNS }, (_, t) => `go to place ${t}`);
  const a = syntheticTrajectory({ id: 'it-000001-0001', actions, seed: 1, tokensPerTurn: TOKENS, success: false });
  const b = syntheticTrajectory({ id: 'it-000002-0001', actions: [...actions.slice(0, 20), 'look', ...actions.slice(20, TURNS - 1)], seed: 2, tokensPerTurn: TOKENS });
  const diff = { toRendered: [], toFrame: [], expandAllMs: [] };
  let diffReport;
  for (let run = 0; run < RUNS; run += 1) {
    const view = await openWebview(browser, server, 'diff', { width: 1200, height: 800 });
    const shown = await timedShow(view, 'show', { a: payload(a, 'run-a'), b: payload(b, 'run-b') });
    diff.toRendered.push(shown.toRendered);
    diff.toFrame.push(shown.toFrame);
    diffReport = shown.report;
    diff.expandAllMs.push(
      await view.page.evaluate(() => {
        const t0 = performance.now();
        for (const button of [...document.querySelectorAll('.expand')]) button.click();
        void document.body.offsetHeight;
        return performance.now() - t0;
      }),
    );
    await view.close();
  }
  const version = browser.version();
  await browser.close();
  await server.close();

  const viewerMedian = median(viewer.toRendered);
  const baselineMedian = median(baseline);
  const result = {
    bench: 'trajectory-render',
    chromium: version,
    cpus: os.cpus().length,
    runs: RUNS,
    viewer: {
      turns: report.turns,
      tokens: report.tokens,
      tokens_in_dom_after_first_render: report.tokensInDom,
      turns_in_dom_after_first_render: report.turnsInDom,
      render_ms_median: round(viewerMedian),
      render_ms_runs: viewer.toRendered.map((v) => round(v)),
      render_ms_inside_webview_median: round(median(viewer.webviewMs)),
      first_frame_ms_median: round(median(viewer.toFrame)),
      goal_ms: 150,
      within_goal: viewerMedian <= 150,
    },
    baseline_naive_full_render: {
      what: `${report.tokens} coloured spans appended at once and laid out, no virtualization (same page)`,
      ms_median: round(baselineMedian),
      ms_runs: baseline.map((v) => round(v)),
    },
    ratio_viewer_to_baseline: round(viewerMedian / baselineMedian, 3),
    scroll: {
      steps: scroll.steps.length,
      step_to_frame_ms_median: round(median(scroll.steps)),
      step_to_frame_ms_p95: round(percentile(scroll.steps, 95)),
      step_to_frame_ms_max: round(Math.max(...scroll.steps)),
      max_turns_in_dom: scroll.maxTurnsInDom,
    },
    diff: {
      turns_a: a.steps.length,
      turns_b: b.steps.length,
      tokens: diffReport.tokens,
      rows: diffReport.rows,
      first_divergence_row: diffReport.firstDivergence,
      render_ms_median: round(median(diff.toRendered)),
      render_ms_runs: diff.toRendered.map((v) => round(v)),
      first_frame_ms_median: round(median(diff.toFrame)),
      expand_all_rows_tokens_ms_median: round(median(diff.expandAllMs)),
      ratio_to_baseline: round(median(diff.toRendered) / baselineMedian, 3),
    },
  };
  console.log(JSON.stringify(result, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
