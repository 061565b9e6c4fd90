// The y range of a chart: from the data's extremes, or with "Robust y" from the bulk of the data, so that a few spikes (a
// loss blowing up at one update) do not squash every other value into a flat line. No DOM, no `vscode`.
import { flatYRange } from './axis';

/** Of the points at each end, at most this share (and at least one) may be left out of a robust range: TensorBoard's
 * "ignore outliers" keeps the 5th–95th percentile; a structure of more points than that (a phase time that is 0 on most
 * updates) stays in view. */
const OUTLIER_SHARE = 0.05;
/** Tukey's "far out": more than 3 interquartile ranges beyond the quartiles. */
const FAR_OUT_IQR = 3;
/** Space above and below the range kept, as a share of its span. */
const MARGIN = 0.05;

/** The q-quantile (0 ≤ q ≤ 1) of ascending `sorted`, interpolating linearly between the two nearest ranks (numpy's
 * default, and the trainer's seed_trainer/algo/token_quantiles.py). NaN when empty. */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const position = Math.min(Math.max(q, 0), 1) * (n - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, n - 1);
  const low = sorted[below] ?? Number.NaN;
  const high = sorted[above] ?? Number.NaN;
  return low + (high - low) * (position - below);
}

export interface RobustRange {
  min: number;
  max: number;
  /** Points left out below and above. */
  below: number;
  above: number;
}

/**
 * The range of the finite `values` without their outliers, with a margin of 5 % of its span on each side. A point is
 * left out only when it is both among the most extreme 5 % at its end (at least one point, so short runs have their
 * spike left out too) and far out by Tukey's rule (more than 3 IQR beyond the quartiles): a trend or a wide spread
 * keeps all its points. Undefined without a finite value. O(n log n) in the points given — the chart gives its raw
 * points decimated to the canvas width (at most four per pixel column), not the whole series.
 */
export function robustRange(values: readonly number[]): RobustRange | undefined {
  const sorted = Float64Array.from(values.filter((v) => Number.isFinite(v))).sort();
  const n = sorted.length;
  if (n === 0) return undefined;
  const q1 = quantileOfSorted(sorted, 0.25);
  const q3 = quantileOfSorted(sorted, 0.75);
  const lowFence = q1 - FAR_OUT_IQR * (q3 - q1);
  const highFence = q3 + FAR_OUT_IQR * (q3 - q1);
  const most = Math.max(1, Math.floor(OUTLIER_SHARE * n));
  let low = 0;
  while (low < most && low < n - 1 && (sorted[low] ?? 0) < lowFence) low += 1;
  let high = n - 1;
  while (n - 1 - high < most && high > low && (sorted[high] ?? 0) > highFence) high -= 1;
  const min = sorted[low] ?? 0;
  const max = sorted[high] ?? 0;
  const margin = MARGIN * (max - min);
  return { min: min - margin, max: max + margin, below: low, above: n - 1 - high };
}

/**
 * The y range a (non-fraction) chart sets: robust (in log10 space on a log axis, over the positive values) when asked,
 * and for a linear axis never narrower than flatYRange allows (a flat series stays flat, not a spike of float noise).
 * Undefined: let chart.js fit the axis to the data.
 */
export function chartYRange(values: readonly number[], options: { robust: boolean; log: boolean }): { min: number; max: number } | undefined {
  const finite = values.filter((v) => Number.isFinite(v) && (!options.log || v > 0));
  if (finite.length === 0) return undefined;
  if (options.log) {
    if (!options.robust) return undefined;
    const range = robustRange(finite.map(Math.log10));
    return range && range.max > range.min ? { min: 10 ** range.min, max: 10 ** range.max } : undefined;
  }
  let min = Infinity;
  let max = -Infinity;
  for (const v of finite) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const robust = options.robust ? robustRange(finite) : undefined;
  if (robust) ({ min, max } = robust);
  return flatYRange(min, max) ?? (robust ? { min, max } : undefined);
}
