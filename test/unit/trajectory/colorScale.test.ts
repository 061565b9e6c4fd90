// The heatmap's colour scales: a diverging palette centred on g = 0.5 (and Δ = 0), sequential for log-probs, clamping,
// missing values, and the CSS the webviews use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BINS, CENTER_BIN, PALETTE, PALETTES, binAlpha, binClass, binColor, binOf, binValue, colorOf, cssColor, fittedScale, heatScale, paletteCss } from '../../../src/trajectory/shared/colorScale';

test('gate: 0.5 is the uncoloured centre bin, 0 and 1 the two ends', () => {
  const gate = heatScale('gate');
  assert.equal(gate.kind, 'diverging');
  assert.equal(binOf(gate, 0.5), CENTER_BIN);
  assert.equal(binOf(gate, 0), 0);
  assert.equal(binOf(gate, 1), BINS - 1);
  assert.equal(colorOf('gate', 0.5), 'rgba(0, 0, 0, 0)');
  assert.equal(colorOf('gate', 0), `rgba(${PALETTE.divergingLow.r}, ${PALETTE.divergingLow.g}, ${PALETTE.divergingLow.b}, ${PALETTE.maxAlpha})`);
  assert.equal(colorOf('gate', 1), `rgba(${PALETTE.divergingHigh.r}, ${PALETTE.divergingHigh.g}, ${PALETTE.divergingHigh.b}, ${PALETTE.maxAlpha})`);
});

test('gate: bins are monotone and symmetric around 0.5, values outside [0, 1] clamp, NaN is missing', () => {
  const gate = heatScale('gate');
  let previous = -1;
  for (let v = 0; v <= 1.0000001; v += 0.01) {
    const bin = binOf(gate, v);
    assert.ok(bin >= previous, `bin of ${v} went down`);
    previous = bin;
    assert.equal(binOf(gate, 1 - v) - CENTER_BIN, CENTER_BIN - bin, `symmetry at ${v}`);
  }
  assert.equal(binOf(gate, -3), 0);
  assert.equal(binOf(gate, 7), BINS - 1);
  assert.equal(binOf(gate, Number.NaN), -1);
  assert.equal(colorOf('gate', Number.NaN), undefined);
  assert.equal(binClass('diverging', -1), 'h-none');
  // Just above and below the centre land in different colours (half a bin away).
  assert.equal(binOf(gate, 0.5 + 0.5 / (BINS - 1) + 1e-6), CENTER_BIN + 1);
  assert.equal(binOf(gate, 0.5 - 0.5 / (BINS - 1) - 1e-6), CENTER_BIN - 1);
});

test('opacity grows linearly away from the centre from a visible floor, hue says which side', () => {
  for (let bin = 0; bin < BINS; bin += 1) {
    const color = binColor('diverging', bin);
    assert.ok(Math.abs(color.a - binAlpha(Math.abs(bin - CENTER_BIN) / CENTER_BIN)) < 1e-3);
    if (bin < CENTER_BIN) assert.deepEqual([color.r, color.g, color.b], [PALETTE.divergingLow.r, PALETTE.divergingLow.g, PALETTE.divergingLow.b]);
    if (bin > CENTER_BIN) assert.deepEqual([color.r, color.g, color.b], [PALETTE.divergingHigh.r, PALETTE.divergingHigh.g, PALETTE.divergingHigh.b]);
  }
});

test('the palette ends are apart on the blue–yellow axis (the one red–green colour-blindness keeps) and in lightness', () => {
  const low = PALETTE.divergingLow;
  const high = PALETTE.divergingHigh;
  // Blue minus the red/green mean: opposite signs at the two ends.
  const blueYellow = (c: { r: number; g: number; b: number }) => c.b - (c.r + c.g) / 2;
  assert.ok(blueYellow(low) < -50 && blueYellow(high) > 50);
  const luminance = (c: { r: number; g: number; b: number }) => 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
  assert.ok(Math.abs(luminance(low) - luminance(high)) > 10);
  const dark = PALETTES.dark;
  assert.ok(blueYellow(dark.divergingLow) < -50 && blueYellow(dark.divergingHigh) > 50);
  assert.ok(Math.abs(luminance(dark.divergingLow) - luminance(dark.divergingHigh)) > 10);
});

test('Δ: diverging around 0 over ±2 nats', () => {
  const delta = heatScale('delta');
  assert.equal(binOf(delta, 0), CENTER_BIN);
  assert.equal(binOf(delta, -2), 0);
  assert.equal(binOf(delta, 2), BINS - 1);
  assert.equal(binOf(delta, 0.2), CENTER_BIN + 1);
  assert.equal(binOf(delta, -0.2), CENTER_BIN - 1);
  assert.equal(binValue(delta, 0), -2);
  assert.equal(binValue(delta, CENTER_BIN), 0);
});

