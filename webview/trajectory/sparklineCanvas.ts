// The per-turn Δ sparkline as a canvas (src/trajectory/shared/sparklineData.ts computes what it shows): bars above the middle
// line where the skill-conditioned teacher finds the token more likely than the student (Δ > 0), below where less,
// in the heatmap's palette ends (blue high, orange low; the dark theme's lighter ends). Drawn from numbers only, so
// hostile text cannot reach it; a click jumps to the token under the pointer.
import { PALETTES, cssColor } from '../../src/trajectory/shared/colorScale';
import { formatNumber } from '../../src/trajectory/shared/format';
import { sparkColumns, sparkSummary, tokenAt, yOf } from '../../src/trajectory/shared/sparklineData';
import { el } from '../shared/dom';

const SPARK_WIDTH = 240;
const SPARK_HEIGHT = 22;

function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** A strip of a turn's Δ on the trajectory's shared half-range `range`; `onPick` gets the clicked token's index. */
export function deltaSparkline(deltas: Float32Array, range: number, turn: number, onPick: (token: number) => void): HTMLElement {
  const summary = sparkSummary(deltas);
  const label =
    summary.peakToken < 0
      ? `Turn ${turn + 1}: no finite Δ`
      : `Δ per token, turn ${turn + 1}: ${deltas.length} tokens, strongest Δ ${formatNumber(summary.peak)} at token ${summary.peakToken + 1}; scale ±${formatNumber(range)} (shared by the turns). Click to go to a token.`;
  const ratio = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
  const canvas = el('canvas', {
    class: 'spark',
    title: label,
    attrs: {
      width: String(SPARK_WIDTH * ratio),
      height: String(SPARK_HEIGHT * ratio),
      role: 'img',
      'aria-label': label,
      'data-peak-token': String(summary.peakToken),
      'data-tokens': String(deltas.length),
    },
  });
  const context = canvas.getContext('2d');
  if (context) {
    context.scale(ratio, ratio);
    const middle = yOf(0, range, SPARK_HEIGHT);
    context.fillStyle = themeColor('--vscode-editorLineNumber-foreground', '#888888');
    context.fillRect(0, Math.floor(middle), SPARK_WIDTH, 1);
    const columns = sparkColumns(deltas, SPARK_WIDTH);
    const width = SPARK_WIDTH / Math.max(1, Math.min(SPARK_WIDTH, deltas.length)); // one column's width
    const body = document.body.classList;
    const dark = body.contains('vscode-dark') || (body.contains('vscode-high-contrast') && !body.contains('vscode-high-contrast-light')); // as paletteCss()
    const palette = PALETTES[dark ? 'dark' : 'light'];
    const above = cssColor({ ...palette.divergingHigh, a: 1 });
    const below = cssColor({ ...palette.divergingLow, a: 1 });
    for (const column of columns) {
      const x = (column.token / deltas.length) * SPARK_WIDTH;
      const barWidth = Math.max(1, width - (width > 3 ? 1 : 0));
      if (column.max > 0) {
        context.fillStyle = above;
        const top = yOf(column.max, range, SPARK_HEIGHT);
        context.fillRect(x, top, barWidth, Math.max(1, middle - top));
      }
      if (column.min < 0) {
        context.fillStyle = below;
        const bottom = yOf(column.min, range, SPARK_HEIGHT);
        context.fillRect(x, middle, barWidth, Math.max(1, bottom - middle));
      }
    }
  }
  canvas.addEventListener('click', (event) => {
    const rect = canvas.getBoundingClientRect();
    const token = tokenAt(event.clientX - rect.left, rect.width, deltas.length);
    if (token >= 0) onPick(token);
  });
  return canvas;
}
