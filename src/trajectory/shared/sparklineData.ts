// The per-turn sparkline of Δ (teacher minus student log-prob per token): each pixel column of the strip shows the
// lowest and highest Δ of the tokens it covers, on a range symmetric around 0 and shared by every turn of the
// trajectory, so turns compare at a glance and no spike is lost however long the response. Only numbers go in:
// nothing of the model's text reaches the strip. The numbers only: webview/trajectory/sparklineCanvas.ts draws them.
// No DOM, no `vscode`.

export interface SparkColumn {
  /** The first token the column covers. */
  token: number;
  min: number;
  max: number;
}

export interface SparkSummary {
  /** Tokens with a finite Δ. */
  finite: number;
  /** The token with the largest |Δ| (−1 when none is finite) and its Δ. */
  peakToken: number;
  peak: number;
}

/** The largest finite |Δ| over all turns (0 when there is none): the shared half-range of the strips. */
export function sharedRange(turns: ReadonlyArray<ArrayLike<number> | undefined>): number {
  let range = 0;
  for (const values of turns) {
    if (!values) continue;
    for (let i = 0; i < values.length; i += 1) {
      const v = values[i]!;
      if (Number.isFinite(v) && Math.abs(v) > range) range = Math.abs(v);
    }
  }
  return range;
}

/** Min and max Δ per pixel column, `columns` at most (one per token when the turn is shorter); non-finite values skipped. */
export function sparkColumns(values: ArrayLike<number>, columns: number): SparkColumn[] {
  const count = values.length;
  const width = Math.max(1, Math.min(Math.floor(columns), count));
  const out: SparkColumn[] = [];
  for (let c = 0; c < width && count > 0; c += 1) {
    const from = Math.floor((c * count) / width);
    const to = Math.max(from + 1, Math.floor(((c + 1) * count) / width));
    let min = Infinity;
    let max = -Infinity;
    for (let i = from; i < to; i += 1) {
      const v = values[i]!;
      if (!Number.isFinite(v)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    if (min <= max) out.push({ token: from, min, max });
  }
  return out;
}

export function sparkSummary(values: ArrayLike<number>): SparkSummary {
  let finite = 0;
  let peakToken = -1;
  let peak = 0;
  for (let i = 0; i < values.length; i += 1) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    finite += 1;
    if (peakToken < 0 || Math.abs(v) > Math.abs(peak)) {
      peakToken = i;
      peak = v;
    }
  }
  return { finite, peakToken, peak };
}

/** The token under a pixel of a strip `width` pixels wide showing `count` tokens. */
export function tokenAt(x: number, width: number, count: number): number {
  if (count <= 0 || width <= 0) return -1;
  return Math.max(0, Math.min(count - 1, Math.floor((x / width) * count)));
}

/** y of a Δ in a strip `height` pixels high with half-range `range` (0 in the middle; the top is +range). */
export function yOf(value: number, range: number, height: number): number {
  const middle = height / 2;
  if (range <= 0) return middle;
  return middle - (Math.max(-range, Math.min(range, value)) / range) * (middle - 1);
}
