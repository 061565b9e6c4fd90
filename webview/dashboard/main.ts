// The live dashboard: one chart per metric group (webview/…/charts), several runs overlaid, smoothing, min-max
// decimation to the canvas width, at most four redraws per second, colours from the VS Code theme. All text from
// runs (names, task types) reaches the page through textContent or chart.js's canvas text, never as HTML.
import {
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartDataset,
} from 'chart.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-multi-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import { DASHBOARD_CHARTS, metricPoints, seriesLabel, type ChartSpec } from '../../src/dashboard/charts';
import { SmoothedSeries, minMaxDecimate, type Point } from '../../src/dashboard/series';
import { HostChannel } from '../shared/hostApi';
import { TO_DASHBOARD, type DashboardRun, type FromDashboard, type ToDashboard } from '../../src/protocol/dashboardProtocol';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, CategoryScale, Legend, Tooltip);

const MIN_REDRAW_INTERVAL_MS = 250; // ≤ 4 redraws per second while live
const SMOOTHING_CHOICES = ['0', '0.6', '0.8', '0.9', '0.95', '0.99'];
const DASH_PATTERNS: number[][] = [[], [6, 3], [2, 2], [10, 3, 2, 3], [1, 3]];

interface SavedState {
  smoothing: number;
  perTaskType: boolean;
  /** The overlaid runs (their directories): the host restores the panel with them after a reload. */
  runs: string[];
}

interface RunData {
  run: DashboardRun;
  /** series name → smoothed series */
  series: Map<string, SmoothedSeries>;
  points: number;
}

interface ChartView {
  spec: ChartSpec;
  card: HTMLElement;
  canvas: HTMLCanvasElement;
  chart: Chart | undefined;
  dirty: boolean;
}

const channel = new HostChannel<ToDashboard, FromDashboard>(TO_DASHBOARD);
const saved = (channel.state ?? {}) as Partial<SavedState>;
const state: SavedState = { smoothing: saved.smoothing ?? 0.6, perTaskType: saved.perTaskType ?? true, runs: saved.runs ?? [] };
const runs = new Map<string, RunData>();
let overlaid: DashboardRun[] = [];
let available: DashboardRun[] = [];
const charts: ChartView[] = [];
let renderTimer: ReturnType<typeof setTimeout> | undefined;
let lastRender = 0;
const stats = { renders: 0, lastMs: 0, ingestMs: 0 };
(window as unknown as { __seedDashboard: typeof stats }).__seedDashboard = stats;

// ---- theme -------------------------------------------------------------------------------------------------------

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

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

function applyThemeToChart(chart: Chart): void {
  const foreground = cssVar('--vscode-charts-foreground', cssVar('--vscode-foreground', '#cccccc'));
  const grid = cssVar('--vscode-charts-lines', 'rgba(128,128,128,0.25)');
  for (const scale of Object.values(chart.options.scales ?? {})) {
    if (!scale) continue;
    scale.ticks = { ...scale.ticks, color: foreground };
    scale.grid = { ...scale.grid, color: grid };
    if ('title' in scale && scale.title) scale.title.color = foreground;
  }
  if (chart.options.plugins?.legend?.labels) chart.options.plugins.legend.labels.color = foreground;
}

// ---- layout ------------------------------------------------------------------------------------------------------

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const root = document.getElementById('root') ?? document.body;
const toolbar = element('div', 'toolbar');
const runsLabel = element('vscode-label' as 'label', undefined, 'Runs');
const runsSelect = document.createElement('vscode-multi-select') as HTMLElement & { value: string[] };
runsSelect.id = 'runs';
const smoothingLabel = element('vscode-label' as 'label', undefined, 'Smoothing');
const smoothingSelect = document.createElement('vscode-single-select') as HTMLElement & { value: string };
smoothingSelect.id = 'smoothing';
for (const choice of SMOOTHING_CHOICES) {
  const option = document.createElement('vscode-option') as HTMLElement & { value: string };
  option.setAttribute('value', choice);
  option.textContent = choice === '0' ? 'none' : choice;
  if (Number(choice) === state.smoothing) option.setAttribute('selected', '');
  smoothingSelect.appendChild(option);
}
const perTaskBox = document.createElement('vscode-checkbox') as HTMLElement & { checked: boolean };
perTaskBox.id = 'per-task-type';
perTaskBox.setAttribute('label', 'Per task type');
if (state.perTaskType) perTaskBox.setAttribute('checked', '');
const statusLine = element('span', 'status');
toolbar.append(runsLabel, runsSelect, smoothingLabel, smoothingSelect, perTaskBox, statusLine);
const grid = element('div', 'grid');
const emptyNote = element('p', 'empty-note', 'Waiting for metrics…');
root.append(toolbar, emptyNote, grid);

