// Tick labels and ranges of the dashboard's axes: steps are whole numbers (no `0.8200000000000001` between two
// updates), wall time reads as minutes, and a single point gets a range around it instead of a zero-width axis.
// No DOM, no `vscode`.

export type XAxis = 'step' | 'time';

/** The label of an x tick, or '' for a tick to leave unlabelled (a fractional step). */
export function xTickLabel(value: number, axis: XAxis): string {
  if (axis === 'step') return Number.isInteger(value) ? String(value) : '';
  return `${cleanNumber(value)} min`;
}

/** A number without floating-point noise: at most 4 significant digits after rounding. */
export function cleanNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return '0';
  const rounded = Number(value.toPrecision(4));
  return Math.abs(value) >= 1e5 || Math.abs(value) < 1e-3 ? value.toExponential(2) : String(rounded);
}

/** The x range to show when every point has the same x (chart.js would draw an empty, degenerate axis). */
export function paddedRange(min: number, max: number, axis: XAxis): { min: number; max: number } | undefined {
  if (!(Number.isFinite(min) && Number.isFinite(max)) || max > min) return undefined;
  const pad = axis === 'step' ? 1 : Math.max(0.5, Math.abs(min) * 0.1);
  return { min: axis === 'step' ? Math.max(0, min - pad) : min - pad, max: max + pad };
}

/**
 * The y range of a series that is (nearly) constant: chart.js fits the axis to the data, so a flat loss of 0.0004
 * with float noise in the 8th digit filled the plot and read as a spike. The span is at least a tenth of the values'
 * size (1 around 0), centred on them; undefined when the data already span that much.
 */
export function flatYRange(min: number, max: number): { min: number; max: number } | undefined {
  if (!(Number.isFinite(min) && Number.isFinite(max))) return undefined;
  const size = Math.max(Math.abs(min), Math.abs(max));
  const span = size > 0 ? size * 0.1 : 1;
  if (max - min >= span) return undefined;
  const centre = (min + max) / 2;
  return { min: centre - span / 2, max: centre + span / 2 };
}
