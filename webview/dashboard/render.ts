// Metrics rows in, redraws out: each row is parsed into the runs' typed series (smoothing kept incrementally), and the
// charts whose data changed are redrawn at most four times per second.
import { NO_SKILL_DATA, chartOfSeries, isUnsmoothed, metricPoints } from '../../src/dashboard/shared/charts';
import { finalMetrics } from '../../src/dashboard/shared/runComparison';
import { SmoothedSeries } from '../../src/dashboard/shared/series';
import type { ToDashboard } from '../../src/dashboard/shared/protocol';
import { QUANTILE_FAMILIES, quantileSummary } from '../../src/runs/shared/metricQuantiles';
import type { MetricRow } from '../../src/runs/shared/types';
import { beforeAfterPanel } from './beforeAfter';
import { datasetsFor } from './datasets';
import { groupedDatasetsFor } from './groupDatasets';
import { activeGroups, drawnAxis, groupCaption, groupWord, groupingName } from './grouping';
import { comparisonTable, evaluationPanel } from './panels';
import { channel, model, state, stats, type RunData } from './state';
import { emptyNote, panels } from './toolbar';
import { isolatedText } from '../../src/common/shared/inertText';

const MIN_REDRAW_INTERVAL_MS = 250; // ≤ 4 redraws per second while live

let renderTimer: ReturnType<typeof setTimeout> | undefined;
let lastRender = 0;
let panelsDirty = true;

export function ingest(params: ToDashboard['metrics']): void {
  const started = performance.now();
  const data = model.runs.get(params.run);
  if (!data) return;
  if (params.reset) {
    data.series.clear();
    data.strips.clear();
    data.points = 0;
    data.final = finalMetrics([]);
    data.origin = data.run.started ? Date.parse(data.run.started) : undefined;
    for (const view of model.charts) view.dirty = true;
  }
  for (const row of params.baseline ?? []) ingestRow(data, row); // the chart's update 0, not the run's own evaluation
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
      const smoothing = isUnsmoothed(point.series) ? 0 : state.smoothing;
      pair = { step: new SmoothedSeries(smoothing), time: new SmoothedSeries(smoothing) };
      data.series.set(point.series, pair);
    }
    pair.step.push(point.x, point.y);
    if (!Number.isNaN(minutes)) pair.time.push(minutes, point.y);
    data.points += 1;
    const view = model.charts.find((c) => c.spec.id === point.chart);
    if (view) view.dirty = true;
  }
  if (row.kind === 'update') ingestStrips(data, row, minutes);
}

/** The row's boxes of each quantile family (drawn under the family's median, which metricPoints gave its series). */
function ingestStrips(data: RunData, row: MetricRow, minutes: number): void {
  for (const family of QUANTILE_FAMILIES) {
    const summary = quantileSummary(row, family);
    if (!summary) continue;
    let pair = data.strips.get(family);
    if (!pair) {
      pair = { step: [], time: [] };
      data.strips.set(family, pair);
    }
    const { p05, p25, p50, p75, p95 } = summary;
    pair.step.push({ x: row.step, p05, p25, p50, p75, p95 });
    if (!Number.isNaN(minutes)) pair.time.push({ x: minutes, p05, p25, p50, p75, p95 });
    const view = model.charts.find((c) => c.spec.quantiles === family);
    if (view) view.dirty = true;
  }
}

export function scheduleRender(): void {
  if (renderTimer !== undefined) return;
  const wait = Math.max(0, MIN_REDRAW_INTERVAL_MS - (performance.now() - lastRender));
  renderTimer = setTimeout(() => {
    renderTimer = undefined;
    render();
  }, wait);
}

/** What to say when no chart has data: waiting, or why an ended run has none (a failed run says its error). */
function emptyText(): string {
  if (model.overlaid.length === 0) return 'No run selected: choose runs above.';
  const ended = model.overlaid.filter((run) => run.status !== 'running' && run.status !== 'stopping');
  if (ended.length < model.overlaid.length) return 'Waiting for metrics…';
  return ended
    .map((run) => `${isolatedText(run.name)}: ${run.status}${run.error ? ` — ${isolatedText(run.error)}` : ''}. It wrote no metrics.`)
    .join('\n');
}

function renderPanels(): void {
  panelsDirty = false;
  const groups = activeGroups();
  // Grouped, the runs in their groups' order (the tables stay per run under a header per group).
  const runs = groups ? groups.flatMap((g) => g.rows.map((m) => m.run)) : model.overlaid;
  const rows = runs.map((run) => model.runs.get(run.key)).filter((d): d is RunData => d !== undefined);
  const panelRuns = rows.map((d) => ({ run: d.run, evaluations: d.evaluations, final: d.final }));
  const by = groupingName();
  const tables = groups ? { by, groups: groups.map((g) => ({ label: g.label, runs: g.rows.filter((m) => model.runs.has(m.run.key)).length })) } : undefined;
  const linked = groups ? { by, word: groupWord, groups: groups.map((g) => ({ label: g.label, keys: g.rows.map((m) => m.run.key) })) } : undefined;
  const children: HTMLElement[] = [];
  const beforeAfter = beforeAfterPanel(rows.map((d) => ({ run: d.run, beforeAfter: d.beforeAfter })), linked);
  if (beforeAfter) children.push(beforeAfter);
  if (panelRuns.length > 0) children.push(comparisonTable(panelRuns, tables));
  const evaluation = evaluationPanel(panelRuns, state.perTaskType, tables);
  if (evaluation) children.push(evaluation);
  panels.replaceChildren(...children);
}

function render(): void {
  const started = performance.now();
  let any = false;
  const groups = activeGroups();
  const writesSkills = model.overlaid.some((run) => model.runs.get(run.key)?.series.has('skill/parse_rate'));
  for (const view of model.charts) {
    const hasData = model.overlaid.some((run) => [...(model.runs.get(run.key)?.series.keys() ?? [])].some((name) => chartOfSeries(name)?.id === view.spec.id));
    const awaited = !hasData && writesSkills && view.spec.fromSkills === true;
    view.card.hidden = !hasData && !awaited;
    view.setNoData(awaited ? NO_SKILL_DATA : undefined);
    any ||= hasData;
    if (!hasData || !view.dirty) continue;
    view.dirty = false;
    const width = Math.max(50, Math.round(view.canvas.clientWidth || view.card.clientWidth || 400));
    const { datasets, legend, robustYs } = groups ? groupedDatasetsFor(view, width, groups) : datasetsFor(view, width);
    view.setCaption(groupCaption(view.spec));
    view.draw(datasets, legend, { xAxis: drawnAxis(), logScale: state.logScale, robustYs, xRange: model.xRange });
  }
  if (panelsDirty) renderPanels();
  emptyNote.hidden = any;
  if (!any) emptyNote.textContent = emptyText();
  lastRender = performance.now();
  stats.renders += 1;
  stats.lastMs = lastRender - started;
  const points: Record<string, number> = {};
  for (const [key, data] of model.runs) points[key] = data.points;
  channel.post('rendered', { points, renders: stats.renders, ms: stats.lastMs });
}

/** The panels (evaluation, comparison, before/after) are rebuilt at the next redraw. */
export function markPanelsDirty(): void {
  panelsDirty = true;
}

export function markAllDirty(): void {
  for (const view of model.charts) view.dirty = true;
  panelsDirty = true;
  scheduleRender();
}
