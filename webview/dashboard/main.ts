// The live dashboard: one chart per metric group (src/dashboard/shared/charts.ts), several runs overlaid, raw and smoothed
// values, step or wall-time x axis, zoom and log scale, min-max decimation to the canvas width, at most four redraws
// per second, colours from the VS Code theme; the evaluation panel and the run-comparison table above the charts.
// All text from runs (names, task types, config values) reaches the page through textContent or chart.js's canvas
// text, never as HTML.
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-multi-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import type { XAxis } from '../../src/dashboard/shared/axis';
import { DASHBOARD_CHARTS, chartOfSeries, isPerTaskType, metricPoints, seriesLabel } from '../../src/dashboard/shared/charts';
import { chartCsv, type CsvSeries } from '../../src/dashboard/shared/csv';
import { wilsonInterval, type EvalSummary, type Interval } from '../../src/dashboard/shared/evaluation';
import { finalMetrics, type FinalMetrics } from '../../src/dashboard/shared/runComparison';
import { SmoothedSeries, pyramidDecimate, type Point } from '../../src/dashboard/shared/series';
import { displayText, isolatedText } from '../../src/common/shared/inertText';
import { TO_DASHBOARD, type BeforeAfterView, type DashboardRun, type FromDashboard, type ToDashboard } from '../../src/dashboard/shared/protocol';
import type { MetricRow } from '../../src/runs/shared/types';
import { HostChannel } from '../shared/hostApi';
import { ChartView, cssVar, type LegendEntry, type SeriesDataset } from './chartView';
import { comparisonTable, evaluationPanel } from './panels';
import { beforeAfterPanel } from './beforeAfter';

const MIN_REDRAW_INTERVAL_MS = 250; // ≤ 4 redraws per second while live
const SMOOTHING_CHOICES = ['0', '0.6', '0.8', '0.9', '0.95', '0.99'];
const DASH_PATTERNS: number[][] = [[], [6, 3], [2, 2], [10, 3, 2, 3], [1, 3]];

interface SavedState {
  smoothing: number;
  perTaskType: boolean;
  /** The overlaid runs (their directories): the host restores the panel with them after a reload. */
  runs: string[];
  /** Series switched off in a legend (`<run>|<series>`). */
  hidden: string[];
  xAxis: XAxis;
  showRaw: boolean;
  logScale: boolean;
}

/** A metric's values against both x axes. */
interface SeriesPair {
  step: SmoothedSeries;
  time: SmoothedSeries;
}

interface RunData {
  run: DashboardRun;
  series: Map<string, SeriesPair>;
  points: number;
  /** Start of the run in ms (wall-time axis origin): run.json's start, else the first row's time. */
  origin: number | undefined;
  final: FinalMetrics;
  evaluations: EvalSummary[];
  /** Before/after per split, when the run links its base evaluations. */
  beforeAfter: BeforeAfterView[];
}

const channel = new HostChannel<ToDashboard, FromDashboard>(TO_DASHBOARD);
const saved = (channel.state ?? {}) as Partial<SavedState>;
const state: SavedState = {
  smoothing: saved.smoothing ?? 0.6,
  perTaskType: saved.perTaskType ?? true,
  runs: saved.runs ?? [],
  hidden: saved.hidden ?? [],
  xAxis: saved.xAxis ?? 'step',
  showRaw: saved.showRaw ?? true,
  logScale: saved.logScale ?? false,
};
const hidden = new Set(state.hidden);
let xRange: { min: number; max: number } | undefined;
const runs = new Map<string, RunData>();
let overlaid: DashboardRun[] = [];
let available: DashboardRun[] = [];
let renderTimer: ReturnType<typeof setTimeout> | undefined;
let lastRender = 0;
let panelsDirty = true;
const stats = { renders: 0, lastMs: 0, ingestMs: 0 };
(window as unknown as { __seedDashboard: typeof stats }).__seedDashboard = stats;

function saveState(): void {
  state.hidden = [...hidden];
  channel.state = state;
}

// ---- theme -------------------------------------------------------------------------------------------------------