for (const spec of DASHBOARD_CHARTS) {
  const card = element('section', 'card');
  card.dataset.chart = spec.id;
  card.append(element('h3', undefined, spec.title));
  const holder = element('div', 'canvas-holder');
  const canvas = element('canvas');
  holder.append(canvas);
  card.append(holder);
  card.hidden = true;
  grid.append(card);
  charts.push({ spec, card, canvas, chart: undefined, dirty: false });
}

// ---- data --------------------------------------------------------------------------------------------------------

function runData(key: string): RunData | undefined {
  return runs.get(key);
}

function ingest(params: ToDashboard['metrics']): void {
  const started = performance.now();
  const data = runData(params.run);
  if (!data) return;
  if (params.reset) {
    for (const series of data.series.values()) series.clear();
    data.points = 0;
    for (const view of charts) view.dirty = true;
  }
  for (const row of params.rows) {
    for (const point of metricPoints(row)) {
      let series = data.series.get(point.series);
      if (!series) {
        series = new SmoothedSeries(point.split === undefined ? state.smoothing : 0);
        data.series.set(point.series, series);
      }
      series.push(point.x, point.y);
      data.points += 1;
      const view = charts.find((c) => c.spec.id === point.chart);
      if (view) view.dirty = true;
    }
  }
  stats.ingestMs = performance.now() - started;
  scheduleRender();
}

function scheduleRender(): void {
  if (renderTimer !== undefined) return;
  const wait = Math.max(0, MIN_REDRAW_INTERVAL_MS - (performance.now() - lastRender));
  renderTimer = setTimeout(() => {
    renderTimer = undefined;
    render();
  }, wait);
}

function datasetsFor(view: ChartView, width: number): ChartDataset<'line', Point[]>[] {
  const colours = palette();
  const many = overlaid.length > 1;
  const datasets: ChartDataset<'line', Point[]>[] = [];
  overlaid.forEach((run, runIndex) => {
    const data = runData(run.key);
    if (!data) return;
    const names = [...data.series.keys()].filter((name) => seriesChart(name) === view.spec.id).sort(seriesOrder);
    names.forEach((name, seriesIndex) => {
      const series = data.series.get(name);
      if (!series || series.raw.length === 0) return;
      const isEval = name.startsWith('eval:');
      const isPerType = view.spec.id === 'success' && !name.endsWith('/overall') && !isEval;
      if (isPerType && !state.perTaskType) return;
      const colour = many ? colours[runIndex % colours.length] : colours[seriesIndex % colours.length];
      const label = many ? `${run.name} · ${seriesLabel(name)}` : seriesLabel(name);
      const points = isEval ? minMaxDecimate(series.raw, width) : minMaxDecimate(series.smoothed, width);
      datasets.push({
        label,
        data: points,
        borderColor: colour,
        backgroundColor: colour,
        borderWidth: isPerType ? 1 : 1.75,
        borderDash: many ? (DASH_PATTERNS[seriesIndex % DASH_PATTERNS.length] ?? []) : isPerType ? [4, 3] : [],
        pointRadius: isEval ? 3 : 0,
        pointHoverRadius: 3,
        showLine: !isEval,
        parsing: false,
        normalized: true,
        spanGaps: true,
      } as ChartDataset<'line', Point[]>);
    });
  });
  return datasets;
}

