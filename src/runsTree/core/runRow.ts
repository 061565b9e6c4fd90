// The text of a run's row in the Runs tree. At VS Code's default sidebar width a row shows some 233 px of label and
// description together (common/core/sidebarWidth.ts), and the workbench cuts the description first, which is where a
// run's result is. So the row is fitted whole: the description holds the headline (progress while unfinished, the
// success: `3/30 · 40%`, `52%/36%`) and what tells same-titled runs apart; the label holds what identifies the run:
// its experiment's name, its stage or algorithm, and its state unless it completed (the icon says that one). A state
// its icon says plainly gives way first (running spins; stopping and stopped are the debugger's pause and stop), then
// the name (shortened in its middle), then what tells same-titled runs apart (down to its least form, never left
// out). The tooltip holds everything, the words of the success included. No `vscode` import.
import type { RunState } from '../../runs/core/runsCore';
import { compactSuccess, successText, type RunResult } from '../../runs/core/runLabel';
import type { RunManifest } from '../../runs/shared/types';
import { shortenEnd, shortenMiddle, shortenStart } from '../../common/core/sidebarText';
import { descriptionWidth, labelWidth, longestFitting, rowRoom } from '../../common/core/sidebarWidth';

/** The least of the experiment's name a label keeps: both ends (`benc…-s1` still says which seed). */
const MIN_NAME = 8;
/** The least of a directory's name that tells runs started in the same second apart (`…ed-2`). */
const MIN_TELLER = 6;
const SEPARATOR = ' · ';

export interface RunRowFacts {
  /** The experiment's name (the directory's for a run without a readable manifest). */
  name: string;
  /** What tells the experiment's runs apart: `seed`, `sft`, `eval valid_seen`; empty without a manifest. */
  what: string;
  state: RunState;
  /** What the title needs after it to be told from the other runs listed: a start time, a directory name. */
  extras: readonly string[];
  manifest: RunManifest | undefined;
  /** The run's success (runLabel.ts runResult). */
  result: RunResult | undefined;
  dir: string;
  lastEvent?: string;
  manifestError?: string;
}

export interface RunRowText {
  label: string;
  description: string;
  /** Plain-text lines (the tree renders them inert). */
  tooltip: string[];
}

const join = (...parts: string[]): string => parts.filter(Boolean).join(SEPARATOR);

/** States whose icon says them plainly: a running run's spins; stopping and stopped are the debugger's pause and stop. */
const QUIET_STATES: ReadonlySet<RunState> = new Set(['running', 'stopping', 'stopped']);

/** The label's ends after the name, the fullest first: what the run is and its state (not `completed`); then without
 * a state its icon says plainly. */
function labelTails(what: string, state: RunState): string[] {
  if (state === 'completed') return [what];
  return QUIET_STATES.has(state) ? [join(what, state), what] : [join(what, state)];
}

/** name · tail in `room` px: the whole name beside the fullest tail that fits, else the name shortened in its middle
 * to no less than MIN_NAME; undefined when neither fits. */
function fitLabel(name: string, tails: readonly string[], room: number): string | undefined {
  const whole = tails.map((tail) => join(name, tail)).find((label) => labelWidth(label) <= room);
  if (whole) return whole;
  for (const tail of tails) {
    const nameRoom = room - (tail ? labelWidth(SEPARATOR + tail) : 0);
    const shortName = longestFitting(name, nameRoom, labelWidth, shortenMiddle, MIN_NAME);
    if (shortName) return join(shortName, tail);
  }
  return undefined;
}

/** `household-demo · seed · running` in `room` px (the whole row's by default): a state its icon says plainly left out
 * first (QUIET_STATES), then the name shortened in its middle, then what the run is shortened at its end; any other
 * state (failed, interrupted, broken) stays whole. */
export function runRowLabel(name: string, what: string, state: RunState, room = rowRoom(1)): string {
  const tails = labelTails(what, state);
  const fitted = fitLabel(name, tails, room);
  if (fitted) return fitted;
  const status = state === 'completed' || QUIET_STATES.has(state) ? '' : state;
  if (!what) return longestFitting(join(name, status), room, labelWidth, shortenMiddle) ?? status;
  const shortName = shortenMiddle(name, MIN_NAME);
  const whatRoom = room - labelWidth(shortName + SEPARATOR) - (status ? labelWidth(SEPARATOR + status) : 0);
  return join(shortName, longestFitting(what, whatRoom, labelWidth, shortenEnd) ?? shortenEnd(what, 2), status);
}