function palette(): string[] {
  return [
    cssVar('--vscode-charts-blue', '#3794ff'),
    cssVar('--vscode-charts-orange', '#d18616'),
    cssVar('--vscode-charts-green', '#89d185'),
    cssVar('--vscode-charts-purple', '#b180d7'),
    cssVar('--vscode-charts-red', '#f14c4c'),
    cssVar('--vscode-charts-yellow', '#cca700'),
  ];
}

/** `#rrggbb` / `rgb()` at a lower opacity (the raw line under the smoothed one). */
function faded(colour: string): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(colour);
  if (hex) return `#${hex[1]}40`;
  return colour.replace(/^rgb\(([^)]+)\)$/, 'rgba($1, 0.25)');
}

// ---- layout ------------------------------------------------------------------------------------------------------

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function select(id: string, choices: ReadonlyArray<[value: string, label: string]>, current: string): HTMLElement & { value: string } {
  const control = document.createElement('vscode-single-select') as HTMLElement & { value: string };
  control.id = id;
  for (const [value, label] of choices) {
    const option = document.createElement('vscode-option') as HTMLElement;
    option.setAttribute('value', value);
    option.textContent = label;
    if (value === current) option.setAttribute('selected', '');
    control.appendChild(option);
  }
  return control;
}

function checkbox(id: string, label: string, checked: boolean): HTMLElement & { checked: boolean } {
  const box = document.createElement('vscode-checkbox') as HTMLElement & { checked: boolean };
  box.id = id;
  box.setAttribute('label', label);
  if (checked) box.setAttribute('checked', '');
  return box;
}

const root = document.getElementById('root') ?? document.body;
const toolbar = element('div', 'toolbar');
const runsSelect = document.createElement('vscode-multi-select') as HTMLElement & { value: string[] };
runsSelect.id = 'runs';
const smoothingSelect = select('smoothing', SMOOTHING_CHOICES.map((c) => [c, c === '0' ? 'none' : c]), String(state.smoothing));
const axisSelect = select('x-axis', [['step', 'step'], ['time', 'wall time']], state.xAxis);
const perTaskBox = checkbox('per-task-type', 'Per task type', state.perTaskType);
const rawBox = checkbox('show-raw', 'Raw', state.showRaw);
const logBox = checkbox('log-scale', 'Log y', state.logScale);
const resetZoom = element('button', 'reset-zoom', 'Reset zoom');
resetZoom.hidden = true;
const statusLine = element('span', 'status');
toolbar.append(
  element('vscode-label' as 'label', undefined, 'Runs'),
  runsSelect,
  element('vscode-label' as 'label', undefined, 'Smoothing'),
  smoothingSelect,
  element('vscode-label' as 'label', undefined, 'x'),
  axisSelect,
  perTaskBox,
  rawBox,
  logBox,
  resetZoom,
  statusLine,
);
const panels = element('div', 'panels');
const grid = element('div', 'grid');
const emptyNote = element('p', 'empty-note', 'Waiting for metrics…');
root.append(toolbar, emptyNote, panels, grid);

const charts: ChartView[] = DASHBOARD_CHARTS.map(
  (spec) =>
    new ChartView(spec, {
      toggle: (key) => {
        if (hidden.has(key)) hidden.delete(key);
        else hidden.add(key);
        saveState();
        markAllDirty();
      },
      zoom: (range) => {
        xRange = range;
        resetZoom.hidden = range === undefined;
        markAllDirty();
      },
      exportPng: (view) => {
        // The title names the runs (a legend label names its run only when several are overlaid).
        const names = overlaid.map((run) => isolatedText(run.name)).join(', ');
        if (view.chart) channel.post('export', { format: 'png', name: `${view.spec.id}.png`, data: view.exportImage(names ? `${view.spec.title} — ${names}` : view.spec.title) });
      },
      exportCsv: (view) => channel.post('export', { format: 'csv', name: `${view.spec.id}.csv`, data: chartCsv(state.xAxis === 'step' ? 'step' : 'minutes', csvSeries(view)) }),
    }),
);
for (const view of charts) grid.append(view.card);

// ---- data --------------------------------------------------------------------------------------------------------

