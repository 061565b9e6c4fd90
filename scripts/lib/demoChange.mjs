/**
 * The demo summary's change in held-out success (after − before) with its 95 % interval, as one line per split.
 * The statistics are the extension's own (src/runs/shared/pairedChange.ts: paired task by task when both evaluations
 * played the same tasks in the same order, else Newcombe's interval), loaded from the source, so the demo's summary
 * and the dashboard's before/after always agree. Either interval holds the evaluation's noise only: one training run
 * says nothing about the spread between training seeds.
 */

import { loadTs } from './loadTs.mjs';

const change = await loadTs('src/runs/shared/pairedChange.ts');

export const { wilson, differenceInterval, t975, pairedByTask, successChange, points } = change;

/** One split's line; `after` and `before` are the eval/<split>.json reports ({overall: {success, n}, episodes}). */
export function changeLine(split, after, before) {
  const c = successChange(after, before);
  const basis = c.paired ? `paired over the same ${c.nAfter} tasks` : `${c.nAfter} and ${c.nBefore} episodes`;
  const range = `${points(c.change)} points, 95 % interval ${change.intervalPoints(c.low, c.high)}${change.clampNote(c.low, c.high)} ${basis}`;
  return `  ${split}: ${range} — ${change.verdictText(c)}.`;
}
