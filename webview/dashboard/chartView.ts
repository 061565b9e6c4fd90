// One dashboard chart: a chart.js canvas of fixed height, an HTML legend under it whose entries toggle their series
// (it scrolls instead of squeezing the plot, however many series there are), drag-to-zoom on x (double-click
// resets), log-scale y, an outlier-robust y range, export as PNG or CSV, whiskers for the Wilson intervals of evaluation
// points, and the boxes of quantile strips (quantileStrips.ts).
import {
  Chart,
  Filler,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartDataset,
  type Plugin,
  type TooltipItem,
} from 'chart.js';
import { cleanNumber, paddedRange, xTickLabel, type XAxis } from '../../src/dashboard/shared/axis';
import type { ChartSpec } from '../../src/dashboard/shared/charts';
import type { Interval } from '../../src/dashboard/shared/evaluation';
import { reuseDatasets } from '../../src/dashboard/shared/reuseDatasets';
import { chartYRange } from '../../src/dashboard/shared/robustRange';
import type { Point } from '../../src/dashboard/shared/series';
import { chartImage } from './chartExport';
import { drawLegend, sameLegend, type LegendCallbacks, type LegendEntry } from './legend';
import { quantileStrips, type StripBox } from './quantileStrips';

// Filler: a group's band between its low and high lines (groupDatasets.ts).
Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, LogarithmicScale, Tooltip, Filler);

export type SeriesDataset = ChartDataset<'line', Point[]> & { intervals?: Array<Interval | undefined>; strips?: StripBox[] };

export interface ChartOptions {
  xAxis: XAxis;
  logScale: boolean;
  /** "Robust y": the values the y range is taken from, without their outliers (robustRange.ts): the raw points, drawn
   * or not, and the strips' box ends. Undefined: the range holds every point drawn. */
  robustYs: number[] | undefined;
  xRange: { min: number; max: number } | undefined;
}

export interface ChartCallbacks extends LegendCallbacks {
  zoom(range: { min: number; max: number } | undefined): void;
  exportPng(view: ChartView): void;
  exportCsv(view: ChartView): void;
}

/** Draws each evaluation point's interval as a vertical whisker with caps. */
const intervalWhiskers: Plugin<'line'> = {
  id: 'seedIntervals',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    const y = chart.scales.y;
    if (!y) return;
    chart.data.datasets.forEach((dataset, index) => {
      const intervals = (dataset as SeriesDataset).intervals;
      if (!intervals || !chart.isDatasetVisible(index)) return;
      const meta = chart.getDatasetMeta(index);
      ctx.save();
      ctx.strokeStyle = String(dataset.borderColor ?? '#888');
      ctx.lineWidth = 1;
      meta.data.forEach((element, i) => {
        const interval = intervals[i];
        if (!interval) return;
        const x = element.x;
        const top = y.getPixelForValue(interval.high);
        const bottom = y.getPixelForValue(interval.low);
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, bottom);
        ctx.moveTo(x - 3, top);
        ctx.lineTo(x + 3, top);
        ctx.moveTo(x - 3, bottom);
        ctx.lineTo(x + 3, bottom);
        ctx.stroke();
      });
      ctx.restore();
    });
  },
};

/** Every chart by its canvas: what tests and the bench read (the datasets drawn, the ticks chart.js made). */
const CHARTS = new Map<HTMLCanvasElement, Chart<'line', Point[]>>();
(window as unknown as { __seedCharts: typeof CHARTS }).__seedCharts = CHARTS;

export function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function button(text: string, title: string, action: string): HTMLButtonElement {
  const element = document.createElement('button');
  element.className = 'chart-action';
  element.textContent = text;
  element.title = title;
  element.dataset.action = action;
  return element;
}

/** The x range of a strip chart with half an update's slot beyond the first and the last box (their boxes would be
 * cut in half by the plot's edges); undefined for other charts. */
function stripPadding(datasets: readonly SeriesDataset[]): { min: number; max: number } | undefined {
  const xs = datasets.flatMap((d) => (d.strips ?? []).map((b) => b.x));
  const distinct = new Set(xs).size;
  if (distinct < 2) return undefined;
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  const pad = (max - min) / (distinct - 1) / 2;
  return { min: min - pad, max: max + pad };
}

/** A strip's tooltip line names its box (median, 25–75 %, 5–95 %); any other dataset's, its value. */
function stripTooltip(item: TooltipItem<'line'>): string {
  const box = (item.dataset as SeriesDataset).strips?.find((b) => b.x === item.parsed.x);
  const label = item.dataset.label ?? '';
  if (!box) return `${label}: ${item.formattedValue}`;
  const n = cleanNumber;
  return `${label}: ${n(box.p50)}; 25–75 % ${n(box.p25)} to ${n(box.p75)}; 5–95 % ${n(box.p05)} to ${n(box.p95)}`;
}

