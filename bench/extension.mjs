#!/usr/bin/env node
// Extension-side performance, printed as one JSON object. Each figure comes with a baseline measured in the same run
// (same process or same browser) and the ratio to it, and with the goal of issue 5.
//
//   npm run build && node bench/extension.mjs [--runs 7]
//
//   activation  require() of the bundle (dist/extension.js) + activate(), in fresh Node processes with a stub of the
//               `vscode` module (every API call returns at once, as VS Code's queued RPCs do; what is measured is the
//               extension's own work). Baseline: a minimal extension (one command) in the same stub. Goal ≤ 50 ms.
//   index       RunIndex.refresh() of a synthetic run of 200 updates × 128 trajectories (run.json, events, metrics,
//               the trajectory index: 25 600 rows, validated against the schemas and grouped for the runs tree), cold;
//               then one more update appended and read incrementally. Baseline: reading the same three JSONL files
//               and JSON.parse of every line, nothing else. Goal ≤ 1 s.
//   dashboard   the real dashboard bundle in headless Chromium (test/webview/harness: the page as VS Code serves it,
//               strict CSP, stubbed webview API) holding 1 000 000 points of one series: one live update = ingesting
//               the new row + one redraw (smoothing kept incrementally, min-max decimation to the canvas width,
//               chart.update), median over the runs. Baseline in the same browser: chart.js given the same 1 000 000
//               points without decimation (one update()); for reference also chart.js's own min-max decimation
//               plugin. Then the same with 5 runs of 200 000 points overlaid (one row appended to one of them),
//               against the plugin on the same five datasets. Goal ≤ 16 ms p95. Then `robust`: 1 000 000 points of a
//               loss (a chart whose y range is not fixed), updates with "Robust y" off, then on in the same page.
/* global window, document, Chart -- page functions run in Chromium */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
// `--only activation` (or index, dashboard): one part, e.g. to compare activation before and after a change.
const onlyArg = process.argv.indexOf('--only');
const ONLY = onlyArg > 0 ? process.argv[onlyArg + 1] : undefined;
const part = async (name, measure) => (ONLY === undefined || ONLY === name ? measure() : undefined);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const round = (value, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

// ---- activation -----------------------------------------------------------------------------------------------------

/** A `vscode` stand-in: any member is a callable, constructible object whose members are the same (never a thenable). */
const STUB = String.raw`
const path = require('node:path');
function thing(name) {
  const target = function () {};
  return new Proxy(target, {
    get(_t, key) {
      if (key === 'then') return undefined;
      if (key === Symbol.iterator) return function* () {};
      if (key === Symbol.toPrimitive) return () => name;
      if (key === 'dispose') return () => undefined;
      return thing(name + '.' + String(key));
    },
    set() { return true; },
    apply() { return thing(name + '()'); },
    construct() { return thing('new ' + name); },
  });
}
const uri = (fsPath) => ({ fsPath, path: fsPath, scheme: 'file', toString: () => 'file://' + fsPath, with: () => uri(fsPath) });
const api = {
  Uri: { file: uri, joinPath: (base, ...parts) => uri(path.join(base.fsPath, ...parts)), parse: (s) => uri(s) },
  Disposable: Object.assign(function () {}, { from: () => ({ dispose() {} }) }),
  workspace: namespace('workspace', {
    isTrusted: true, workspaceFolders: undefined, textDocuments: [], name: undefined,
    getConfiguration: () => ({ get: (_k, fallback) => fallback, inspect: () => undefined, has: () => false, update: async () => undefined }),
  }),
  // Plain data the API has at activation: no editor, no terminal.
  window: namespace('window', { activeTextEditor: undefined, visibleTextEditors: [], terminals: [], activeTerminal: undefined, state: { focused: true } }),
};
function namespace(name, values) {
  return new Proxy(values, { get: (t, k) => (k in t ? t[k] : thing(name + '.' + String(k))) });
}
// esbuild's interop copies the module's own keys once, so every namespace the bundle may touch is listed.
for (const name of ['window', 'commands', 'languages', 'extensions', 'env', 'debug', 'tasks', 'l10n', 'EventEmitter', 'ThemeIcon',
  'ThemeColor', 'TreeItem', 'TreeItemCollapsibleState', 'StatusBarAlignment', 'DiagnosticSeverity', 'Diagnostic', 'Range', 'Position',
  'Selection', 'Location', 'CompletionItem', 'CompletionItemKind', 'CompletionList', 'SnippetString', 'MarkdownString', 'Hover',
  'CodeLens', 'ProgressLocation', 'ConfigurationTarget', 'ExtensionMode', 'ViewColumn', 'CancellationError', 'CancellationTokenSource',
  'RelativePattern', 'WorkspaceEdit', 'FileType', 'TextEdit', 'EndOfLine', 'DocumentLink', 'FoldingRange', 'FoldingRangeKind',
  'SemanticTokensLegend', 'SemanticTokensBuilder', 'TextEditorRevealType', 'DecorationRangeBehavior', 'OverviewRulerLane',
  'CodeAction', 'CodeActionKind', 'SymbolKind', 'DocumentSymbol', 'UIKind', 'LogLevel', 'QuickPickItemKind', 'TabInputText',
  'TabInputWebview', 'TabInputCustom', 'TabInputNotebook', 'TabInputTextDiff', 'TabInputTextMultiDiff', 'TabInputTerminal', 'FileSystemError', 'Color', 'ColorThemeKind', 'InlayHint', 'TextDocumentSaveReason']) {
  if (!(name in api)) api[name] = thing(name);
}
module.exports = api;
`;

const CHILD = String.raw`
const Module = require('node:module');
const { performance } = require('node:perf_hooks');
const [stubFile, extensionFile, root] = process.argv.slice(2);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? stubFile : resolve.call(this, request, ...rest); };
const vscode = require(stubFile);
const t0 = performance.now();
const extension = require(extensionFile);
const t1 = performance.now();
const context = {
  subscriptions: [], extensionPath: root, extensionUri: vscode.Uri.file(root), extensionMode: 1,
  storageUri: vscode.Uri.file(require('node:os').tmpdir()), globalStorageUri: vscode.Uri.file(require('node:os').tmpdir()),
  workspaceState: { get: () => undefined, update: async () => undefined }, globalState: { get: () => undefined, update: async () => undefined },
};
extension.activate(context);
const t2 = performance.now();
process.stdout.write(JSON.stringify({ require: t1 - t0, activate: t2 - t1, total: t2 - t0 }) + '\n');
process.exit(0);
`;

const MINIMAL_EXTENSION = String.raw`
const vscode = require('vscode');
exports.activate = (context) => { context.subscriptions.push(vscode.commands.registerCommand('minimal.hello', () => 'hello')); };
`;

function benchActivation(scratch) {
  const stub = path.join(scratch, 'vscode-stub.cjs');
  const child = path.join(scratch, 'activate.cjs');
  const minimal = path.join(scratch, 'minimal-extension.cjs');
  writeFileSync(stub, STUB);
  writeFileSync(child, CHILD);
  writeFileSync(minimal, MINIMAL_EXTENSION);
  const measure = (extensionFile) => {
    const samples = [];
    for (let i = 0; i < RUNS; i += 1) {
      samples.push(JSON.parse(execFileSync(process.execPath, [child, stub, extensionFile, repoRoot], { encoding: 'utf8' }).trim()));
    }
    return samples;
  };
  const ours = measure(path.join(repoRoot, 'dist', 'extension.js'));
  const baseline = measure(minimal);
  const total = median(ours.map((s) => s.total));
  const baselineTotal = median(baseline.map((s) => s.total));
  return {
    ms: round(total),
    require_ms: round(median(ours.map((s) => s.require))),
    activate_ms: round(median(ours.map((s) => s.activate))),
    samples_ms: ours.map((s) => round(s.total)),
    baseline_minimal_extension_ms: round(baselineTotal, 3),
    over_baseline_ms: round(total - baselineTotal),
    ratio_to_baseline: round(total / baselineTotal, 1),
    bundle_bytes: statSync(path.join(repoRoot, 'dist', 'extension.js')).size,
    goal_ms: 50,
    meets_goal: total <= 50,
  };
}

// ---- index ------------------------------------------------------------------------------------------------------------

function syntheticRun(dir, updates, perUpdate) {
  mkdirSync(path.join(dir, 'trajectories'), { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid', 'run.json'), 'utf8'));
  Object.assign(manifest, { id: path.basename(dir), status: 'running', ended: null, progress: { step: updates, total: 150, unit: 'update' } });
  writeFileSync(path.join(dir, 'run.json'), JSON.stringify(manifest, null, 2));
  const types = ['pick_and_place', 'clean', 'heat', 'cool', 'examine', 'pick_two'];
  const lines = { events: [], metrics: [], index: [] };
  const update = (u) => {
    const time = new Date(Date.UTC(2026, 2, 1, 12) + u * 60_000).toISOString();
    const events = [`${JSON.stringify({ time, type: 'iteration', message: `update ${u}/${updates}: success 0.5`, step: u, total: updates, success: 0.5 })}\n`];
    const row = { step: u, time, kind: 'update', 'success/overall': 0.5, 'episode/length': 12.5, 'loss/pg': -0.01, 'loss/kl': 0.002, 'loss/entropy': 0.8, 'loss/opd': 0.024, 'gate/mean': 0.41, 'gate/frac_gt_half': 0.33, 'delta/mean': -0.2, 'opd/active_ratio': 0.61, 'skill/parse_rate': 0.9, 'time/rollout': 30, 'time/analysis': 8, 'time/teacher': 5, 'time/update': 20, 'time/step': 63 };
    for (const type of types) row[`success/${type}`] = 0.5;
    const metrics = [`${JSON.stringify(row)}\n`];
    const index = [];
    let offset = 0;
    for (let i = 0; i < perUpdate; i += 1) {
      const size = 150_000 + ((i * 7919) % 100_000);
      const type = types[(i >> 3) % types.length];
      index.push(
        `${JSON.stringify({ id: `it-${String(u).padStart(6, '0')}-${String(i + 1).padStart(4, '0')}`, file: `it-${String(u).padStart(6, '0')}.jsonl`, line: i + 1, offset, size, phase: 'train', update: u, task: { id: `household/${type}-${i >> 3}`, type, split: 'train' }, group: i >> 3, sample: i % 8, success: i % 3 === 0, reward: i % 3 === 0 ? 1 : 0, length: 5 + (i % 25), tokens: 900 + i, teacher: true, skill: { valid: i % 5 !== 0, source: 'self' } })}\n`,
      );
      offset += size;
    }
    return { events, metrics, index };
  };
  for (let u = 1; u <= updates; u += 1) {
    const part = update(u);
    lines.events.push(...part.events);
    lines.metrics.push(...part.metrics);
    lines.index.push(...part.index);
  }
  writeFileSync(path.join(dir, 'events.jsonl'), lines.events.join(''));
  writeFileSync(path.join(dir, 'metrics.jsonl'), lines.metrics.join(''));
  writeFileSync(path.join(dir, 'trajectories', 'index.jsonl'), lines.index.join(''));
  return update;
}

async function benchIndex(scratch) {
  const { RunIndex } = require('../out/src/runs/core/runIndex.js');
  const { RunSchemas } = require('../out/src/runs/core/schemas.js');
  const schemas = RunSchemas.load(path.join(repoRoot, 'schemas'));
  const UPDATES = 200;
  const PER_UPDATE = 128;
  const dir = path.join(scratch, '20260301-120000-train-bench');
  const nextUpdate = syntheticRun(dir, UPDATES, PER_UPDATE);
  const files = ['events.jsonl', 'metrics.jsonl', path.join('trajectories', 'index.jsonl')].map((f) => path.join(dir, f));
  const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);

  const cold = [];
  const baseline = [];
  let index;
  for (let i = 0; i < RUNS; i += 1) {
    // Alternate, so both see the same cache state.
    let t0 = performance.now();
    let parsed = 0;
    for (const file of files) {
      for (const line of readFileSync(file, 'utf8').split('\n')) if (line) parsed += JSON.parse(line) ? 1 : 0;
    }
    baseline.push(performance.now() - t0);
    t0 = performance.now();
    index = new RunIndex(dir, schemas);
    const change = await index.refresh();
    cold.push(performance.now() - t0);
    if (change.problems.length > 0 || index.trajectoryCount !== UPDATES * PER_UPDATE || parsed !== UPDATES * (PER_UPDATE + 2)) {
      throw new Error(`the synthetic run did not read back whole: ${change.problems[0] ?? index.trajectoryCount}`);
    }
  }
  // One more update, read incrementally by the index that holds the whole run.
  const incremental = [];
  for (let u = UPDATES + 1; u <= UPDATES + RUNS; u += 1) {
    const part = nextUpdate(u);
    appendFileSync(files[0], part.events.join(''));
    appendFileSync(files[1], part.metrics.join(''));
    appendFileSync(files[2], part.index.join(''));
    const t0 = performance.now();
    const change = await index.refresh();
    incremental.push(performance.now() - t0);
    if (change.trajectories.length !== PER_UPDATE) throw new Error('the incremental read missed rows');
  }
  const ms = median(cold);
  return {
    updates: UPDATES,
    trajectories_per_update: PER_UPDATE,
    index_rows: UPDATES * PER_UPDATE,
    bytes_read: bytes,
    ms: round(ms),
    samples_ms: cold.map((v) => round(v)),
    baseline_read_and_parse_ms: round(median(baseline)),
    ratio_to_baseline: round(ms / median(baseline)),
    incremental_update_ms: round(median(incremental)),
    incremental_over_cold: round(median(incremental) / ms, 4),
    goal_ms: 1000,
    meets_goal: ms <= 1000,
  };
}

// ---- dashboard --------------------------------------------------------------------------------------------------------

/** One live update in the dashboard page: `runCount` runs overlaid with `pointsPerRun` points each of one series
 * (`metric`); one metrics row appended to the first run, then one redraw. Returns the samples (ingest + redraw, ms);
 * with `robust` also those with "Robust y" turned on afterwards. */
async function dashboardUpdates(browser, server, runCount, pointsPerRun, metric = 'success/overall', robust = false) {
  const { openWebview } = require('../out/test/webview/harness.js');
  const view = await openWebview(browser, server, 'dashboard', { width: 1400, height: 900 });
  const runs = Array.from({ length: runCount }, (_, r) => ({ key: `/runs/bench-${r}`, id: `bench-${r}`, name: `bench ${r}`, stage: 'train', algorithm: 'seed', status: 'running' }));
  await view.send('runs', { overlaid: runs, available: runs });
  for (const run of runs) {
    await view.page.evaluate(
      ([key, n, r, name]) => {
        const rows = new Array(n);
        for (let i = 0; i < n; i += 1) rows[i] = { step: i + 1, time: '', kind: 'update', [name]: 0.5 + 0.4 * Math.sin(i / 5000 + r) * Math.random() };
        window.postMessage({ type: 'metrics', params: { run: key, rows, reset: true } }, '*');
      },
      [run.key, pointsPerRun, runs.indexOf(run), metric],
    );
  }
  await view.page.waitForFunction(
    ([n, count]) => window.__posted.some((p) => p.message.type === 'rendered' && Object.values(p.message.params.points).filter((v) => v >= n).length >= count),
    [pointsPerRun, runCount],
    { timeout: 300_000 },
  );
  // Let the four-per-second redraw limit pass, so each appended row is one redraw.
  await view.page.waitForTimeout(300);
  /** One row appended to the first run per sample (steps from `first` on), each followed by its redraw. */
  const measure = async (first) => {
    const updates = [];
    for (let i = 0; i < Math.max(RUNS, 15); i += 1) {
      const sample = await view.page.evaluate(
        ([key, step, name]) =>
          new Promise((resolve) => {
            const stats = window.__seedDashboard;
            const before = stats.renders;
            window.postMessage({ type: 'metrics', params: { run: key, rows: [{ step, time: '', kind: 'update', [name]: 0.5 }], reset: false } }, '*');
            const poll = () => (stats.renders > before ? resolve({ ingest: stats.ingestMs, render: stats.lastMs }) : setTimeout(poll, 5));
            poll();
          }),
        [runs[0].key, first + i, metric],
      );
      updates.push(sample);
    }
    return updates;
  };
  const updates = await measure(pointsPerRun + 1);
  // The same with "Robust y" on (a page without the toggle, an older build, has no such figure).
  let robustTotals;
  if (robust && (await view.page.locator('#robust-y').count())) {
    await view.page.locator('#robust-y').click();
    await view.page.waitForTimeout(300);
    robustTotals = (await measure(pointsPerRun + updates.length + 1)).map((u) => u.ingest + u.render);
  }
  const violations = await view.violations();
  const errors = view.errors.length;
  await view.close();
  return { totals: updates.map((u) => u.ingest + u.render), updates, robust: robustTotals, violations: violations.length, errors };
}

async function benchDashboard() {
  const { PageServer, launchChromium } = require('../out/test/webview/harness.js');
  const POINTS = 1_000_000;
  const OVERLAID = 5;
  const server = await PageServer.start();
  const browser = await launchChromium();
  try {
    const one = await dashboardUpdates(browser, server, 1, POINTS);
    const five = await dashboardUpdates(browser, server, OVERLAID, POINTS / OVERLAID);
    const loss = await dashboardUpdates(browser, server, 1, POINTS, 'loss/pg', true);

    // Baselines: chart.js alone, same browser, the same points (one dataset of 1M; five of 200k).
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.setContent('<!DOCTYPE html><html><body><div style="width:640px;height:220px"><canvas id="c"></canvas></div></body></html>');
    await page.addScriptTag({ path: path.join(repoRoot, 'node_modules', 'chart.js', 'dist', 'chart.umd.min.js') });
    const timeChart = (decimation, datasets) =>
      page.evaluate(
        ([n, runs, useDecimation, count]) => {
          const data = Array.from({ length: count }, (_, r) => {
            const points = new Array(n);
            for (let i = 0; i < n; i += 1) points[i] = { x: i + 1, y: 0.5 + 0.4 * Math.sin(i / 5000 + r) * Math.random() };
            return points;
          });
          const previous = Chart.getChart('c');
          if (previous) previous.destroy();
          const chart = new Chart(document.getElementById('c'), {
            type: 'line',
            data: { datasets: data.map((points) => ({ data: points, borderWidth: 1, pointRadius: 0 })) },
            options: {
              animation: false, parsing: false, normalized: true, responsive: true, maintainAspectRatio: false,
              scales: { x: { type: 'linear' }, y: { type: 'linear', min: 0, max: 1 } },
              plugins: { legend: { display: false }, tooltip: { enabled: false }, decimation: { enabled: useDecimation, algorithm: 'min-max' } },
            },
          });
          const samples = [];
          for (let i = 0; i < runs; i += 1) {
            // A new array each time (chart.js#11929: with decimation on, dataset.data is the decimated copy).
            const next = data[0].concat([{ x: n + i + 1, y: 0.5 }]);
            data[0] = next;
            const t0 = performance.now();
            chart.data.datasets[0].data = next;
            chart.update('none');
            samples.push(performance.now() - t0);
          }
          chart.destroy();
          return samples;
        },
        [POINTS / datasets, 5, decimation, datasets],
      );
    const plain = await timeChart(false, 1);
    const plugin = await timeChart(true, 1);
    const pluginFive = await timeChart(true, OVERLAID);
    await context.close();

    const ms = median(one.totals);
    const fiveMs = median(five.totals);
    return {
      update: 'one metrics row appended to a run of the page, then one redraw: ingest (parse into the typed series, smoothing) + redraw (decimation of every shown series to the canvas width, chart.update); the four-per-second redraw limit is not counted',
      points: POINTS,
      update_ms: round(ms),
      update_p95_ms: round(percentile(one.totals, 95)),
      ingest_ms: round(median(one.updates.map((u) => u.ingest)), 3),
      render_ms: round(median(one.updates.map((u) => u.render))),
      samples_ms: one.totals.map((v) => round(v)),
      baseline_chartjs_no_decimation_ms: round(median(plain)),
      ratio_to_baseline: round(ms / median(plain), 4),
      reference_chartjs_minmax_plugin_ms: round(median(plugin)),
      ratio_to_minmax_plugin: round(ms / median(plugin), 3),
      overlaid: {
        runs: OVERLAID,
        points_per_run: POINTS / OVERLAID,
        update_ms: round(fiveMs),
        update_p95_ms: round(percentile(five.totals, 95)),
        samples_ms: five.totals.map((v) => round(v)),
        reference_chartjs_minmax_plugin_ms: round(median(pluginFive)),
        ratio_to_minmax_plugin: round(fiveMs / median(pluginFive), 3),
      },
      robust: {
        metric: 'loss/pg',
        points: POINTS,
        update_ms: round(median(loss.totals)),
        update_p95_ms: round(percentile(loss.totals, 95)),
        ...(loss.robust
          ? {
              robust_update_ms: round(median(loss.robust)),
              robust_update_p95_ms: round(percentile(loss.robust, 95)),
              ratio_robust_to_plain: round(median(loss.robust) / median(loss.totals), 3),
            }
          : {}),
      },
      csp_violations: one.violations + five.violations + loss.violations,
      page_errors: one.errors + five.errors + loss.errors,
      chromium: browser.version(),
      goal_ms: 16,
      meets_goal: percentile(one.totals, 95) <= 16 && percentile(five.totals, 95) <= 16,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

// ---- main -------------------------------------------------------------------------------------------------------------

const scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-bench-extension-'));
try {
  const result = {
    bench: 'extension',
    runs: RUNS,
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, platform: `${process.platform}-${process.arch}` },
    activation: await part('activation', () => benchActivation(scratch)),
    index: await part('index', () => benchIndex(scratch)),
    dashboard: await part('dashboard', () => benchDashboard()),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