function ingest(params: ToDashboard['metrics']): void {
  const started = performance.now();
  const data = runs.get(params.run);
  if (!data) return;
  if (params.reset) {
    data.series.clear();
    data.points = 0;
    data.final = finalMetrics([]);
    data.origin = data.run.started ? Date.parse(data.run.started) : undefined;
    for (const view of charts) view.dirty = true;
  }
  for (const row of params.rows) ingestRow(data, row);
  const final = finalMetrics(params.rows);
  data.final = {
    step: final.step ?? data.final.step,
    values: { ...data.final.values, ...final.values },
    evaluations: { ...data.final.evaluations, ...final.evaluations },
  };
  panelsDirty = true;
  stats.ingestMs = performance.now() - started;
  scheduleRender();
}

function ingestRow(data: RunData, row: MetricRow): void {
  const time = Date.parse(row.time);
  if (data.origin === undefined && Number.isFinite(time)) data.origin = time;
  const minutes = Number.isFinite(time) && data.origin !== undefined ? (time - data.origin) / 60_000 : Number.NaN;
  for (const point of metricPoints(row)) {
    let pair = data.series.get(point.series);
    if (!pair) {
      const smoothing = point.split === undefined ? state.smoothing : 0;
      pair = { step: new SmoothedSeries(smoothing), time: new SmoothedSeries(smoothing) };
      data.series.set(point.series, pair);
    }
    pair.step.push(point.x, point.y);
    if (!Number.isNaN(minutes)) pair.time.push(minutes, point.y);
    data.points += 1;
    const view = charts.find((c) => c.spec.id === point.chart);
    if (view) view.dirty = true;
  }
}

function scheduleRender(): void {
  if (renderTimer !== undefined) return;
  const wait = Math.max(0, MIN_REDRAW_INTERVAL_MS - (performance.now() - lastRender));
  renderTimer = setTimeout(() => {
    renderTimer = undefined;
    render();
  }, wait);
}

interface SeriesInView {
  run: DashboardRun;
  runIndex: number;
  name: string;
  seriesIndex: number;
  series: SmoothedSeries;
  key: string;
}

/** The series of a chart in drawing order (hidden ones included: the legend lists them). */
function seriesOf(view: ChartView): SeriesInView[] {
  const found: SeriesInView[] = [];
  overlaid.forEach((run, runIndex) => {
    const data = runs.get(run.key);
    if (!data) return;
    const names = [...data.series.keys()].filter((name) => chartOfSeries(name)?.id === view.spec.id).sort(seriesOrder);
    names.forEach((name, seriesIndex) => {
      if (isPerTaskType(name) && !state.perTaskType) return;
      const pair = data.series.get(name);
      const series = pair?.[state.xAxis];
      if (!series || series.raw.length === 0) return;
      found.push({ run, runIndex, name, seriesIndex, series, key: `${run.key}|${name}` });
    });
  });
  return found;
}

/** The Wilson interval of each point of an evaluation series (n from the run's latest report of that split). */
function intervalsOf(run: DashboardRun, name: string, points: Point[]): Array<Interval | undefined> {
  const match = /^eval:([^:]+):success\/(.+)$/.exec(name);
  const report = match ? runs.get(run.key)?.evaluations.find((e) => e.split === match[1]) : undefined;
  const n = match && report ? (match[2] === 'overall' ? report.overall.n : report.byType[match[2] ?? '']?.n) : undefined;
  return points.map((p) => (n ? wilsonInterval(Math.round(p.y * n), n) : undefined));
}

