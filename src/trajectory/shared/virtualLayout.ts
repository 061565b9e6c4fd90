// The arithmetic of a virtualized list of variable-height rows (the viewer's turns): estimated heights that are
// replaced by measured ones, offsets by prefix sums, and the rows that intersect the viewport. No DOM here.
// No vscode, no Node APIs.

export class VirtualLayout {
  private readonly heights: Float64Array;
  private readonly offsets: Float64Array;
  /** offsets[0..validUpTo] are up to date. */
  private validUpTo = 0;

  constructor(
    readonly count: number,
    estimate: (index: number) => number,
  ) {
    this.heights = new Float64Array(count);
    this.offsets = new Float64Array(count + 1);
    for (let i = 0; i < count; i += 1) this.heights[i] = Math.max(0, estimate(i));
  }

  heightOf(index: number): number {
    return this.heights[index] ?? 0;
  }

  /** Records a measured height; true when it changed (offsets after it move). */
  setHeight(index: number, height: number): boolean {
    if (index < 0 || index >= this.count) return false;
    const value = Math.max(0, height);
    if (Math.abs(this.heights[index]! - value) < 0.5) return false;
    this.heights[index] = value;
    this.validUpTo = Math.min(this.validUpTo, index);
    return true;
  }

  private ensure(upTo: number): void {
    for (let i = this.validUpTo; i < upTo; i += 1) this.offsets[i + 1] = this.offsets[i]! + this.heights[i]!;
    this.validUpTo = Math.max(this.validUpTo, upTo);
  }

  /** Top of row `index` (index = count gives the total height). */
  offsetOf(index: number): number {
    const clamped = Math.max(0, Math.min(this.count, index));
    this.ensure(clamped);
    return this.offsets[clamped]!;
  }

  get totalHeight(): number {
    return this.offsetOf(this.count);
  }

  /** The row containing y (the last row for y past the end, 0 for y before the start). */
  indexAt(y: number): number {
    if (this.count === 0) return 0;
    this.ensure(this.count);
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid]! <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Rows [start, end) that intersect [top − overscan, top + height + overscan]. */
  visibleRange(top: number, height: number, overscan = 0): { start: number; end: number } {
    if (this.count === 0) return { start: 0, end: 0 };
    const start = this.indexAt(Math.max(0, top - overscan));
    const bottom = top + height + overscan;
    let end = this.indexAt(bottom) + 1;
    // A row starting exactly at `bottom` is not visible.
    if (end - 1 > start && this.offsetOf(end - 1) >= bottom) end -= 1;
    return { start, end: Math.min(this.count, end) };
  }
}

/**
 * An estimate of a wrapped text block's height: lines of `text` wrapped at `charsPerLine`, times the line height.
 * Good enough to size the scroll area before a row is measured.
 */
export function estimateTextHeight(text: string, charsPerLine: number, lineHeight: number): number {
  if (text.length === 0) return 0;
  const width = Math.max(1, Math.floor(charsPerLine));
  let lines = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lines += Math.max(1, Math.ceil((end - start) / width));
    start = end + 1;
  }
  return lines * lineHeight;
}
