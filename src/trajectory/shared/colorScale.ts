// Colour scales of the token heatmap. The gate g = σ(β·Δ) and Δ use a diverging blue–orange palette (safe for the
// common colour-vision deficiencies: the two ends differ in lightness and in the blue–yellow axis, not in red–green),
// centred on the value that means "no preference" (g = 0.5, Δ = 0); the log-probs use a sequential purple scale from
// 0 (certain) down. The absolute domains (g in [0, 1], Δ in ±2 nats, log-probs down to −8) compare across
// trajectories and are what the diff uses; g − b (the weight an OPD estimator that subtracts a baseline gave the
// sampled token) is diverging around 0 over [−1, 1]; the viewer fits the domain to the trajectory's own range by default,
// because in a real trajectory most gates sit within a few hundredths of 0.5 and would all be blank. Values are
// quantized into BINS bins; the centre bin of a diverging scale is uncoloured. Each theme kind has its own palette
// ends, chosen for at least 3:1 contrast against the theme's background (WCAG's non-text contrast).
// No vscode and no Node APIs: the webviews import this module too.
import { GATE_CENTRE } from '../../runs/shared/gate';
import { baselineWording, subtractsBaseline, type OpdEstimator } from '../../runs/shared/opdEstimator';

export type HeatMode = 'gate' | 'delta' | 'teacher' | 'student' | 'weight';
export const HEAT_MODES: readonly HeatMode[] = ['gate', 'delta', 'teacher', 'student', 'weight'];

/** Odd, so a diverging scale has an exact centre bin. */
export const BINS = 21;
export const CENTER_BIN = (BINS - 1) / 2;

export interface HeatScale {
  mode: HeatMode;
  kind: 'diverging' | 'sequential';
  /** The value of bin 0 (values beyond are clamped to it). */
  low: number;
  /** The neutral value (diverging) — bin CENTER_BIN. */
  center: number;
  /** The value of the last bin. */
  high: number;
  /** What is coloured, for the legend. */
  title: string;
  /** What the two ends mean, for the legend. */
  lowMeaning: string;
  highMeaning: string;
  /** The domain was fitted to a trajectory's values (not the absolute one). */
  fitted?: boolean;
  /**
   * Colour by the logarithm of the distance from the neutral value over this many decades below the domain's end
   * (fitted scales): teacher and student agree to within 1e-5 nats on most tokens of a near-deterministic policy, and
   * a linear scale fitted to the few strong disagreements would leave all the rest blank.
   */
  logDecades?: number;
  /**
   * How many of the values the scale was fitted to get a colour (fitted diverging scales): the rest are within
   * `floor` of the neutral value — g ≈ ½, Δ ≈ 0, the skill leaves the token's probability unchanged — and stay
   * uncoloured. The viewer's legend says so, with the counts.
   */
  coverage?: { coloured: number; total: number; floor: number };
  /** A sentence the legend shows under the scale (what the run's update did with these values). */
  note?: string;
}

const SCALES: Record<HeatMode, HeatScale> = {
  gate: {
    mode: 'gate',
    kind: 'diverging',
    low: 0,
    center: GATE_CENTRE,
    high: 1,
    title: 'gate g = σ(β·Δ)',
    lowMeaning: 'hindsight teacher finds the token less likely',
    highMeaning: 'hindsight teacher finds the token more likely',
  },
  delta: {
    mode: 'delta',
    kind: 'diverging',
    low: -2,
    center: 0,
    high: 2,
    title: 'Δ = ℓ^skill − ℓ^θ (nats)',
    lowMeaning: 'teacher below student',
    highMeaning: 'teacher above student',
  },
  teacher: {
    mode: 'teacher',
    kind: 'sequential',
    low: -8,
    center: 0,
    high: 0,
    title: 'teacher log-prob ℓ^skill (nats)',
    lowMeaning: 'unlikely under the skill-conditioned teacher',
    highMeaning: 'certain',
  },
  student: {
    mode: 'student',
    kind: 'sequential',
    low: -8,
    center: 0,
    high: 0,
    title: 'student log-prob ℓ^θ (nats)',
    lowMeaning: 'unlikely under the policy',
    highMeaning: 'certain',
  },
  weight: {
    mode: 'weight',
    kind: 'diverging',
    low: -1,
    center: 0,
    high: 1,
    title: 'update weight g − b',
    lowMeaning: 'the update pushed the sampled token down',
    highMeaning: 'pushed it up',
  },
};

export function heatScale(mode: HeatMode): HeatScale {
  return SCALES[mode];
}

/** The smallest half-width a fitted diverging scale gets (a trajectory of exactly neutral values stays blank). */
const MIN_SPAN: Record<HeatMode, number> = { gate: 0.005, delta: 0.01, teacher: 0.05, student: 0.05, weight: 0.005 };
/** The largest half-width of a fitted diverging scale: its absolute domain's (g lies in [0, 1], g − b in [−1, 1]). */
const MAX_SPAN: Partial<Record<HeatMode, number>> = { gate: 0.5, weight: 1 };
/** The share of values inside a fitted domain: the rest are clamped to its ends (a few outliers do not wash it out). */
export const FIT_QUANTILE = 0.98;

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))] ?? Number.NaN;
}

