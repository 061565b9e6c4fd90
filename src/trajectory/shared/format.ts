// Number formatting shared by the viewer, the diff, the text rendering and the tests (so a test can compute the exact
// string a hover must show). No vscode, no Node APIs.
import { NOTHING_HAPPENS } from '../../runs/shared/actionResult';

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

/** The colour class of a signed difference as shown at `digits` decimals: one that shows as 0 is neither up nor down. */
export function signClass(value: number, digits: number): 'up' | 'down' | 'zero' {
  const shown = Number(value.toFixed(digits));
  return shown > 0 ? 'up' : shown < 0 ? 'down' : 'zero';
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

/**
 * The badges of a turn's action; `result` is the environment's reply to it (actionResult: for the last turn, the final
 * observation). `valid` in the run format is format verification only: the response held a well-formed
 * `<action>…</action>` (docs/run-format.md §7.2), not that the environment accepted it, so it reads "well-formed" /
 * "malformed"; an action the environment answered with "Nothing happens." (the household and ALFWorld reply to an
 * inadmissible command) gets "no effect" beside it.
 */
export function actionBadges(valid: boolean, result: string | undefined): Array<{ text: string; kind: 'valid' | 'invalid' | 'warn'; title: string }> {
  const badges: Array<{ text: string; kind: 'valid' | 'invalid' | 'warn'; title: string }> = [
    valid
      ? { text: 'well-formed', kind: 'valid', title: 'The response holds a well-formed <action>…</action>. Whether the environment accepted the action shows in its reply (the next observation).' }
      : { text: 'malformed', kind: 'invalid', title: 'The response holds no well-formed <action>…</action> (format verification failed): its step score carries the invalid-action penalty.' },
  ];
  if (valid && result !== undefined && NOTHING_HAPPENS.test(result)) {
    badges.push({ text: 'no effect', kind: 'warn', title: 'The environment answered "Nothing happens.": the action was not admissible here.' });
  }
  return badges;
}

/** The tooltip of a step's score: what it is made of (trainer/seed_trainer/algo/advantages.py, step_scores). */
export const SCORE_TITLE =
  'Step score = rl.reward_scale (10) × the episode\'s success (1 won, 0 not) − rl.invalid_penalty (0.1) if this step\'s action was malformed. ' +
  'So 10 or 9.9 in a won episode, 0 or −0.1 in a lost one; the advantage is computed from it.';
