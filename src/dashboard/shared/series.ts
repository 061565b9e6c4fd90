// Metric series for the dashboard, shared by the webview bundle and the unit tests (no DOM, no Node, no `vscode`):
// growable typed arrays, debiased exponential smoothing kept up to date incrementally, and min-max decimation that
// reduces a series to at most four points per pixel column (first, min, max, last) while keeping every extreme —
// what a line chart of N ≫ width points can show anyway.

/** An append-only (x, y) series in typed arrays; x is expected to be non-decreasing (steps or seconds). */
export class Series {
  xs: Float64Array;
  ys: Float64Array;
  length = 0;

  constructor(capacity = 64) {
    this.xs = new Float64Array(capacity);
    this.ys = new Float64Array(capacity);
  }

  push(x: number, y: number): void {
    if (this.length === this.xs.length) {
      const capacity = this.xs.length * 2;
      const xs = new Float64Array(capacity);
      const ys = new Float64Array(capacity);
      xs.set(this.xs);
      ys.set(this.ys);
      this.xs = xs;
      this.ys = ys;
    }
    this.xs[this.length] = x;
    this.ys[this.length] = y;
    this.length += 1;
  }

  clear(): void {
    this.length = 0;
  }

  get lastX(): number | undefined {
    return this.length > 0 ? this.xs[this.length - 1] : undefined;
  }
}

/**
 * Exponential moving average with the start-up bias removed (as TensorBoard's smoothing slider):
 * s_i = w·s_{i−1} + (1−w)·y_i, shown as s_i / (1 − w^(i+1)). Weight 0 is no smoothing. Appending is O(new points).
 */
export class SmoothedSeries {
  readonly raw = new Series();
  readonly smoothed = new Series();
  private accumulator = 0;
  private count = 0;

  constructor(private weight = 0) {}

  get smoothing(): number {
    return this.weight;
  }

  push(x: number, y: number): void {
    this.raw.push(x, y);
    this.smoothOne(x, y);
  }

  private smoothOne(x: number, y: number): void {
    if (this.weight <= 0) {
      this.smoothed.push(x, y);
      return;
    }
    this.accumulator = this.weight * this.accumulator + (1 - this.weight) * y;
    this.count += 1;
    this.smoothed.push(x, this.accumulator / (1 - this.weight ** this.count));
  }

  /** Recomputes the smoothed series for a new weight in [0, 1). */
  setSmoothing(weight: number): void {
    const clamped = Math.min(Math.max(weight, 0), 0.999);
    if (clamped === this.weight) return;
    this.weight = clamped;
    this.smoothed.clear();
    this.accumulator = 0;
    this.count = 0;
    for (let i = 0; i < this.raw.length; i += 1) this.smoothOne(this.raw.xs[i] ?? 0, this.raw.ys[i] ?? 0);
  }

  clear(): void {
    this.raw.clear();
    this.smoothed.clear();
    this.accumulator = 0;
    this.count = 0;
  }
}

export interface Point {
  x: number;
  y: number;
}

/**
 * Min-max decimation of `series` into `buckets` equal-width x columns over [xMin, xMax]: per column the first, the
 * lowest, the highest and the last point, in x order (fewer when they coincide). Short series come back whole.
 * Points outside [xMin, xMax] are dropped; NaN values are skipped. O(n) in the points of the range.
 */
export function minMaxDecimate(series: Pick<Series, 'xs' | 'ys' | 'length'>, buckets: number, range?: { xMin: number; xMax: number }): Point[] {
  const n = series.length;
  const { xs, ys } = series;
  if (n === 0) return [];
  const xMin = range?.xMin ?? (xs[0] ?? 0);
  const xMax = range?.xMax ?? (xs[n - 1] ?? 0);
  const columns = Math.max(1, Math.floor(buckets));
  const out: Point[] = [];
  if (n <= columns * 4 || xMax <= xMin) {
    for (let i = 0; i < n; i += 1) {
      const x = xs[i] ?? 0;
      const y = ys[i] ?? 0;
      if (x >= xMin && x <= xMax && !Number.isNaN(y)) out.push({ x, y });
    }
    return out;
  }
  const scale = columns / (xMax - xMin);
  let column = -1;
  let firstI = -1;
  let lastI = -1;
  let minI = -1;
  let maxI = -1;
  const flush = (): void => {
    if (firstI < 0) return;
    // Emit the (up to) four indices in x (= index) order, each once.
    const picks = [firstI, minI, maxI, lastI].sort((a, b) => a - b);
    let previous = -1;
    for (const i of picks) {
      if (i === previous) continue;
      previous = i;
      out.push({ x: xs[i] ?? 0, y: ys[i] ?? 0 });
    }
  };
  for (let i = 0; i < n; i += 1) {
    const x = xs[i] ?? 0;
    const y = ys[i] ?? 0;
    if (x < xMin || x > xMax || Number.isNaN(y)) continue;
    const c = Math.min(columns - 1, Math.floor((x - xMin) * scale));
    if (c !== column) {
      flush();
      column = c;
      firstI = lastI = minI = maxI = i;
      continue;
    }
    lastI = i;
    if (y < (ys[minI] ?? 0)) minI = i;
    if (y > (ys[maxI] ?? 0)) maxI = i;
  }
  flush();
  return out;
}
