// The token heatmap shared by the viewer and the diff: one span per generated token, coloured by the bin of its value
// under the chosen mode; a legend; a hover card with Δ, g, ℓ^skill and ℓ^θ of the token under the pointer, and b and
// g − b where the run's OPD estimator subtracted a baseline from g.
import type { TokenArrays } from '../../src/runs/shared/tokenArrays';
import { BINS, FIT_QUANTILE, binClass, binOf, binValue, paletteCss, type HeatMode, type HeatScale } from '../../src/trajectory/shared/colorScale';
import { formatNumber } from '../../src/trajectory/shared/format';
import { baselineWording, gateMinusBaseline, type OpdEstimator } from '../../src/runs/shared/opdEstimator';
import { displayText } from '../../src/common/shared/inertText';
import { adoptCss, el } from '../shared/dom';

export const MODE_LABELS: Record<HeatMode, string> = {
  gate: 'Gate g',
  delta: 'Δ',
  teacher: 'Teacher ℓ^skill',
  student: 'Student ℓ^θ',
  weight: 'g − b',
};

export function modeValues(arrays: TokenArrays, mode: HeatMode): Float32Array | undefined {
  switch (mode) {
    case 'gate':
      return arrays.gate;
    case 'delta':
      return arrays.delta;
    case 'teacher':
      return arrays.teacherLogp;
    case 'student':
      return arrays.logp;
    case 'weight':
      return gateMinusBaseline(arrays);
  }
}

/** A label with `x^sup` written as a superscript (`ℓ^skill` → ℓ<sup>skill</sup>); our own labels only. */
export function mathLabel(label: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const parts = label.split(/\^([A-Za-z\u03b8]+)/);
  parts.forEach((part, index) => {
    if (index % 2 === 1) fragment.append(el('sup', { text: part }));
    else if (part) fragment.append(document.createTextNode(part));
  });
  return fragment;
}

let paletteInstalled = false;

/** Installs the bin classes and the token / hover-card styles once per page. */
export function installHeatmapStyles(): void {
  if (paletteInstalled) return;
  paletteInstalled = true;
  adoptCss(paletteCss());
}

/** The CSS class of token `i` under a scale (`tok h-d13`, `tok h-none` when the value is missing). */
function tokenClass(arrays: TokenArrays, index: number, scale: HeatScale | undefined): string {
  const values = scale ? modeValues(arrays, scale.mode) : undefined;
  const empty = (arrays.text[index] ?? '') === '' ? ' empty' : '';
  if (!scale || !values) return `tok h-none${empty}`;
  return `tok ${binClass(scale.kind, binOf(scale, values[index] ?? Number.NaN))}${empty}`;
}

export interface RenderedTokens {
  fragment: DocumentFragment;
  /** Tokens given a span (all, unless the text passed `maxChars`). */
  rendered: number;
}

/**
 * Spans for the tokens of one step: `<span class="tok h-…" data-i="k">text</span>`. A token whose piece is empty (it
 * ends inside a multi-byte character) still gets a span, drawn as a thin bar, so it can be hovered. Stops after
 * `maxChars` characters of text (a hostile 1 MB token must not hang the page); the caller offers the rest.
 */
export function renderTokens(arrays: TokenArrays, scale: HeatScale | undefined, maxChars = Infinity, from = 0): RenderedTokens {
  const fragment = document.createDocumentFragment();
  let chars = 0;
  let index = from;
  for (; index < arrays.count && chars < maxChars; index += 1) {
    const piece = arrays.text[index] ?? '';
    const span = document.createElement('span');
    span.className = tokenClass(arrays, index, scale);
    span.setAttribute('data-i', String(index));
    if (piece !== '') span.textContent = displayText(piece);
    chars += piece.length;
    fragment.append(span);
  }
  return { fragment, rendered: index - from };
}

/** Re-colours existing token spans of one step for another mode or scale (no re-creation). */
export function recolorTokens(container: ParentNode, arrays: TokenArrays, scale: HeatScale | undefined): void {
  for (const span of container.querySelectorAll<HTMLElement>('.tok')) {
    const index = Number(span.getAttribute('data-i'));
    const focused = span.classList.contains('focus-token') ? ' focus-token' : '';
    span.className = tokenClass(arrays, index, scale) + focused;
  }
}

