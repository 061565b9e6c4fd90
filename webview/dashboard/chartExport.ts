// A dashboard chart as a PNG that stands on its own: the title (with the runs it shows) above the plot and the legend
// (each series' colour, dash and name) below, on the theme's background. The chart is drawn again for it at a larger
// pixel ratio (src/dashboard/shared/exportImage.ts: at least 1200 px wide, a whole multiple of the screen's), then
// back at the screen's: a chart 383 px wide on screen exports 1532 px wide, sharp, with its text in proportion.
import type { Chart } from 'chart.js';
import { exportPixelRatio } from '../../src/dashboard/shared/exportImage';
import type { Point } from '../../src/dashboard/shared/series';
import type { LegendEntry } from './legend';

export interface ExportTheme {
  font: string;
  foreground: string;
  background: string;
}

/** The legend entries placed in rows across `width` (pixels at `ratio`), and how many rows. */
function placeLegend(entries: readonly LegendEntry[], width: number, ratio: number, font: string): { placed: Array<{ entry: LegendEntry; x: number; row: number }>; rows: number } {
  const measure = document.createElement('canvas').getContext('2d')!;
  measure.font = `${12 * ratio}px ${font}`;
  const pad = 10 * ratio;
  const placed: Array<{ entry: LegendEntry; x: number; row: number }> = [];
  let x = pad;
  let row = 0;
  for (const entry of entries) {
    const w = 28 * ratio + measure.measureText(entry.label).width + 14 * ratio;
    if (x + w > width - pad && x > pad) {
      row += 1;
      x = pad;
    }
    placed.push({ entry, x, row });
    x += w;
  }
  return { placed, rows: entries.length ? row + 1 : 0 };
}

/** Title, the chart's canvas as drawn at `ratio`, legend: one image. */
function compose(source: HTMLCanvasElement, entries: readonly LegendEntry[], title: string, ratio: number, theme: ExportTheme): string {
  const width = source.width;
  const pad = 10 * ratio;
  const line = 16 * ratio;
  const { placed, rows } = placeLegend(entries, width, ratio, theme.font);
  const titleHeight = 26 * ratio;
  const legendHeight = rows ? rows * line + pad : 0;
  const out = document.createElement('canvas');
  out.width = width;
  out.height = titleHeight + source.height + legendHeight + pad;
  const g = out.getContext('2d')!;
  g.fillStyle = theme.background;
  g.fillRect(0, 0, out.width, out.height);
  g.fillStyle = theme.foreground;
  g.textBaseline = 'middle';
  g.font = `bold ${13 * ratio}px ${theme.font}`;
  g.fillText(title, pad, titleHeight / 2, width - 2 * pad);
  g.drawImage(source, 0, titleHeight);
  g.font = `${12 * ratio}px ${theme.font}`;
  const top = titleHeight + source.height + pad / 2;
  for (const { entry, x: left, row } of placed) {
    const y = top + row * line + line / 2;
    g.strokeStyle = entry.colour;
    g.lineWidth = 2 * ratio;
    g.setLineDash(entry.dash.map((d) => d * ratio));
    g.beginPath();
    g.moveTo(left, y);
    g.lineTo(left + 22 * ratio, y);
    g.stroke();
    g.setLineDash([]);
    g.fillStyle = theme.foreground;
    g.fillText(entry.label, left + 28 * ratio, y);
  }
  return out.toDataURL('image/png');
}

/** The chart as a PNG data URL at least 1200 px wide (the shown legend entries under it). */
export function chartImage(chart: Chart<'line', Point[]>, entries: readonly LegendEntry[], title: string, theme: ExportTheme): string {
  const ratio = exportPixelRatio(chart.width, window.devicePixelRatio || 1);
  const options = chart.options as { devicePixelRatio?: number };
  const previous = options.devicePixelRatio;
  // chart.js redraws synchronously on resize (no animation, no resize delay): the canvas holds the larger drawing now.
  options.devicePixelRatio = ratio;
  chart.resize();
  try {
    return compose(chart.canvas, entries, title, ratio, theme);
  } finally {
    options.devicePixelRatio = previous;
    chart.resize();
  }
}
