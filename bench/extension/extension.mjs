#!/usr/bin/env node
// Extension-side performance, printed as one JSON object. Each figure comes with a baseline measured in the same run
// (same process or same browser) and the ratio to it, and with its goal (issue 5; issue 43's item 4 for activation,
// the dashboard's p95 and the heatmap's first frame).
//
//   npm run build && node bench/extension/extension.mjs [--runs 9] [--only activation|index|dashboard|heatmap] [--before DIR]
//
//   activation  require() of the bundle (dist/extension.js) + activate(), in fresh Node processes with a stub of the
//               `vscode` module (every API call returns at once, as VS Code's queued RPCs do; what is measured is the
//               extension's own work). Baseline: a minimal extension (one command) in the same stub. Also: the same
//               with the Node built-ins VS Code's extension host has loaded already (child_process, net, crypto, …)
//               loaded before the clock starts — the figure nearer to VS Code, where those cost nothing; and the
//               first use of a feature (require of dist/features.js and its activation, which activation defers).
//               With --before DIR, that checkout's built bundle is measured alternately with this one, process by
//               process (same load). Goal < 30 ms.
//   index       RunIndex.refresh() of a synthetic run of 200 updates × 128 trajectories (run.json, events, metrics,
//               the trajectory index: 25 600 rows, validated against the schemas and grouped for the runs tree), cold;
//               then one more update appended and read incrementally. Baseline: reading the same three JSONL files
//               and JSON.parse of every line, nothing else. Goal ≤ 1 s.
//   dashboard   the real dashboard bundle in headless Chromium (test/webview/harness: the page as VS Code serves it,
//               strict CSP, stubbed webview API) holding 1 000 000 points of one series. The measured update: one
//               metrics row appended to a run of the page, then the redraw it causes — ingest (into the typed series,
//               smoothing) + redraw (decimation of the changed series, chart.update, which draws the canvas, the
//               panels and legends) + the style and layout that redraw causes (forced at its end, timed) — over 60
//               rows, median and p95; the four-per-second redraw limit is not counted. Baseline in the same browser:
//               chart.js given the same 1 000 000 points without decimation (one update()); for reference also
//               chart.js's own min-max decimation plugin. Then the same with 5 runs of 200 000 points overlaid (one
//               row appended to one of them), against the plugin on the same five datasets. Goal ≤ 16 ms p95. Then
//               `robust`: 1 000 000 points of a loss (a chart whose y range is not fixed), updates with "Robust y"
//               off, then on in the same page.
//   heatmap     the trajectory viewer's first frame (the gate heatmap of the first turns) in headless Chromium, real
//               bundle: from posting the record into the page to the first painted frame after the view's `rendered`
//               report (two animation frames), for a trajectory of 20 turns × 48 tokens with a long prompt, one of
//               8 turns × 512 tokens, and one of 50 × 512 (25 600 tokens). Baseline in the same page: the naive
//               render of the same tokens (every token a coloured span, appended at once, laid out). Goal ≤ 100 ms.
/* global window, document, Chart, scheduler, requestAnimationFrame -- page functions run in Chromium */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
// `--only activation` (or index, dashboard): one part, e.g. to compare activation before and after a change.
const onlyArg = process.argv.indexOf('--only');
const ONLY = onlyArg > 0 ? process.argv[onlyArg + 1] : undefined;
// `--before DIR`: another checkout, built, whose activation is measured alternately with this one's.
const beforeArg = process.argv.indexOf('--before');
const BEFORE = beforeArg > 0 ? path.resolve(process.argv[beforeArg + 1]) : undefined;
// `--repeats N` (overlaid): rounds of the 5 × 200 k update, this checkout and --before's alternating in each.
const repeatsArg = process.argv.indexOf('--repeats');
const REPEATS = repeatsArg > 0 ? Number(process.argv[repeatsArg + 1]) : 3;
/** Samples of one live update (dashboard): enough for a p95 that is not the maximum of a handful. */
const UPDATES = 60;
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