export class ChartView {
  readonly card: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  readonly legend: HTMLElement;
  chart: Chart<'line', Point[]> | undefined;
  dirty = false;
  private selection: HTMLElement;
  private readonly holder: HTMLElement;
  private readonly noData: HTMLElement;
  private readonly caption: HTMLElement;
  private dragFrom: number | undefined;
  private lastLegend: LegendEntry[] = [];

  constructor(
    readonly spec: ChartSpec,
    private readonly callbacks: ChartCallbacks,
  ) {
    this.card = document.createElement('section');
    this.card.className = 'card';
    this.card.dataset.chart = spec.id;
    const head = document.createElement('div');
    head.className = 'card-head';
    const title = document.createElement('h3');
    title.textContent = spec.title;
    const png = button('PNG', 'Save this chart as a PNG image', 'png');
    const csv = button('CSV', 'Save the points of this chart as CSV', 'csv');
    png.addEventListener('click', () => callbacks.exportPng(this));
    csv.addEventListener('click', () => callbacks.exportCsv(this));
    head.append(title, png, csv);
    const holder = document.createElement('div');
    holder.className = 'canvas-holder';
    this.holder = holder;
    this.noData = Object.assign(document.createElement('p'), { className: 'no-data', hidden: true });
    this.caption = Object.assign(document.createElement('p'), { className: 'chart-caption', hidden: true });
    this.canvas = document.createElement('canvas');
    this.selection = document.createElement('div');
    this.selection.className = 'zoom-selection';
    this.selection.hidden = true;
    holder.append(this.canvas, this.selection);
    this.legend = document.createElement('div');
    this.legend.className = 'legend';
    this.legend.setAttribute('role', 'group');
    this.legend.setAttribute('aria-label', `${spec.title}: series`);
    this.card.append(head, this.caption, this.noData, holder, this.legend);
    this.card.hidden = true;
    this.installZoom(holder);
  }

  /** What the chart shows beyond its title (a grouped chart's means and bands); undefined: nothing. */
  setCaption(text: string | undefined): void {
    if (this.caption.textContent === (text ?? '') && this.caption.hidden === (text === undefined)) return;
    this.caption.hidden = text === undefined;
    this.caption.textContent = text ?? '';
    this.card.classList.toggle('grouped', text !== undefined);
  }

  /** Says `text` in place of the plot (undefined: the plot). */
  setNoData(text: string | undefined): void {
    // Every redraw says it: unchanged, it touches no DOM (a write would restyle each card on every live update).
    if (this.noData.hidden === (text === undefined) && this.noData.textContent === (text ?? '')) return;
    this.noData.hidden = text === undefined;
    this.noData.textContent = text ?? '';
    this.holder.hidden = text !== undefined;
    this.legend.hidden = text !== undefined;
  }

  private installZoom(holder: HTMLElement): void {
    const offsetX = (event: MouseEvent): number => event.clientX - this.canvas.getBoundingClientRect().left;
    this.canvas.addEventListener('mousedown', (event) => {
      if (event.button !== 0) return;
      this.dragFrom = offsetX(event);
    });
    window.addEventListener('mousemove', (event) => {
      if (this.dragFrom === undefined) return;
      const to = Math.max(0, Math.min(this.canvas.clientWidth, offsetX(event)));
      this.selection.hidden = false;
      this.selection.style.left = `${Math.min(this.dragFrom, to)}px`;
      this.selection.style.width = `${Math.abs(to - this.dragFrom)}px`;
    });
    window.addEventListener('mouseup', (event) => {
      if (this.dragFrom === undefined) return;
      const from = this.dragFrom;
      this.dragFrom = undefined;
      this.selection.hidden = true;
      const to = offsetX(event);
      const x = this.chart?.scales.x;
      if (!x || Math.abs(to - from) < 6) return;
      const a = x.getValueForPixel(Math.min(from, to));
      const b = x.getValueForPixel(Math.max(from, to));
      if (a !== undefined && b !== undefined && b > a) this.callbacks.zoom({ min: a, max: b });
    });
    holder.addEventListener('dblclick', () => this.callbacks.zoom(undefined));
  }

