// The virtualized list of turns: only the rows near the viewport exist in the DOM, absolutely placed inside a spacer
// as tall as all rows together. Heights start as estimates and are replaced by measurements as rows are drawn; the
// first visible row keeps its place on screen while heights above it are corrected.
import { VirtualLayout } from '../../src/trajectory/shared/virtualLayout';

export interface TurnListOptions {
  count: number;
  estimate: (index: number) => number;
  render: (index: number) => HTMLElement;
  /** Called after rows were added or removed (e.g. to update the current-turn marker). */
  onChange?: () => void;
  overscan?: number;
}

export class TurnList {
  readonly spacer: HTMLElement;
  private layout: VirtualLayout;
  private readonly rows = new Map<number, HTMLElement>();
  private frame = 0;

  constructor(
    readonly scroller: HTMLElement,
    private readonly options: TurnListOptions,
  ) {
    this.layout = new VirtualLayout(options.count, options.estimate);
    this.spacer = document.createElement('div');
    this.spacer.className = 'turn-spacer';
    scroller.append(this.spacer);
    scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    let width = scroller.clientWidth;
    new ResizeObserver(() => {
      if (Math.abs(scroller.clientWidth - width) < 1) return this.schedule();
      width = scroller.clientWidth;
      this.reset();
    }).observe(scroller);
  }

  get count(): number {
    return this.options.count;
  }

  /** Rows currently in the DOM, by index. */
  get rendered(): ReadonlyMap<number, HTMLElement> {
    return this.rows;
  }

  offsetOf(index: number): number {
    return this.layout.offsetOf(index);
  }

  /** The first row whose top is at or above the viewport's top (the "current" row while scrolling). */
  firstVisible(): number {
    return this.layout.indexAt(this.scroller.scrollTop + 1);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  /** Throws away every drawn row and estimate (width change, mode change) and draws again. */
  reset(): void {
    const anchor = this.firstVisible();
    const delta = this.scroller.scrollTop - this.layout.offsetOf(anchor);
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    this.layout = new VirtualLayout(this.options.count, this.options.estimate);
    this.update({ index: anchor, delta });
  }

  /** Redraws rows in place (their content changed but the layout is still a good estimate). */
  redraw(indices: Iterable<number> = [...this.rows.keys()]): void {
    for (const index of indices) {
      this.rows.get(index)?.remove();
      this.rows.delete(index);
    }
    this.update();
  }

  /** The first draw: only the rows in view, so the first frame waits for nothing else; the rows around them (the
   * overscan, drawn for smooth scrolling) follow once that frame is painted. */
  firstDraw(): void {
    this.update(undefined, 0);
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (this.scroller.isConnected) this.update();
      }, 0),
    );
  }

  /** Draws the rows in view (and `overscan` pixels around it), measures new ones, keeps the anchor row in place. */
  update(anchor?: { index: number; delta: number }, overscan = this.options.overscan ?? 600): void {
    const scroller = this.scroller;
    const keep = anchor ?? { index: this.firstVisible(), delta: scroller.scrollTop - this.layout.offsetOf(this.firstVisible()) };
    for (let pass = 0; pass < 4; pass += 1) {
      const { start, end } = this.layout.visibleRange(scroller.scrollTop, scroller.clientHeight || 800, overscan);
      for (const [index, row] of this.rows) {
        if (index < start || index >= end) {
          row.remove();
          this.rows.delete(index);
        }
      }
      const added: number[] = [];
      for (let index = start; index < end; index += 1) {
        if (this.rows.has(index)) continue;
        const row = this.options.render(index);
        row.classList.add('vrow');
        row.style.transform = `translateY(${this.layout.offsetOf(index)}px)`;
        this.spacer.append(row);
        this.rows.set(index, row);
        added.push(index);
      }
      let changed = false;
      for (const index of added) changed = this.layout.setHeight(index, this.rows.get(index)!.offsetHeight) || changed;
      this.spacer.style.height = `${this.layout.totalHeight}px`;
      if (changed || added.length > 0) {
        for (const [index, row] of this.rows) row.style.transform = `translateY(${this.layout.offsetOf(index)}px)`;
        const target = this.layout.offsetOf(keep.index) + keep.delta;
        if (Math.abs(scroller.scrollTop - target) >= 1) scroller.scrollTop = target;
      }
      if (!changed) break;
    }
    this.options.onChange?.();
  }

  /** Re-measures one drawn row (its content grew or shrank, e.g. "show all"). */
  remeasure(index: number): void {
    const row = this.rows.get(index);
    if (!row) return;
    const anchor = { index: this.firstVisible(), delta: this.scroller.scrollTop - this.layout.offsetOf(this.firstVisible()) };
    if (this.layout.setHeight(index, row.offsetHeight)) this.update(anchor);
  }

  /** Scrolls row `index` to the top of the viewport and draws it; returns its element. */
  scrollTo(index: number): HTMLElement | undefined {
    const target = Math.max(0, Math.min(this.options.count - 1, index));
    for (let pass = 0; pass < 3; pass += 1) {
      this.scroller.scrollTop = this.layout.offsetOf(target);
      this.update({ index: target, delta: 0 });
      if (Math.abs(this.scroller.scrollTop - this.layout.offsetOf(target)) < 1) break;
    }
    return this.rows.get(target);
  }
}
