// Number formatting shared by the viewer, the diff, the text rendering and the tests (so a test can compute the exact
// string a hover must show). No vscode, no Node APIs.

/** A value with `digits` decimals and a real minus sign; `—` for a missing or non-finite value. */
export function formatNumber(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const text = Math.abs(value).toFixed(digits);
  const negative = value < 0 && Number(text) !== 0;
  return `${negative ? '\u2212' : ''}${text}`;
}

/** `+0.1200`, `−0.0300`, `0.0000`: a difference, always signed. */
export function formatSigned(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const body = formatNumber(value, digits);
  return body.startsWith('\u2212') || Number(Math.abs(value).toFixed(digits)) === 0 ? body : `+${body}`;
}

/** A fraction as a percentage with one decimal: `33.3%`. */
export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${(value * 100).toFixed(1)}%`;
}

/** A reward or score without trailing zeros: 1, 0.5, 10, −0.1. */
export function formatScore(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const text = String(Math.round(value * 10000) / 10000);
  return text.startsWith('-') ? `\u2212${text.slice(1)}` : text;
}