  /** Replaces the datasets; the legend lists every series, hidden ones greyed out. */
  draw(datasets: SeriesDataset[], legend: LegendEntry[], options: ChartOptions): void {
    const wantLog = options.logScale && !this.spec.fraction;
    if (this.chart && (this.chart.options.scales?.y?.type === 'logarithmic') !== wantLog) {
      this.chart.destroy();
      this.chart = undefined;
    }
    this.chart ??= this.create(wantLog);
    const x = this.chart.options.scales!.x!;
    // One pass over the points drawn, without copying them (this runs on every live update).
    let xMin = Infinity;
    let xMax = -Infinity;
    for (const dataset of datasets) {
      for (const point of dataset.data) {
        if (point.x < xMin) xMin = point.x;
        if (point.x > xMax) xMax = point.x;
      }
    }
    const padded = paddedRange(xMin, xMax, options.xAxis) ?? stripPadding(datasets);
    const range = options.xRange ?? padded;
    x.min = range?.min;
    x.max = range?.max;
    (x as { title: { text: string } }).title.text = options.xAxis === 'step' ? 'step' : 'wall time (minutes since start)';
    (x.ticks as { callback: (value: number | string) => string }).callback = (value) => xTickLabel(Number(value), options.xAxis);
    // y ticks without floating-point noise (a flat series at 3 was labelled 3.0000000000000004)
    (this.chart.options.scales!.y!.ticks as { callback: (value: number | string) => string }).callback = (value) => cleanNumber(Number(value));
    // Fractions keep [0, 1]. Otherwise chart.js fits y to the lines unless the range is robust, or a (nearly) constant
    // series needs a minimum span (flat, not a spike drawn from float noise); strips' boxes reach past their median.
    if (!this.spec.fraction) {
      let ys = options.robustYs;
      if (!ys) {
        ys = [];
        for (const dataset of datasets) {
          for (const point of dataset.data) ys.push(point.y);
          for (const box of dataset.strips ?? []) ys.push(box.p05, box.p95);
        }
      }
      const range = chartYRange(ys, { robust: options.robustYs !== undefined, log: wantLog });
      const y = this.chart.options.scales!.y!;
      y.min = range?.min;
      y.max = range?.max;
      // A robust range's bounds are quantiles, not round numbers: ticks only at round values inside it.
      (y.ticks as { includeBounds: boolean }).includeBounds = options.robustYs === undefined;
      const boxes = datasets.flatMap((d) => d.strips ?? []);
      y.suggestedMin = boxes.length > 0 ? Math.min(...boxes.map((b) => b.p05)) : undefined;
      y.suggestedMax = boxes.length > 0 ? Math.max(...boxes.map((b) => b.p95)) : undefined;
    }
    // The objects chart.js already holds, refilled: it keys a dataset's controller and point elements on the object.
    this.chart.data.datasets = reuseDatasets(this.chart.data.datasets as SeriesDataset[], datasets);
    this.chart.update('none');
    // The legend's buttons are made again only when an entry changed (a live update leaves them as they are).
    if (!sameLegend(legend, this.lastLegend)) drawLegend(this.legend, legend, this.callbacks);
    this.lastLegend = legend;
  }

  /**
   * The chart as a PNG data URL that stands on its own, at least 1200 px wide (chartExport.ts): the title above the
   * plot, the legend below, on the theme's background.
   */
  exportImage(title: string): string {
    if (!this.chart) return '';
    const theme = {
      font: cssVar('--vscode-font-family', 'sans-serif'),
      foreground: cssVar('--vscode-charts-foreground', cssVar('--vscode-foreground', '#333333')),
      background: cssVar('--vscode-editor-background', '#ffffff'),
    };
    return chartImage(this.chart, this.lastLegend.filter((entry) => !entry.hidden), title, theme);
  }

  /** Axis and grid colours from the theme (called again when the theme changes). */
  applyTheme(): void {
    if (!this.chart) return;
    const foreground = cssVar('--vscode-charts-foreground', cssVar('--vscode-foreground', '#cccccc'));
    const grid = cssVar('--vscode-charts-lines', 'rgba(128,128,128,0.25)');
    for (const scale of Object.values(this.chart.options.scales ?? {})) {
      if (!scale) continue;
      scale.ticks = { ...scale.ticks, color: foreground };
      scale.grid = { ...scale.grid, color: grid };
      if ('title' in scale && scale.title) scale.title.color = foreground;
    }
  }

  private create(log: boolean): Chart<'line', Point[]> {
    const chart = this.build(log);
    this.chart = chart;
    CHARTS.set(this.canvas, chart);
    this.applyTheme();
    return chart;
  }

  private build(log: boolean): Chart<'line', Point[]> {
    return new Chart<'line', Point[]>(this.canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [intervalWhiskers, quantileStrips],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        normalized: true,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        elements: { point: { radius: 0 }, line: { tension: 0 } },
        scales: {
          x: { type: 'linear', title: { display: true, text: 'step' }, ticks: { maxTicksLimit: 8, autoSkip: true } },
          y: log
            ? { type: 'logarithmic', ticks: { maxTicksLimit: 6 } }
            : { type: 'linear', ...(this.spec.fraction ? { min: 0, max: 1 } : {}), ticks: { maxTicksLimit: 6 } },
        },
        plugins: { legend: { display: false }, tooltip: { enabled: true, callbacks: { label: stripTooltip } } },
      },
    });
  }
}