// The Node built-ins VS Code's extension host has loaded before any extension (its IPC, proxy support, file service
// and process handling use them); an approximation, loaded before the clock starts in the `preloaded` figure.
const HOST_BUILTINS = ['child_process', 'crypto', 'events', 'fs', 'fs/promises', 'http', 'https', 'net', 'os', 'path', 'perf_hooks', 'stream', 'tls', 'url', 'util', 'zlib'];

const CHILD = String.raw`
const Module = require('node:module');
const { performance } = require('node:perf_hooks');
const [stubFile, extensionFile, root, preload] = process.argv.slice(2);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? stubFile : resolve.call(this, request, ...rest); };
const vscode = require(stubFile);
for (const name of preload ? preload.split(',') : []) require('node:' + name);
const t0 = performance.now();
const extension = require(extensionFile);
const t1 = performance.now();
const context = {
  subscriptions: [], extensionPath: root, extensionUri: vscode.Uri.file(root), extensionMode: 1,
  storageUri: vscode.Uri.file(require('node:os').tmpdir()), globalStorageUri: vscode.Uri.file(require('node:os').tmpdir()),
  workspaceState: { get: () => undefined, update: async () => undefined }, globalState: { get: () => undefined, update: async () => undefined },
};
const api = extension.activate(context);
const t2 = performance.now();
// The first use of a feature: reading the API's services loads the feature bundle where activation deferred it.
const lazy = api && typeof Object.getOwnPropertyDescriptor(api, 'services')?.get === 'function';
if (lazy) void api.services;
const t3 = performance.now();
process.stdout.write(JSON.stringify({ require: t1 - t0, activate: t2 - t1, total: t2 - t0, features: lazy ? t3 - t2 : null }) + '\n');
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
  const once = (extensionFile, root, preload = '') => JSON.parse(execFileSync(process.execPath, [child, stub, extensionFile, root, preload], { encoding: 'utf8' }).trim());
  const ours = { plain: [], preloaded: [] };
  const before = { plain: [], preloaded: [] };
  const baseline = [];
  // Interleaved, so every variant sees the same load.
  for (let i = 0; i < RUNS; i += 1) {
    ours.plain.push(once(path.join(repoRoot, 'dist', 'extension.js'), repoRoot));
    ours.preloaded.push(once(path.join(repoRoot, 'dist', 'extension.js'), repoRoot, HOST_BUILTINS.join(',')));
    baseline.push(once(minimal, repoRoot));
    if (BEFORE) {
      before.plain.push(once(path.join(BEFORE, 'dist', 'extension.js'), BEFORE));
      before.preloaded.push(once(path.join(BEFORE, 'dist', 'extension.js'), BEFORE, HOST_BUILTINS.join(',')));
    }
  }
  const summary = (samples) => ({ ms: round(median(samples.map((s) => s.total))), require_ms: round(median(samples.map((s) => s.require))), activate_ms: round(median(samples.map((s) => s.activate))) });
  const bundleBytes = (root) => statSync(path.join(root, 'dist', 'extension.js')).size;
  const featureBytes = (root) => (existsSync(path.join(root, 'dist', 'features.js')) ? statSync(path.join(root, 'dist', 'features.js')).size : null);
  const total = median(ours.plain.map((s) => s.total));
  const baselineTotal = median(baseline.map((s) => s.total));
  const features = ours.plain.map((s) => s.features).filter((v) => v !== null);
  return {
    ...summary(ours.plain),
    samples_ms: ours.plain.map((s) => round(s.total)),
    baseline_minimal_extension_ms: round(baselineTotal, 3),
    over_baseline_ms: round(total - baselineTotal),
    ratio_to_baseline: round(total / baselineTotal, 1),
    bundle_bytes: bundleBytes(repoRoot),
    preloaded_builtins: { what: `${HOST_BUILTINS.join(', ')} loaded before the clock starts, as in VS Code's extension host`, ...summary(ours.preloaded) },
    features_first_use: features.length ? { what: 'require of dist/features.js and its activation, on the first use of a feature', ms: round(median(features)), bundle_bytes: featureBytes(repoRoot) } : null,
    ...(BEFORE
      ? {
          before: {
            checkout: path.basename(BEFORE),
            ...summary(before.plain),
            preloaded_builtins: summary(before.preloaded),
            bundle_bytes: bundleBytes(BEFORE),
            ratio_after_to_before: round(total / median(before.plain.map((s) => s.total)), 3),
          },
        }
      : {}),
    goal_ms: 30,
    meets_goal: total < 30,
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
  const { RunIndex } = require('../../out/src/runs/core/runIndex.js');
  const { RunSchemas } = require('../../out/src/runs/core/schemas.js');
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
async function dashboardUpdates(browser, server, runCount, pointsPerRun, metric = 'success/overall', robust = false, checkout = repoRoot) {
  const { openWebview } = require(path.join(checkout, 'out', 'test', 'webview', 'harness.js'));
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
  // The style and layout a redraw causes, forced and timed right at its end (when the page reports `rendered`), so a
  // DOM change's cost counts in the update that made it rather than in whatever ran next.
  await view.page.evaluate(() => {
    const posted = window.__posted;
    const push = posted.push.bind(posted);
    window.__layoutMs = 0;
    posted.push = (entry) => {
      if (entry.message.type === 'rendered') {
        const t0 = performance.now();
        void document.body.offsetHeight;
        window.__layoutMs = performance.now() - t0;
      }
      return push(entry);
    };
  });
  /** One row appended to the first run per sample (steps from `first` on), each followed by its redraw. */
  const measure = async (first) => {
    const updates = [];
    for (let i = 0; i < UPDATES; i += 1) {
      const sample = await view.page.evaluate(
        ([key, step, name]) =>
          new Promise((resolve) => {
            const stats = window.__seedDashboard;
            const before = stats.renders;
            window.postMessage({ type: 'metrics', params: { run: key, rows: [{ step, time: '', kind: 'update', [name]: 0.5 }], reset: false } }, '*');
            const poll = () => (stats.renders > before ? resolve({ ingest: stats.ingestMs, render: stats.lastMs, layout: window.__layoutMs }) : setTimeout(poll, 5));
            poll();
          }),
        [runs[0].key, first + i, metric],
      );
      updates.push(sample);
      // Past the four-per-second redraw limit, so the next row is redrawn at once (and the page painted meanwhile).
      await view.page.waitForTimeout(260);
    }
    return updates;
  };
  const updates = await measure(pointsPerRun + 1);
  // The same with "Robust y" on (a page without the toggle, an older build, has no such figure).
  let robustTotals;
  if (robust && (await view.page.locator('#robust-y').count())) {
    await view.page.locator('#robust-y').click();
    await view.page.waitForTimeout(300);
    robustTotals = (await measure(pointsPerRun + updates.length + 1)).map((u) => u.ingest + u.render + u.layout);
  }
  const violations = await view.violations();
  const errors = view.errors.length;
  await view.close();
  const total = (u) => u.ingest + u.render + u.layout;
  return { totals: updates.map(total), updates, robust: robustTotals, violations: violations.length, errors };
}