/** The legend of a scale: the bins from the low end to the high end, the domain's ends and their meaning. */
export function legend(scale: HeatScale): HTMLElement {
  const mode = scale.mode;
  const bar = el('div', { class: 'legend-bar', attrs: { role: 'img', 'aria-label': `${scale.title}: ${formatNumber(scale.low, 1)} to ${formatNumber(scale.high, 1)}` } });
  for (let k = 0; k < BINS; k += 1) {
    // Left to right from the low value to the high value (sequential bins count down from the high end).
    const bin = scale.kind === 'diverging' ? k : BINS - 1 - k;
    bar.append(el('span', { class: `legend-bin ${binClass(scale.kind, bin)}`, title: formatNumber(binValue(scale, bin), 3) }));
  }
  const gateLike = mode === 'gate' || mode === 'weight';
  const digits = scale.fitted ? (gateLike ? 3 : 2) : gateLike ? 1 : 0;
  const ticks = el(
    'div',
    { class: 'legend-ticks' },
    el('span', { text: `${scale.kind === 'sequential' ? '≤ ' : ''}${formatNumber(scale.low, digits)}` }),
    scale.kind === 'diverging' ? el('span', { text: formatNumber(scale.center, digits) }) : null,
    el('span', { text: formatNumber(scale.high, digits) }),
  );
  return el(
    'div',
    { class: 'legend', attrs: { 'data-mode': mode, 'data-scale': scale.fitted ? 'fitted' : 'absolute' } },
    el('div', { class: 'legend-title' }, mathLabel(scale.title), scale.fitted ? ` — fitted to this trajectory${scale.logDecades ? `, log distance over ${scale.logDecades} decades` : ''}` : ' — absolute'),
    bar,
    ticks,
    el('div', { class: 'legend-meaning' }, el('span', { class: 'legend-low', text: `◀ ${scale.lowMeaning}` }), el('span', { class: 'legend-high', text: `${scale.highMeaning} ▶` })),
    neutralCaption(scale),
    scale.note ? el('div', { class: 'legend-caption legend-note', text: scale.note, attrs: { 'data-k': 'estimator-note' } }) : null,
  );
}

/**
 * Why most tokens are uncoloured (fitted gate and Δ scales): they are within the scale's floor of the neutral value —
 * the skill leaves their probability unchanged — with the counts, so a mostly blank heatmap reads as a finding.
 */
function neutralCaption(scale: HeatScale): HTMLElement | null {
  const coverage = scale.coverage;
  if (!coverage || (scale.mode !== 'gate' && scale.mode !== 'delta' && scale.mode !== 'weight')) return null;
  const neutral = coverage.total - coverage.coloured;
  const floor = coverage.floor.toExponential(0);
  const weight = scale.mode === 'weight';
  const what = {
    gate: `g \u2248 \u00BD (|g \u2212 \u00BD| < ${floor})`,
    delta: `\u0394 \u2248 0 (|\u0394| < ${floor} nats)`,
    weight: `g \u2248 b (|g \u2212 b| < ${floor})`,
  }[scale.mode as 'gate' | 'delta' | 'weight'];
  const unchanged = weight ? 'the update gave this token almost no push' : "the skill leaves this token's probability unchanged";
  const text =
    neutral === 0
      ? `All ${coverage.total} tokens are coloured: ${weight ? 'the update pushed every token' : "the skill moves every token's probability"}.`
      : `Uncoloured: ${neutral} of ${coverage.total} tokens, ${what}: ${unchanged}. Coloured: the ${coverage.coloured} ${weight ? 'it pushed' : 'it moves'}, strongest at the ends (the scale reaches the ${Math.round(FIT_QUANTILE * 100)}th percentile of the distance from neutral).`;
  return el('div', { class: 'legend-caption', text, attrs: { 'data-k': 'neutral-caption', 'data-coloured': String(coverage.coloured), 'data-total': String(coverage.total) } });
}

