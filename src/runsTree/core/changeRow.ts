// The text of a before → after row under a run in the Runs tree (one per split it links a base evaluation for). At
// the default sidebar width the change and its interval are what must show whole (they were cut: issue 54 item 5), so
// the label is the split and the description the numbers: `valid_seen` · `48→52% +4 [-6, +14]`. Where that does not
// fit (a long split name, an interval of three digits), the before → after gives way first, then the split's middle.
// The verdict is the row's icon; the tooltip keeps every word (pairedChange.ts changeTexts). No `vscode` import.
import type { BeforeAfter } from '../../runs/core/beforeAfter';
import { changeTexts, intervalPoints, points } from '../../runs/shared/pairedChange';
import { shortenMiddle } from '../../common/core/sidebarText';
import { descriptionWidth, labelWidth, longestFitting, rowRoom } from '../../common/core/sidebarWidth';

/** The tree level of a before → after row: under its run. */
const CHANGE_ROW_LEVEL = 2;

export interface ChangeRowText {
  label: string;
  description: string;
  tooltip: string;
}

const pct = (x: number): string => `${Math.round(100 * x)}`;

/** The descriptions to try, the fullest first; the last one is the row's headline and is never shortened. */
function descriptions(change: BeforeAfter): string[] {
  const before = change.before?.overall;
  const after = change.after?.overall;
  if (change.problem) return ['base evaluation unreadable', 'base unreadable'];
  if (!change.change) {
    const missing = !before ? 'no base evaluation' : 'no final evaluation yet';
    return before ? [`${pct(before.success)}%→… ${missing}`, missing] : [missing];
  }
  const { change: delta, low, high } = change.change;
  const interval = `${points(delta)} ${intervalPoints(low, high)}`;
  return before && after ? [`${pct(before.success)}→${pct(after.success)}% ${interval}`, interval] : [interval];
}

/** The row fitted to its level's room: the split whole beside the fullest description that fits, else the split
 * shortened in its middle beside the headline. */
export function changeRow(change: BeforeAfter): ChangeRowText {
  const room = rowRoom(CHANGE_ROW_LEVEL);
  const texts = changeTexts(change.split, change.before?.overall, change.after?.overall, change.change);
  // Without a change the sentence names no success: the base's, which the row may leave out, is said here.
  const before = !change.change && change.before ? `success ${pct(change.before.overall.success)}% before (base policy), n = ${change.before.overall.n}` : '';
  const tooltip = [texts.tooltip, before, `base evaluation: ${change.baseRun}`, change.problem].filter(Boolean).join('\n');
  const candidates = descriptions(change);
  const fitting = candidates.find((description) => labelWidth(change.split) + descriptionWidth(description) <= room);
  if (fitting !== undefined) return { label: change.split, description: fitting, tooltip };
  const headline = candidates.at(-1) ?? '';
  const label = longestFitting(change.split, room - descriptionWidth(headline), labelWidth, shortenMiddle) ?? shortenMiddle(change.split, 2);
  return { label, description: headline, tooltip };
}
