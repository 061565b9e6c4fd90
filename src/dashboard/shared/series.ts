// Metric series for the dashboard, shared by the webview bundle and the unit tests (no DOM, no Node, no `vscode`):
// growable typed arrays, debiased exponential smoothing kept up to date incrementally, and min-max decimation that
// reduces a series to at most four points per column no wider than a pixel (first, min, max, last) while keeping
// every extreme — what a line chart of N ≫ width points can show anyway — and that, after a point is appended, redoes
// only the last column (liveDecimate).

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
    this.pyramid = undefined;
    this.columns = undefined;
  }

  /** The min-max pyramid of this series (built on first use, extended as points are appended; liveDecimate). */
  pyramid: MinMaxPyramid | undefined;
  /** The columns of its last live decimation, kept to redo only the last one after an append (liveDecimate). */
  columns: LiveColumns | undefined;

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

/** The finest level a pyramid keeps: blocks of 2^4 = 16 points (finer ranges are decimated point by point). */
const PYRAMID_BASE_LEVEL = 4;

/**
 * Min-max of every aligned block of 2^L points of an append-only series, for each level L ≥ 4: the index of the
 * lowest and of the highest value of each full block (−1 when the block holds only NaN). Appending extends it in
 * amortised O(1) per point; reading a range at a level costs O(blocks), so a redraw of a 1 000 000-point series
 * touches a few thousand blocks instead of every point. Memory: two Int32 per 16 points and level (≈ 1 MB per
 * million points).
 */
export class MinMaxPyramid {
  /** levels[k]: level PYRAMID_BASE_LEVEL + k; min and max indices interleaved ([2b] min, [2b + 1] max). */
  readonly levels: Int32Array[] = [];
  /** Full blocks of each level built so far. */
  readonly built: number[] = [];
  /** Points covered so far. */
  covered = 0;

  /** Catches up with the series' appended points. */
  extend(series: Pick<Series, 'ys' | 'length'>): void {
    const n = series.length;
    if (n === this.covered) return;
    const ys = series.ys;
    for (let k = 0; ; k += 1) {
      const size = 1 << (PYRAMID_BASE_LEVEL + k);
      const blocks = Math.floor(n / size);
      if (blocks === 0) break;
      let level = this.levels[k];
      if (!level || level.length < blocks * 2) {
        const grown = new Int32Array(Math.max(blocks * 2, (level?.length ?? 0) * 2, 64));
        if (level) grown.set(level);
        level = grown;
        this.levels[k] = level;
      }
      const previous = this.levels[k - 1];
      for (let b = this.built[k] ?? 0; b < blocks; b += 1) {
        let lo = -1;
        let hi = -1;
        if (k === 0 || !previous) {
          for (let i = b * size; i < (b + 1) * size; i += 1) {
            const y = ys[i] ?? NaN;
            if (Number.isNaN(y)) continue;
            if (lo < 0 || y < (ys[lo] ?? 0)) lo = i;
            if (hi < 0 || y > (ys[hi] ?? 0)) hi = i;
          }
        } else {
          for (const child of [2 * b, 2 * b + 1]) {
            const cLo = previous[2 * child] ?? -1;
            const cHi = previous[2 * child + 1] ?? -1;
            if (cLo >= 0 && (lo < 0 || (ys[cLo] ?? 0) < (ys[lo] ?? 0))) lo = cLo;
            if (cHi >= 0 && (hi < 0 || (ys[cHi] ?? 0) > (ys[hi] ?? 0))) hi = cHi;
          }
        }
        level[2 * b] = lo;
        level[2 * b + 1] = hi;
      }
      this.built[k] = blocks;
    }
    this.covered = n;
  }
}