/** Decades a fitted scale covers below the end of its domain. */
const FIT_DECADES = 3;

/**
 * The scale of `mode` with its domain fitted to `values` (e.g. every turn's array of the trajectory): a diverging
 * scale stays centred and spans the 98th percentile of |value − centre| (never beyond the absolute domain of g); a
 * sequential one runs from 0 down to the 2nd percentile. Colours follow the distance from the neutral value on a log
 * scale over FIT_DECADES decades. Without finite values, the absolute scale.
 */
export function fittedScale(mode: HeatMode, values: Iterable<ArrayLike<number> | undefined>): HeatScale {
  const base = SCALES[mode];
  const collected: number[] = [];
  for (const array of values) {
    if (!array) continue;
    for (let i = 0; i < array.length; i += 1) {
      const value = array[i] ?? Number.NaN;
      if (Number.isFinite(value)) collected.push(base.kind === 'diverging' ? Math.abs(value - base.center) : value);
    }
  }
  if (collected.length === 0) return base;
  const sorted = Float64Array.from(collected).sort();
  if (base.kind === 'diverging') {
    let span = Math.max(quantile(sorted, FIT_QUANTILE), MIN_SPAN[mode]);
    span = Math.min(span, MAX_SPAN[mode] ?? Infinity);
    const scale: HeatScale = { ...base, low: base.center - span, high: base.center + span, fitted: true, logDecades: FIT_DECADES };
    // The smallest distance from the neutral value that leaves the centre bin (binOf rounds |t|·CENTER_BIN).
    const floor = unspread(scale, 0.5 / CENTER_BIN) * span;
    let firstColoured = sorted.length;
    for (let lo = 0, hi = sorted.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (binOf(scale, base.center + (sorted[mid] ?? 0)) !== CENTER_BIN) hi = firstColoured = mid;
      else lo = mid + 1;
    }
    return { ...scale, coverage: { coloured: sorted.length - firstColoured, total: sorted.length, floor } };
  }
  const low = Math.min(quantile(sorted, 1 - FIT_QUANTILE), -MIN_SPAN[mode]);
  return { ...base, low, fitted: true, logDecades: FIT_DECADES };
}

/** The bin of a value: 0..BINS−1, or −1 for a value that is missing (NaN). Out-of-domain values are clamped. */
/** A fraction of the domain (0 = neutral, 1 = its end) through the scale's log transform, if any. */
function spread(scale: HeatScale, fraction: number): number {
  const m = Math.max(0, Math.min(1, fraction));
  if (!scale.logDecades) return m;
  return m <= 0 ? 0 : Math.max(0, 1 + Math.log10(m) / scale.logDecades);
}

function unspread(scale: HeatScale, t: number): number {
  if (!scale.logDecades) return t;
  return t <= 0 ? 0 : 10 ** ((t - 1) * scale.logDecades);
}

export function binOf(scale: HeatScale, value: number): number {
  if (Number.isNaN(value)) return -1;
  if (scale.kind === 'diverging') {
    const span = value >= scale.center ? scale.high - scale.center : scale.center - scale.low;
    const t = Math.sign(value - scale.center) * spread(scale, Math.abs(value - scale.center) / span);
    // Rounded away from the centre symmetrically (Math.round alone would round −2.5 and 2.5 differently).
    return CENTER_BIN + Math.sign(t) * Math.round(Math.abs(t) * CENTER_BIN);
  }
  // Sequential: bin 0 at `high` (certain, uncoloured), the last bin at `low`.
  const t = spread(scale, (scale.high - value) / (scale.high - scale.low));
  return Math.round(t * (BINS - 1));
}

/** The value at the middle of a bin (legend ticks, tests). */
export function binValue(scale: HeatScale, bin: number): number {
  if (scale.kind === 'diverging') {
    const t = (bin - CENTER_BIN) / CENTER_BIN;
    const m = Math.sign(t) * unspread(scale, Math.abs(t));
    return m >= 0 ? scale.center + m * (scale.high - scale.center) : scale.center + m * (scale.center - scale.low);
  }
  return scale.high - unspread(scale, bin / (BINS - 1)) * (scale.high - scale.low);
}

export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

export type ThemeKind = 'light' | 'dark';

/**
 * Ends of the palettes: orange for the low end of a diverging scale, blue for the high end, purple sequential. On a
 * dark background the blue of the light theme is too dark to see (2.0:1 against #1e1e1e), so the dark
 * theme has lighter ends.
 */