test('log-probs: sequential from 0 (uncoloured) down to −8 and beyond (full colour)', () => {
  for (const mode of ['teacher', 'student'] as const) {
    const scale = heatScale(mode);
    assert.equal(scale.kind, 'sequential');
    assert.equal(binOf(scale, 0), 0);
    assert.equal(binOf(scale, -8), BINS - 1);
    assert.equal(binOf(scale, -30), BINS - 1);
    assert.equal(binOf(scale, -4), CENTER_BIN);
    assert.equal(colorOf(mode, 0), 'rgba(0, 0, 0, 0)');
    assert.equal(binValue(scale, 0), 0);
    assert.equal(binValue(scale, BINS - 1), -8);
  }
});

test('CSS: colours in the form Chromium reports, one rule per bin of each palette', () => {
  assert.equal(cssColor({ r: 1, g: 2, b: 3, a: 0 }), 'rgba(0, 0, 0, 0)');
  assert.equal(cssColor({ r: 1, g: 2, b: 3, a: 1 }), 'rgb(1, 2, 3)');
  assert.equal(cssColor({ r: 1, g: 2, b: 3, a: 0.5 }), 'rgba(1, 2, 3, 0.5)');
  const css = paletteCss();
  for (let bin = 0; bin < BINS; bin += 1) {
    assert.ok(css.includes(`.h-d${bin}{background-color:${cssColor(binColor('diverging', bin))}}`));
    assert.ok(css.includes(`.h-s${bin}{background-color:${cssColor(binColor('sequential', bin))}}`));
  }
  assert.equal(css.split('\n').length, 4 * BINS, 'light rules and dark-theme rules');
  assert.ok(css.includes(`body.vscode-dark .h-d${BINS - 1},body.vscode-high-contrast:not(.vscode-high-contrast-light) .h-d${BINS - 1}{background-color:${cssColor(binColor('diverging', BINS - 1, 'dark'))}}`));
});

test('fitted scale: gates within a few hundredths of 0.5 get visible colours; the absolute scale leaves them blank', () => {
  // As in the demo trajectory: g ≈ 0.5 ± 0.02 (94 % of tokens blank under the absolute scale).
  const gates = Float32Array.from({ length: 200 }, (_, i) => 0.5 + 0.02 * Math.sin(i));
  const absolute = heatScale('gate');
  const blankAbsolute = gates.filter((g) => binOf(absolute, g) === CENTER_BIN).length / gates.length;
  const fitted = fittedScale('gate', [gates]);
  const blankFitted = gates.filter((g) => binOf(fitted, g) === CENTER_BIN).length / gates.length;
  assert.ok(blankAbsolute > 0.9, `absolute: ${blankAbsolute}`);
  assert.ok(blankFitted < 0.15, `fitted: ${blankFitted}`);
  assert.equal(fitted.center, 0.5);
  assert.ok(fitted.fitted && fitted.high > 0.515 && fitted.high <= 0.52 + 1e-6 && Math.abs(fitted.high - 0.5 - (0.5 - fitted.low)) < 1e-9);
  // Δ: symmetric around 0 at the 98th percentile of |Δ| (one outlier of 9 nats does not set the domain).
  const deltas = Float32Array.from([...Array.from({ length: 99 }, (_, i) => (i % 2 ? 1 : -1) * (i / 99) * 0.3), 9]);
  const delta = fittedScale('delta', [deltas]);
  assert.ok(delta.high > 0.28 && delta.high < 0.31 && delta.low === -delta.high, JSON.stringify(delta));
  // Sequential: from 0 down to the 2nd percentile.
  const logp = Float32Array.from({ length: 100 }, (_, i) => -i / 50);
  const teacher = fittedScale('teacher', [logp]);
  assert.ok(teacher.high === 0 && teacher.low < -1.9 && teacher.low > -2, JSON.stringify(teacher));
  // No finite values (or no arrays): the absolute scale.
  assert.equal(fittedScale('gate', [undefined, Float32Array.from([Number.NaN])]), absolute);
  assert.equal(colorOf('gate', 0.52, fitted), cssColor(binColor('diverging', BINS - 1)));
});

type Rgb = { r: number; g: number; b: number };