function seriesChart(name: string): string | undefined {
  const metric = name.startsWith('eval:') ? name.replace(/^eval:[^:]+:/, '') : name;
  return DASHBOARD_CHARTS.find((chart) => chart.metrics.some((m) => (m.endsWith('/') ? metric.startsWith(m) : metric === m)))?.id;
}

function seriesOrder(a: string, b: string): number {
  const rank = (name: string): number => (name.startsWith('eval:') ? 2 : name.endsWith('/overall') || name === 'time/total' ? 0 : 1);
  return rank(a) - rank(b) || a.localeCompare(b);
}

function createChart(view: ChartView): Chart {
  const chart = new Chart(view.canvas, {
    type: 'line',
    data: { datasets: [] },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      elements: { point: { radius: 0 }, line: { tension: 0 } },
      scales: {
        x: { type: 'linear', title: { display: true, text: 'step' }, ticks: { maxTicksLimit: 8 } },
        y: { type: 'linear', ...(view.spec.fraction ? { min: 0, max: 1 } : {}), ticks: { maxTicksLimit: 6 } },
      },
      plugins: {
        legend: { display: true, position: 'bottom', labels: { boxWidth: 12, boxHeight: 2, font: { size: 11 } } },
        tooltip: { enabled: true },
      },
    },
  });
  applyThemeToChart(chart);
  return chart;
}

function render(): void {
  const started = performance.now();
  let any = false;
  for (const view of charts) {
    const hasData = overlaid.some((run) => [...(runData(run.key)?.series.keys() ?? [])].some((name) => seriesChart(name) === view.spec.id));
    view.card.hidden = !hasData;
    any ||= hasData;
    if (!hasData || !view.dirty) continue;
    view.dirty = false;
    const width = Math.max(50, Math.round(view.canvas.clientWidth || view.card.clientWidth || 400));
    view.chart ??= createChart(view);
    view.chart.data.datasets = datasetsFor(view, width);
    view.chart.update('none');
  }
  emptyNote.hidden = any;
  lastRender = performance.now();
  stats.renders += 1;
  stats.lastMs = lastRender - started;
  const points: Record<string, number> = {};
  for (const [key, data] of runs) points[key] = data.points;
  channel.post('rendered', { points, renders: stats.renders, ms: stats.lastMs });
}

function markAllDirty(): void {
  for (const view of charts) view.dirty = true;
  scheduleRender();
}

function describeStatus(): void {
  statusLine.textContent = overlaid.map((run) => `${run.name}: ${run.status}`).join(' · ');
}

// ---- controls ----------------------------------------------------------------------------------------------------

function fillRunsSelect(): void {
  runsSelect.replaceChildren();
  const selected = new Set(overlaid.map((run) => run.key));
  for (const run of available) {
    const option = document.createElement('vscode-option') as HTMLElement;
    option.setAttribute('value', run.key);
    option.setAttribute('description', `${run.stage} · ${run.algorithm} · ${run.status}`);
    option.textContent = `${run.name} (${run.id})`;
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
  channel.state = state;
  for (const data of runs.values()) {
    for (const [name, series] of data.series) if (!name.startsWith('eval:')) series.setSmoothing(state.smoothing);
  }
  markAllDirty();
});

perTaskBox.addEventListener('change', () => {
  state.perTaskType = Boolean(perTaskBox.checked);
  channel.state = state;
  markAllDirty();
});

new MutationObserver(() => {
  for (const view of charts) if (view.chart) applyThemeToChart(view.chart);
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
      else runs.set(run.key, { run, series: new Map(), points: 0 });
    }
    state.runs = overlaid.map((run) => run.key);
    channel.state = state;
    fillRunsSelect();
    describeStatus();
    markAllDirty();
  })
  .on('metrics', ingest)
  .on('status', (params) => {
    for (const run of [...overlaid, ...available]) if (run.key === params.run) run.status = params.status;
    describeStatus();
  });

channel.ready();