function datasetsFor(view: ChartView, width: number): { datasets: SeriesDataset[]; legend: LegendEntry[] } {
  const colours = palette();
  const many = overlaid.length > 1;
  const datasets: SeriesDataset[] = [];
  const legend: LegendEntry[] = [];
  const range = xRange ? { xMin: xRange.min, xMax: xRange.max } : undefined;
  for (const { run, runIndex, name, seriesIndex, series, key } of seriesOf(view)) {
    const isEval = name.startsWith('eval:');
    const perType = isPerTaskType(name);
    const colour = (many ? colours[runIndex % colours.length] : colours[seriesIndex % colours.length]) ?? '#888';
    const dash = many ? (DASH_PATTERNS[seriesIndex % DASH_PATTERNS.length] ?? []) : perType ? [4, 3] : [];
    const label = many ? `${isolatedText(run.name)} · ${displayText(seriesLabel(name))}` : displayText(seriesLabel(name));
    const off = hidden.has(key);
    legend.push({ key, label, colour, dash, hidden: off });
    if (off) continue;
    const smoothed = pyramidDecimate(isEval ? series.raw : series.smoothed, width, range);
    // A series of one point has no line to draw: it is drawn as a point (and evaluation series always are).
    const single = series.raw.length === 1;
    datasets.push({
      label,
      data: smoothed,
      borderColor: colour,
      backgroundColor: colour,
      borderWidth: perType ? 1 : 1.75,
      borderDash: dash,
      pointRadius: isEval || single ? 3 : 0,
      pointHoverRadius: 3,
      showLine: !isEval,
      parsing: false,
      normalized: true,
      spanGaps: true,
      ...(isEval ? { intervals: intervalsOf(run, name, smoothed) } : {}),
    } as SeriesDataset);
    if (state.showRaw && !isEval && series.smoothing > 0 && series.raw.length > 1) {
      datasets.push({
        label: `${label} (raw)`,
        data: pyramidDecimate(series.raw, width, range),
        borderColor: faded(colour),
        backgroundColor: faded(colour),
        borderWidth: 1,
        borderDash: dash,
        pointRadius: 0,
        parsing: false,
        normalized: true,
        spanGaps: true,
      } as SeriesDataset);
    }
  }
  return { datasets, legend };
}

function seriesOrder(a: string, b: string): number {
  const rank = (name: string): number => (name.endsWith('/overall') || name === 'time/total' ? 0 : 1);
  return rank(a) - rank(b) || a.localeCompare(b);
}

function csvSeries(view: ChartView): CsvSeries[] {
  return seriesOf(view)
    .filter((s) => !hidden.has(s.key))
    .map((s) => ({ run: s.run.name, series: displayText(seriesLabel(s.name)), xs: s.series.raw.xs.subarray(0, s.series.raw.length), raw: s.series.raw.ys.subarray(0, s.series.raw.length), smoothed: s.series.smoothed.ys.subarray(0, s.series.smoothed.length) }));
}

/** What to say when no chart has data: waiting, or why an ended run has none (a failed run says its error). */
function emptyText(): string {
  if (overlaid.length === 0) return 'No run selected: choose runs above.';
  const ended = overlaid.filter((run) => run.status !== 'running' && run.status !== 'stopping');
  if (ended.length < overlaid.length) return 'Waiting for metrics…';
  return ended
    .map((run) => `${run.name}: ${run.status}${run.error ? ` — ${run.error}` : ''}. It wrote no metrics.`)
    .join('\n');
}

function renderPanels(): void {
  panelsDirty = false;
  const rows = overlaid.map((run) => runs.get(run.key)).filter((d): d is RunData => d !== undefined);
  const panelRuns = rows.map((d) => ({ run: d.run, evaluations: d.evaluations, final: d.final }));
  const children: HTMLElement[] = [];
  const beforeAfter = beforeAfterPanel(rows.map((d) => ({ run: d.run, beforeAfter: d.beforeAfter })));
  if (beforeAfter) children.push(beforeAfter);
  if (panelRuns.length > 0) children.push(comparisonTable(panelRuns));
  const evaluation = evaluationPanel(panelRuns, state.perTaskType);
  if (evaluation) children.push(evaluation);
  panels.replaceChildren(...children);
}

function render(): void {
  const started = performance.now();
  let any = false;
  for (const view of charts) {
    const hasData = overlaid.some((run) => [...(runs.get(run.key)?.series.keys() ?? [])].some((name) => chartOfSeries(name)?.id === view.spec.id));
    view.card.hidden = !hasData;
    any ||= hasData;
    if (!hasData || !view.dirty) continue;
    view.dirty = false;
    const width = Math.max(50, Math.round(view.canvas.clientWidth || view.card.clientWidth || 400));
    const { datasets, legend } = datasetsFor(view, width);
    view.draw(datasets, legend, { xAxis: state.xAxis, logScale: state.logScale, xRange });
  }
  if (panelsDirty) renderPanels();
  emptyNote.hidden = any;
  if (!any) emptyNote.textContent = emptyText();
  lastRender = performance.now();
  stats.renders += 1;
  stats.lastMs = lastRender - started;
  const points: Record<string, number> = {};
  for (const [key, data] of runs) points[key] = data.points;
  channel.post('rendered', { points, renders: stats.renders, ms: stats.lastMs });
}