/** What tells same-titled runs apart, the fullest first: a start time (runLabel.ts titleExtras) without its year and
 * seconds, then its time of day; a directory's name shortened at its start down to MIN_TELLER. */
function tellers(teller: string): string[] {
  const time = /^\d{4}-(\d{2}-\d{2}) (\d{2}:\d{2})(:\d{2})?$/.exec(teller);
  if (time) return [teller, `${time[1]} ${time[2]}`, time[2]!];
  const out = [teller];
  for (let n = Array.from(teller).length - 1; n >= MIN_TELLER; n -= 1) out.push(shortenStart(teller, n));
  return out;
}

/** The descriptions to try, the fullest first: the progress and the success, then the success alone, each with what
 * tells same-titled runs apart (tellers(), never left out: two rows would read the same). */
function descriptions(progress: string, success: string, teller: string): string[] {
  const headlines = [join(progress, success), ...(progress && success ? [success] : [])];
  const forms = teller ? tellers(teller) : [''];
  return headlines.flatMap((headline) => forms.map((form) => join(headline, form)));
}

/** Label and description fitted to the row: the fullest description beside a label that fits; else the least of
 * them beside the label fitted to what it leaves (what the run is shortened at its end), and as much of it as fits
 * after a label that still does not. */
function fitRow(facts: Pick<RunRowFacts, 'name' | 'what' | 'state'>, progress: string, success: string, teller: string): { label: string; description: string } {
  const room = rowRoom(1);
  const tails = labelTails(facts.what, facts.state);
  const candidates = descriptions(progress, success, teller);
  for (const description of candidates) {
    const label = fitLabel(facts.name, tails, room - descriptionWidth(description));
    if (label) return { label, description };
  }
  const least = candidates.at(-1) ?? '';
  const label = runRowLabel(facts.name, facts.what, facts.state, room - descriptionWidth(least));
  return { label, description: longestFitting(least, room - labelWidth(label), descriptionWidth, shortenEnd) ?? '' };
}

/** Everything about the run, one fact a line: the whole title first (the label may be shortened). */
function runRowTooltip(facts: RunRowFacts): string[] {
  const { manifest } = facts;
  const title = [facts.name, facts.what, ...facts.extras].filter(Boolean).join(SEPARATOR);
  const lines = [title, manifest?.id ?? facts.dir.split(/[/\\]/).filter(Boolean).pop() ?? facts.dir];
  const success = facts.result && successText(facts.result);
  if (manifest) {
    lines.push(`${manifest.stage} · ${manifest.algorithm} · ${facts.state}`);
    const numbers = [manifest.progress ? `${manifest.progress.unit ?? 'step'} ${manifest.progress.step}/${manifest.progress.total ?? '?'}` : '', success ?? ''];
    if (numbers.some(Boolean)) lines.push(numbers.filter(Boolean).join(SEPARATOR));
    lines.push(`started ${manifest.started}${manifest.ended ? `, ended ${manifest.ended}` : ''}`);
    lines.push(`${manifest.device.kind}${manifest.device.count ? ` ×${manifest.device.count}` : ''} ${manifest.device.name} · pid ${manifest.pid} on ${manifest.host}`);
    if (manifest.error) lines.push(`error: ${manifest.error}`);
  } else if (success) lines.push(success);
  if (facts.lastEvent) lines.push(facts.lastEvent);
  if (facts.manifestError) lines.push(facts.manifestError);
  lines.push(facts.dir);
  return lines;
}

export function runRow(facts: RunRowFacts): RunRowText {
  const progress = facts.manifest?.progress;
  // Progress while there is some left: a run stopped at its last update has none.
  const unfinished = progress && facts.state !== 'completed' && (progress.total === null || progress.step < progress.total);
  const steps = unfinished ? `${progress.step}/${progress.total ?? '?'}` : '';
  const success = facts.result ? compactSuccess(facts.result) : '';
  return { ...fitRow(facts, steps, success, facts.extras.at(-1) ?? ''), tooltip: runRowTooltip(facts) };
}