/** WCAG relative luminance of an sRGB colour. */
function relativeLuminance(c: Rgb): number {
  const channel = (v: number): number => {
    const x = v / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
}

/** WCAG contrast ratio of a translucent colour drawn over `background` against that background. */
function contrastOnBackground(color: Rgb & { a: number }, background: Rgb): number {
  const over = {
    r: color.r * color.a + background.r * (1 - color.a),
    g: color.g * color.a + background.g * (1 - color.a),
    b: color.b * color.a + background.b * (1 - color.a),
  };
  const [a, b] = [relativeLuminance(over), relativeLuminance(background)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

test('contrast: the palette ends stand out at least 3:1 from both the light and the dark theme background', () => {
  const light = { r: 255, g: 255, b: 255 };
  const dark = { r: 30, g: 30, b: 30 }; // Dark+ editor background #1e1e1e
  for (const kind of ['diverging', 'sequential'] as const) {
    const ends = kind === 'diverging' ? [0, BINS - 1] : [BINS - 1];
    for (const bin of ends) {
      assert.ok(contrastOnBackground(binColor(kind, bin, 'light'), light) >= 3, `${kind} ${bin} on light`);
      assert.ok(contrastOnBackground(binColor(kind, bin, 'dark'), dark) >= 3, `${kind} ${bin} on dark: ${contrastOnBackground(binColor(kind, bin, 'dark'), dark)}`);
    }
  }
  // What the issue saw: the light palette's blue on a dark background is nearly invisible.
  assert.ok(contrastOnBackground(binColor('diverging', BINS - 1, 'light'), dark) < 3);
});

test('fitted scale on a heavy-tailed Δ (a near-deterministic policy): log distance colours what a linear fit would blank', () => {
  // Quantiles as measured on a household trajectory of the shipped tiny policy: median |Δ| 2e-5, 90th 3e-3, max 0.14.
  const magnitudes = [2e-6, 2e-6, 2e-5, 1.3e-4, 2.7e-3, 5.4e-2, 0.105, 0.137, 0.144];
  const deltas = Float32Array.from(magnitudes.flatMap((m, i) => [m, -m * (i % 2 ? 1 : 0.9)]));
  const fitted = fittedScale('delta', [deltas]);
  assert.equal(fitted.logDecades, 3);
  const blank = (scale: ReturnType<typeof heatScale>) => [...deltas].filter((d) => binOf(scale, d) === CENTER_BIN).length / deltas.length;
  assert.ok(blank(heatScale('delta')) > 0.7, `absolute ${blank(heatScale('delta'))}`);
  assert.ok(blank(fitted) < 0.45, `fitted ${blank(fitted)}`); // the 2e-6, 2e-5 and 1.3e-4 tokens: under span/1000
  // Below a thousandth of the domain's end a token stays blank (agreement to ~1e-5 nats is not a disagreement).
  assert.equal(binOf(fitted, fitted.high / 2000), CENTER_BIN);
  assert.equal(binOf(fitted, fitted.high), BINS - 1);
  assert.ok(Math.abs(binValue(fitted, BINS - 1) - fitted.high) < 1e-9 && binValue(fitted, CENTER_BIN) === fitted.center);
});

test('issue 41 item 4: the few informative gates stand out, and the scale counts the neutral ones', () => {
  // 33 tokens the skill leaves unchanged (g within 1e-7 of ½, as a peaked policy gives) and 11 that it moves.
  const neutral = Array.from({ length: 33 }, (_, i) => 0.5 + (i % 2 ? 1e-7 : -1e-7));
  const informative = [0.62, 0.71, 0.43, 0.55, 0.9, 0.31, 0.58, 0.52, 0.47, 0.66, 0.8];
  const scale = fittedScale('gate', [Float32Array.from([...neutral, ...informative])]);
  assert.deepEqual({ coloured: scale.coverage?.coloured, total: scale.coverage?.total }, { coloured: 11, total: 44 });
  assert.ok(scale.coverage!.floor > 1e-6 && scale.coverage!.floor < 0.01, `floor ${scale.coverage!.floor}`);
  for (const value of informative) {
    const alpha = binColor('diverging', binOf(scale, value)).a;
    assert.ok(alpha >= PALETTE.minAlpha, `g = ${value} is tinted only ${alpha}`);
  }
  for (const value of neutral) assert.equal(binOf(scale, value), CENTER_BIN);
  // Δ of the same tokens colours the same ones (g = σ(βΔ) is monotone in Δ).
  const delta = fittedScale('delta', [Float32Array.from([...neutral, ...informative].map((g) => Math.log(g / (1 - g)) / 5))]);
  assert.equal(delta.coverage?.coloured, 11);
});