export const PALETTES: Record<ThemeKind, { divergingLow: Rgb; divergingHigh: Rgb; sequential: Rgb }> = {
  light: { divergingLow: { r: 200, g: 90, b: 0 }, divergingHigh: { r: 20, g: 90, b: 180 }, sequential: { r: 140, g: 80, b: 200 } },
  dark: { divergingLow: { r: 245, g: 150, b: 40 }, divergingHigh: { r: 80, g: 150, b: 255 }, sequential: { r: 190, g: 130, b: 255 } },
};

/** The light theme's palette (the default of the CSS; tests read it). */
export const PALETTE = {
  ...PALETTES.light,
  /** Opacity at the ends; it falls linearly to minAlpha at the bin next to the neutral one. */
  maxAlpha: 0.8,
  /**
   * Opacity of the faintest coloured bin: every token outside the neutral bin is visibly tinted, so the few
   * informative tokens of a near-deterministic policy stand out; the neutral bin keeps the theme's background.
   */
  minAlpha: 0.2,
} as const;

/** Opacity of a bin at fraction `t` (0..1) of the way from the neutral value to an end. */
export function binAlpha(t: number): number {
  const step = 1 / CENTER_BIN;
  if (t < step / 2) return 0;
  // Two decimals: Chromium reports a computed alpha so, and the tests compare computed colours with colorOf.
  return Math.round((PALETTE.minAlpha + ((t - step) / (1 - step)) * (PALETTE.maxAlpha - PALETTE.minAlpha)) * 100) / 100;
}

interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** The colour of a bin of a scale of `kind` (a translucent overlay on the theme's background). */
export function binColor(kind: HeatScale['kind'], bin: number, theme: ThemeKind = 'light'): Rgba {
  const palette = PALETTES[theme];
  if (kind === 'diverging') {
    const t = (bin - CENTER_BIN) / CENTER_BIN;
    const end = t < 0 ? palette.divergingLow : palette.divergingHigh;
    return { ...end, a: binAlpha(Math.abs(t)) };
  }
  return { ...palette.sequential, a: binAlpha(bin / (BINS - 1)) };
}

/** `rgba(r, g, b, a)` exactly as Chromium reports a computed background colour (a = 0 → `rgba(0, 0, 0, 0)`). */
export function cssColor(color: Rgba): string {
  if (color.a === 0) return 'rgba(0, 0, 0, 0)';
  return color.a === 1 ? `rgb(${color.r}, ${color.g}, ${color.b})` : `rgba(${color.r}, ${color.g}, ${color.b}, ${color.a})`;
}

/** The CSS colour of a value under a mode (its absolute scale, or `scale`); `undefined` for a missing value. */
export function colorOf(mode: HeatMode, value: number, scale: HeatScale = heatScale(mode), theme: ThemeKind = 'light'): string | undefined {
  const bin = binOf(scale, value);
  return bin < 0 ? undefined : cssColor(binColor(scale.kind, bin, theme));
}

/** The class name of a bin, as the webview's generated stylesheet names it (`h-d0`…, `h-s20`). */
export function binClass(kind: HeatScale['kind'], bin: number): string {
  return bin < 0 ? 'h-none' : `h-${kind === 'diverging' ? 'd' : 's'}${bin}`;
}

/** CSS rules for every bin of both palettes, the dark palette under VS Code's dark and high-contrast body classes. */
export function paletteCss(): string {
  const rules: string[] = [];
  const scopes: Record<ThemeKind, string[]> = { light: [''], dark: ['body.vscode-dark ', 'body.vscode-high-contrast:not(.vscode-high-contrast-light) '] };
  for (const theme of ['light', 'dark'] as const) {
    for (const kind of ['diverging', 'sequential'] as const) {
      for (let bin = 0; bin < BINS; bin += 1) {
        const selector = scopes[theme].map((scope) => `${scope}.${binClass(kind, bin)}`).join(',');
        rules.push(`${selector}{background-color:${cssColor(binColor(kind, bin, theme))}}`);
      }
    }
  }
  return rules.join('\n');
}

/** The note under the gate legend of a run whose update did not weigh tokens by g itself (undefined for `sample`). */
function gateModeNote(estimator: OpdEstimator | undefined, hasBaseline: boolean): string | undefined {
  if (!subtractsBaseline(estimator) || !hasBaseline) return undefined;
  const wording = baselineWording(estimator);
  return `This run's update (opd.estimator: ${estimator}) weighed the sampled tokens by ${wording.weight}, not by g: colour by ${wording.weight} (5) to see it.`;
}

/**
 * A scale with the run's estimator in its words: the g − b scale gets the estimator's title, meanings and note; the
 * gate scale of a run whose update subtracted a baseline says so (and where to see it). Other scales are unchanged.
 */
export function describeScale(scale: HeatScale, estimator: OpdEstimator | undefined, hasBaseline: boolean): HeatScale {
  if (scale.mode === 'weight') {
    const { title, lowMeaning, highMeaning, note } = baselineWording(estimator);
    return { ...scale, title, lowMeaning, highMeaning, note };
  }
  const note = scale.mode === 'gate' ? gateModeNote(estimator, hasBaseline) : undefined;
  return note ? { ...scale, note } : scale;
}