function markAllDirty(): void {
  for (const view of charts) view.dirty = true;
  panelsDirty = true;
  scheduleRender();
}

function describeStatus(): void {
  statusLine.textContent = overlaid.map((run) => `${isolatedText(run.name)}: ${run.status}`).join(' · ');
}

// ---- controls ----------------------------------------------------------------------------------------------------

function fillRunsSelect(): void {
  runsSelect.replaceChildren();
  const selected = new Set(overlaid.map((run) => run.key));
  for (const run of available) {
    const option = document.createElement('vscode-option') as HTMLElement;
    option.setAttribute('value', run.key);
    option.setAttribute('description', `${run.stage} · ${run.algorithm} · ${run.status}`);
    option.textContent = `${isolatedText(run.name)} (${isolatedText(run.id)})`;
    if (selected.has(run.key)) option.setAttribute('selected', '');
    runsSelect.appendChild(option);
  }
}

runsSelect.addEventListener('change', () => {
  const keys = Array.isArray(runsSelect.value) ? runsSelect.value : [];
  channel.post('overlay', { runs: keys });
});

smoothingSelect.addEventListener('change', () => {
  state.smoothing = Number(smoothingSelect.value) || 0;
  saveState();
  for (const data of runs.values()) {
    for (const [name, pair] of data.series) {
      if (name.startsWith('eval:')) continue;
      pair.step.setSmoothing(state.smoothing);
      pair.time.setSmoothing(state.smoothing);
    }
  }
  markAllDirty();
});

axisSelect.addEventListener('change', () => {
  state.xAxis = axisSelect.value === 'time' ? 'time' : 'step';
  xRange = undefined; // a range of steps means nothing in minutes
  resetZoom.hidden = true;
  saveState();
  markAllDirty();
});

const toggles: Array<[HTMLElement & { checked: boolean }, (on: boolean) => void]> = [
  [perTaskBox, (on) => (state.perTaskType = on)],
  [rawBox, (on) => (state.showRaw = on)],
  [logBox, (on) => (state.logScale = on)],
];
for (const [box, set] of toggles) {
  box.addEventListener('change', () => {
    set(Boolean(box.checked));
    saveState();
    markAllDirty();
  });
}

resetZoom.addEventListener('click', () => {
  xRange = undefined;
  resetZoom.hidden = true;
  markAllDirty();
});

new MutationObserver(() => {
  for (const view of charts) view.applyTheme();
  markAllDirty();
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(markAllDirty, 150);
});

// ---- messages ----------------------------------------------------------------------------------------------------

channel
  .on('runs', (params) => {
    overlaid = params.overlaid;
    available = params.available;
    const keep = new Set(overlaid.map((run) => run.key));
    for (const key of [...runs.keys()]) if (!keep.has(key)) runs.delete(key);
    for (const run of overlaid) {
      const data = runs.get(run.key);
      if (data) data.run = run;
      else runs.set(run.key, { run, series: new Map(), points: 0, origin: run.started ? Date.parse(run.started) : undefined, final: finalMetrics([]), evaluations: [], beforeAfter: [] });
    }
    state.runs = overlaid.map((run) => run.key);
    saveState();
    fillRunsSelect();
    describeStatus();
    markAllDirty();
  })
  .on('metrics', ingest)
  .on('status', (params) => {
    for (const run of [...overlaid, ...available]) {
      if (run.key !== params.run) continue;
      run.status = params.status;
      if (params.error) run.error = params.error;
    }
    describeStatus();
    panelsDirty = true;
    scheduleRender();
  })
  .on('evaluations', (params) => {
    const data = runs.get(params.run);
    if (!data) return;
    data.evaluations = params.reports;
    data.beforeAfter = params.beforeAfter ?? [];
    markAllDirty();
  });

channel.ready();
