// Quantile strips: per update, a box from p25 to p75 inside a fainter one from p05 to p95, drawn under the median line
// of the same dataset (chart.js plugin). Several runs overlaid stand side by side within an update's slot.
import type { Chart, Plugin } from 'chart.js';

/** One update's box, at its x on the current axis (step or minutes). */
export interface StripBox {
  x: number;
  p05: number;
  p25: number;
  p50: number;
  p75: number;
  p95: number;
}

/** The widest a box gets (px), whatever the zoom. */
const MAX_SLOT = 24;

/** The narrowest distance in pixels between two neighbouring boxes' x (the slot each box may fill). */
function slotWidth(chart: Chart, boxes: readonly StripBox[]): number {
  const x = chart.scales.x!;
  let slot = chart.chartArea.width / 4;
  for (let i = 1; i < boxes.length; i += 1) {
    const gap = Math.abs(x.getPixelForValue(boxes[i]!.x) - x.getPixelForValue(boxes[i - 1]!.x));
    if (gap > 0 && gap < slot) slot = gap;
  }
  return Math.min(MAX_SLOT, slot * 0.8);
}

export const quantileStrips: Plugin<'line'> = {
  id: 'seedQuantileStrips',
  beforeDatasetsDraw(chart) {
    const x = chart.scales.x;
    const y = chart.scales.y;
    if (!x || !y) return;
    const striped = chart.data.datasets
      .map((dataset, index) => ({ dataset, index, boxes: (dataset as { strips?: StripBox[] }).strips }))
      .filter((d): d is typeof d & { boxes: StripBox[] } => d.boxes !== undefined && chart.isDatasetVisible(d.index));
    const slot = striped.reduce((narrowest, d) => Math.min(narrowest, slotWidth(chart, d.boxes)), MAX_SLOT);
    const width = Math.max(1, slot / Math.max(1, striped.length));
    const { ctx, chartArea: area } = chart;
    let drawn = 0;
    ctx.save();
    ctx.beginPath();
    ctx.rect(area.left, area.top, area.width, area.height);
    ctx.clip();
    striped.forEach(({ dataset, boxes }, k) => {
      const offset = (k - (striped.length - 1) / 2) * width;
      ctx.fillStyle = String(dataset.borderColor ?? '#888');
      for (const box of boxes) {
        const left = x.getPixelForValue(box.x) + offset - width / 2;
        if (left + width < area.left || left > area.right) continue;
        const outerTop = y.getPixelForValue(box.p95);
        const innerTop = y.getPixelForValue(box.p75);
        ctx.globalAlpha = 0.22;
        ctx.fillRect(left, outerTop, width, y.getPixelForValue(box.p05) - outerTop);
        ctx.globalAlpha = 0.5;
        ctx.fillRect(left, innerTop, width, Math.max(1, y.getPixelForValue(box.p25) - innerTop));
        drawn += 1;
      }
    });
    ctx.restore();
    (chart as Chart & { $seedStrips?: number }).$seedStrips = drawn; // what tests read: boxes painted by the last draw
  },
};