/** The first index whose x is ≥ `x` (or > `x` with `after`); x non-decreasing. */
function bound(xs: Float64Array, n: number, x: number, after = false): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const value = xs[mid] ?? 0;
    if (value < x || (after && value === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The x width of live decimation columns for `buckets` columns over `span`: the largest 2^(j/4) (j an integer) no
 * wider than span / buckets. A column is thus never wider than a pixel column, and there are at most 19 % more
 * columns than pixels; the width stays the same while the span grows by less than that, so the column boundaries
 * (multiples of the width) do not move when points are appended.
 */
export function liveColumnWidth(span: number, buckets: number): number {
  return 2 ** (Math.floor(4 * Math.log2(span / buckets)) / 4);
}

/** A series' live decimation: its columns' points so far, and where each column starts. */
export interface LiveColumns {
  width: number;
  /** The x range it was made for (xMax undefined: up to the last point, growing as points are appended). */
  xMin: number;
  xMax: number | undefined;
  points: Point[];
  /** Per column: the position of its first point in `points`, and its first index in the series. */
  pointStart: number[];
  indexStart: number[];
}

/**
 * Min-max decimation of a live series to columns of a fixed grid: column c holds the points with
 * floor(x / width) = c (width: liveColumnWidth of the x range, at least `buckets` columns); per column its first,
 * lowest, highest and last point, in x order, each once; points outside [xMin, xMax] are dropped and NaN values
 * skipped. The extremes are read from the series' pyramid (O(log n) blocks per column, at most 15 single points at
 * each end) and the columns are kept on the series: when points were appended since the last call, only the last
 * column and the new ones are done again, so a live update costs O(log n) and a copy of the points. A new column
 * width (the range grew by a fifth, or a zoom) or a cleared series starts over: O(columns · log n). Series with fewer
 * than 16 points per bucket go through minMaxDecimate. x must be non-decreasing.
 */
export function liveDecimate(series: Series, buckets: number, range?: { xMin: number; xMax: number }): Point[] {
  const n = series.length;
  const { xs, ys } = series;
  if (n === 0) return [];
  const xMin = range?.xMin ?? (xs[0] ?? 0);
  const xMax = range?.xMax ?? (xs[n - 1] ?? 0);
  const columns = Math.max(1, Math.floor(buckets));
  const start = bound(xs, n, xMin);
  const end = range ? bound(xs, n, xMax, true) : n;
  if (end - start < columns * 16 || !(xMax > xMin)) {
    series.columns = undefined;
    return minMaxDecimate(series, buckets, range);
  }
  const width = liveColumnWidth(xMax - xMin, columns);
  let state = series.columns;
  if (!state || state.width !== width || state.xMin !== xMin || state.xMax !== range?.xMax) {
    state = { width, xMin, xMax: range?.xMax, points: [], pointStart: [], indexStart: [] };
    series.columns = state;
  }
  series.pyramid ??= new MinMaxPyramid();
  const pyramid = series.pyramid;
  pyramid.extend(series);
  const column = (i: number): number => Math.floor((xs[i] ?? 0) / width);
  /** The first index in [from, end) of a column after c (columns are non-decreasing in the index). */
  const columnEnd = (from: number, c: number): number => {
    let lo = from;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (column(mid) <= c) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const out = state.points;
  // The last column done may have grown since: it is done again, with the new ones.
  let from = start;
  if (state.indexStart.length > 0) {
    from = state.indexStart.pop() ?? start;
    out.length = state.pointStart.pop() ?? 0;
  }
  let lo = -1;
  let hi = -1;
  const take = (i: number): void => {
    const y = ys[i] ?? NaN;
    if (Number.isNaN(y)) return;
    if (lo < 0 || y < (ys[lo] ?? 0)) lo = i;
    if (hi < 0 || y > (ys[hi] ?? 0)) hi = i;
  };
  const takeBlock = (blockLo: number, blockHi: number): void => {
    if (blockLo >= 0 && (lo < 0 || (ys[blockLo] ?? 0) < (ys[lo] ?? 0))) lo = blockLo;
    if (blockHi >= 0 && (hi < 0 || (ys[blockHi] ?? 0) > (ys[hi] ?? 0))) hi = blockHi;
  };
  const base = 1 << PYRAMID_BASE_LEVEL;
  while (from < end) {
    const to = columnEnd(from, column(from));
    state.pointStart.push(out.length);
    state.indexStart.push(from);
    lo = -1;
    hi = -1;
    let i = from;
    while (i < to && i % base !== 0) take(i++);
    while (i + base <= to) {
      // The largest aligned block that starts at i and ends inside the column.
      let k = 0;
      while (k + 1 < pyramid.levels.length && i % (base << (k + 1)) === 0 && i + (base << (k + 1)) <= to) k += 1;
      const block = i / (base << k);
      const level = pyramid.levels[k]!;
      takeBlock(level[2 * block] ?? -1, level[2 * block + 1] ?? -1);
      i += base << k;
    }
    while (i < to) take(i++);
    // First and last non-NaN points of the column, as minMaxDecimate.
    let first = from;
    while (first < to && Number.isNaN(ys[first] ?? NaN)) first += 1;
    let last = to - 1;
    while (last > first && Number.isNaN(ys[last] ?? NaN)) last -= 1;
    if (first < to) {
      let previous = -1;
      for (const index of [first, lo, hi, last].sort((a, b) => a - b)) {
        if (index === previous || index < 0) continue;
        previous = index;
        out.push({ x: xs[index] ?? 0, y: ys[index] ?? 0 });
      }
    }
    from = to;
  }
  // A copy: chart.js hooks the arrays it is given, and these points are extended in place next time.
  return out.slice();
}