async function benchDashboard() {
  const { PageServer, launchChromium } = require('../../out/test/webview/harness.js');
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
      update: `one metrics row appended to a run of the page, then the redraw it causes: ingest (into the typed series, smoothing) + redraw (decimation of the changed series, chart.update drawing the canvas, panels, legends) + the style and layout it causes (forced at its end); ${UPDATES} rows, each past the four-per-second redraw limit`,
      samples: UPDATES,
      points: POINTS,
      update_ms: round(ms),
      update_p95_ms: round(percentile(one.totals, 95)),
      ingest_ms: round(median(one.updates.map((u) => u.ingest)), 3),
      render_ms: round(median(one.updates.map((u) => u.render))),
      layout_ms: round(median(one.updates.map((u) => u.layout)), 3),
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

/** `--only overlaid`: the 5 × 200 k update alone, over --repeats rounds in one browser; with --before DIR that
 * checkout's built dashboard (its own harness serving its own dist/) in every round too, the order alternating, so
 * both see the same machine. Pooled median and p95 per checkout, and each round's. */
async function benchOverlaid() {
  const OVERLAID = 5;
  const POINTS = 200_000;
  const checkouts = { current: repoRoot, ...(BEFORE ? { before: BEFORE } : {}) };
  const servers = {};
  for (const [name, root] of Object.entries(checkouts)) servers[name] = await require(path.join(root, 'out', 'test', 'webview', 'harness.js')).PageServer.start();
  const { launchChromium } = require('../../out/test/webview/harness.js');
  const browser = await launchChromium();
  const rounds = Object.fromEntries(Object.keys(checkouts).map((name) => [name, []]));
  const parts = Object.fromEntries(Object.keys(checkouts).map((name) => [name, []]));
  let violations = 0;
  let errors = 0;
  const chromium = browser.version();
  try {
    for (let r = 0; r < REPEATS; r += 1) {
      const order = Object.keys(checkouts);
      if (r % 2 === 1) order.reverse();
      for (const name of order) {
        const result = await dashboardUpdates(browser, servers[name], OVERLAID, POINTS, 'success/overall', false, checkouts[name]);
        rounds[name].push(result.totals);
        parts[name].push(...result.updates);
        violations += result.violations;
        errors += result.errors;
      }
    }
  } finally {
    await browser.close();
    for (const server of Object.values(servers)) await server.close();
  }
  const summary = (samples) => ({ update_ms: round(median(samples)), update_p95_ms: round(percentile(samples, 95)) });
  const partsOf = (updates) =>
    Object.fromEntries(['ingest', 'render', 'layout'].flatMap((k) => [[`${k}_ms`, round(median(updates.map((u) => u[k])))], [`${k}_p95_ms`, round(percentile(updates.map((u) => u[k]), 95))]]));
  const result = {
    update: `5 runs × 200 000 points overlaid, one metrics row appended to the first, then its redraw (as dashboard.overlaid); ${UPDATES} rows per round, ${REPEATS} rounds, order alternating`,
    load_average: os.loadavg().map((v) => round(v)),
    goal_p95_ms: 16,
    csp_violations: violations,
    page_errors: errors,
    chromium,
  };
  for (const [name, perRound] of Object.entries(rounds)) {
    result[name] = { checkout: checkouts[name] === repoRoot ? 'this checkout' : '--before', ...summary(perRound.flat()), ...partsOf(parts[name]), rounds: perRound.map(summary), samples_ms: perRound.map((s) => s.map((v) => round(v))) };
  }
  result.meets_goal = result.current.update_p95_ms <= 16;
  if (BEFORE) result.ratio_p95_current_to_before = round(result.current.update_p95_ms / result.before.update_p95_ms, 3);
  return result;
}

// ---- heatmap ----------------------------------------------------------------------------------------------------------

/** A long first prompt (the task's instructions and first observation), as an agent trajectory starts. */
const PROMPT = `You are an agent in a household. Your task is to: heat some mug and put it in the cabinet.\n${'You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a cabinet 2, a countertop 1, a drawer 1, a fridge 1, a microwave 1, a sinkbasin 1 and a toaster 1. '.repeat(12)}`;

/** In the page: posts a message, and resolves with the time to the view's `rendered` report and to the first frame
 * painted after it: an animation frame, then a task queued from it at the highest priority (so it runs right after
 * that frame's style, layout and paint, before any work the page deferred past the frame). */
function firstFrame(view, type, params) {
  return view.page.evaluate(
    ([t, p]) =>
      new Promise((resolve) => {
        const posted = window.__posted;
        const push = posted.push.bind(posted);
        const t0 = performance.now();
        posted.push = (entry) => {
          if (entry.message.type === 'rendered') {
            const rendered = performance.now() - t0;
            requestAnimationFrame(() => scheduler.postTask(() => resolve({ rendered, frame: performance.now() - t0 }), { priority: 'user-blocking' }));
          }
          return push(entry);
        };
        window.postMessage({ type: t, params: p }, '*');
      }),
    [type, params],
  );
}

/** The baseline in the same page: every token of the trajectory a coloured span, appended at once, to the first frame. */
function naiveFirstFrame(view, turns) {
  return view.page.evaluate(
    (data) =>
      new Promise((resolve) => {
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
        requestAnimationFrame(() =>
          scheduler.postTask(
            () => {
              resolve(performance.now() - t0);
              root.remove();
            },
            { priority: 'user-blocking' },
          ),
        );
      }),
    turns,
  );
}

async function benchHeatmap() {
  const { PageServer, launchChromium, openWebview } = require('../../out/test/webview/harness.js');
  const { syntheticTrajectory } = require('../../out/test/webview/synthetic.js');
  const { decodeTokenArrays } = require('../../out/src/runs/shared/tokenArrays.js');
  const { binClass, binOf, heatScale } = require('../../out/src/trajectory/shared/colorScale.js');
  const cases = [
    { name: '20 turns × 48 tokens, long prompt', turns: 20, tokens: 48, prompt: true },
    { name: '8 turns × 512 tokens', turns: 8, tokens: 512 },
    { name: '50 turns × 512 tokens', turns: 50, tokens: 512 },
  ];
  const server = await PageServer.start();
  const browser = await launchChromium();
  const results = [];
  try {
    for (const c of cases) {
      const trajectory = syntheticTrajectory({ turns: c.turns, tokensPerTurn: c.tokens, seed: 3 });
      if (c.prompt) trajectory.steps[0].observation = PROMPT;
      const scale = heatScale('gate');
      const naive = trajectory.steps.map((step) => {
        const arrays = decodeTokenArrays(step.tokens);
        return { text: arrays.text, classes: Array.from(arrays.gate, (g) => `tok ${binClass(scale.kind, binOf(scale, g))}`) };
      });
      const viewer = [];
      const baseline = [];
      let report;
      for (let run = 0; run < Math.max(RUNS, 9); run += 1) {
        const view = await openWebview(browser, server, 'trajectory', { width: 1200, height: 800 });
        // Alternate the order so neither always runs on the warmer page.
        if (run % 2 === 1) baseline.push(await naiveFirstFrame(view, naive));
        viewer.push(await firstFrame(view, 'show', { runDir: '/runs/bench', run: 'bench', trajectory }));
        if (run % 2 === 0) baseline.push(await naiveFirstFrame(view, naive));
        report = (await view.posted()).find((p) => p.message.type === 'rendered').message.params;
        await view.close();
      }
      const frame = viewer.map((v) => v.frame);
      results.push({
        trajectory: c.name,
        tokens: report.tokens,
        tokens_in_dom: report.tokensInDom,
        first_frame_ms: round(median(frame)),
        first_frame_p95_ms: round(percentile(frame, 95)),
        rendered_ms: round(median(viewer.map((v) => v.rendered))),
        samples_ms: frame.map((v) => round(v)),
        baseline_naive_all_spans_ms: round(median(baseline)),
        ratio_to_baseline: round(median(frame) / median(baseline), 3),
        meets_goal: median(frame) <= 100,
      });
    }
    return {
      what: 'posting the trajectory into the viewer → the first frame painted after its `rendered` report (median over fresh pages); baseline: every token a coloured span appended at once, to the first frame, same page',
      cases: results,
      chromium: browser.version(),
      goal_ms: 100,
      meets_goal: results.every((r) => r.meets_goal),
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
    heatmap: await part('heatmap', () => benchHeatmap()),
    ...(ONLY === 'overlaid' ? { overlaid: await benchOverlaid() } : {}),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