export interface TokenAt {
  arrays: TokenArrays;
  index: number;
  /** e.g. "turn 3" or "A · turn 3". */
  where: string;
  /** The run's OPD estimator: names b and g − b in the card (when the step recorded a gate baseline). */
  estimator?: OpdEstimator | undefined;
}

/** The hover card: follows the token under the pointer inside `container`; `locate` maps a span to its arrays. */
export class TokenHoverCard {
  readonly element: HTMLElement;
  private current: HTMLElement | undefined;

  constructor(
    container: HTMLElement,
    private readonly locate: (span: HTMLElement) => TokenAt | undefined,
  ) {
    this.element = el('div', { class: 'token-card', attrs: { role: 'tooltip', 'aria-hidden': 'true' } });
    this.element.hidden = true;
    document.body.append(this.element);
    // Content scrolled under a still pointer (a jump to a token, the sparkline's click) fires mouseover too: the
    // card stays on the token jumped to until the pointer itself moves.
    let pointer = { x: Number.NaN, y: Number.NaN };
    const still = (event: MouseEvent): boolean => {
      const same = event.clientX === pointer.x && event.clientY === pointer.y;
      pointer = { x: event.clientX, y: event.clientY };
      return same;
    };
    document.addEventListener('mousemove', (event) => void still(event), { passive: true });
    container.addEventListener('mouseover', (event) => {
      if (still(event) && this.current) return;
      const span = (event.target as HTMLElement | null)?.closest<HTMLElement>('.tok');
      if (span && span !== this.current) this.show(span);
    });
    container.addEventListener('mouseleave', () => this.hide());
    container.addEventListener('mouseout', (event) => {
      const to = (event.relatedTarget as HTMLElement | null)?.closest('.tok');
      if (!to) this.hide();
    });
    container.addEventListener('scroll', () => this.hide(), { passive: true });
  }

  show(span: HTMLElement): void {
    const at = this.locate(span);
    if (!at) return this.hide();
    this.current?.classList.remove('hovered');
    this.current = span;
    span.classList.add('hovered');
    const { arrays, index } = at;
    const value = (values: Float32Array | undefined) => (values ? formatNumber(values[index]) : '—');
    const row = (key: string, label: string, text: string) =>
      el('div', { class: 'card-row', attrs: { 'data-k': key } }, el('span', { class: 'card-label' }, mathLabel(label)), el('span', { class: 'card-value', text }));
    const piece = arrays.text[index] ?? '';
    const wording = arrays.gateBaseline ? baselineWording(at.estimator) : undefined;
    this.element.replaceChildren(
      el('div', { class: 'card-token', text: piece === '' ? '(empty piece: completed by the next token)' : JSON.stringify(displayText(piece)) }),
      el('div', { class: 'card-where', text: `${at.where} · token ${index + 1} of ${arrays.count} · id ${arrays.ids[index] ?? '?'}` }),
      row('gate', 'g', value(arrays.gate)),
      row('delta', 'Δ', value(arrays.delta)),
      row('teacher', 'ℓ^skill', value(arrays.teacherLogp)),
      row('student', 'ℓ^θ', value(arrays.logp)),
      ...(wording
        ? [
            row('baseline', wording.baseline, value(arrays.gateBaseline)),
            row('weight', wording.weightRow, value(gateMinusBaseline(arrays))),
          ]
        : []),
    );
    this.element.hidden = false;
    this.element.setAttribute('aria-hidden', 'false');
    const rect = span.getBoundingClientRect();
    const card = this.element.getBoundingClientRect();
    let left = Math.min(rect.left, window.innerWidth - card.width - 8);
    left = Math.max(4, left);
    let top = rect.bottom + 6;
    if (top + card.height > window.innerHeight - 4) top = Math.max(4, rect.top - card.height - 6);
    this.element.style.left = `${left}px`;
    this.element.style.top = `${top}px`;
  }

  hide(): void {
    this.current?.classList.remove('hovered');
    this.current = undefined;
    this.element.hidden = true;
    this.element.setAttribute('aria-hidden', 'true');
  }
}
