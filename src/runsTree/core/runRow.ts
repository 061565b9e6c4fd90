// The text of a run's row in the Runs tree. At VS Code's default sidebar width a row shows some 31 characters of its
// label (common/core/sidebarText.ts), and the description after the label is what gets cut. So the label holds what
// identifies the run: its experiment's name, its stage or algorithm, and its state unless it completed (the icon says
// that one); the name is shortened in its middle when they do not fit. The numbers, dates and ids go to the
// description and the tooltip, which holds everything. No `vscode` import.
import type { RunState } from '../../runs/core/runsCore';
import type { RunManifest } from '../../runs/shared/types';
import { SIDEBAR_LABEL_BUDGET, shortenEnd, shortenMiddle, textLength } from '../../common/core/sidebarText';

/** The least of the experiment's name a label keeps: both ends (`bench…d-s1` still says which seed). */
const MIN_NAME = 10;
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
  /** `success 42%`, `eval 52% / 36%` (runLabel.ts). */
  success: string | undefined;
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

/** The state a label names: every one but `completed`. */
function stateWord(state: RunState): string {
  return state === 'completed' ? '' : state;
}

/** `household-demo · seed · running` within SIDEBAR_LABEL_BUDGET: the name shortened first, then what the run is. */
export function runRowLabel(name: string, what: string, state: RunState): string {
  const status = stateWord(state);
  const tail = [what, status].filter(Boolean).join(SEPARATOR);
  const whole = [name, tail].filter(Boolean).join(SEPARATOR);
  if (textLength(whole) <= SIDEBAR_LABEL_BUDGET) return whole;
  if (!tail) return shortenMiddle(name, SIDEBAR_LABEL_BUDGET);
  const room = SIDEBAR_LABEL_BUDGET - textLength(tail) - SEPARATOR.length;
  if (room >= MIN_NAME) return `${shortenMiddle(name, room)}${SEPARATOR}${tail}`;
  // A long `what` (an evaluation of several splits): the name keeps its least, the state stays whole.
  const shortName = shortenMiddle(name, MIN_NAME);
  const statusRoom = status ? textLength(status) + SEPARATOR.length : 0;
  const whatRoom = SIDEBAR_LABEL_BUDGET - textLength(shortName) - SEPARATOR.length - statusRoom;
  return [shortName, shortenEnd(what, whatRoom), status].filter(Boolean).join(SEPARATOR);
}

/** The description after the label: what tells same-titled runs apart (the start time, or the directory when runs
 * started in the same second), then progress while unfinished, then success. */
function runRowDescription(facts: Pick<RunRowFacts, 'extras' | 'manifest' | 'state' | 'success'>): string {
  const parts = facts.extras.slice(-1);
  const progress = facts.manifest?.progress;
  if (progress && facts.state !== 'completed') parts.push(`${progress.step}/${progress.total ?? '?'}`);
  if (facts.success !== undefined) parts.push(facts.success);
  return parts.join(SEPARATOR);
}

/** Everything about the run, one fact a line: the whole title first (the label may be shortened). */
function runRowTooltip(facts: RunRowFacts): string[] {
  const { manifest } = facts;
  const title = [facts.name, facts.what, ...facts.extras].filter(Boolean).join(SEPARATOR);
  const lines = [title, manifest?.id ?? facts.dir.split(/[/\\]/).filter(Boolean).pop() ?? facts.dir];
  if (manifest) {
    lines.push(`${manifest.stage} · ${manifest.algorithm} · ${facts.state}`);
    const numbers = [manifest.progress ? `${manifest.progress.unit ?? 'step'} ${manifest.progress.step}/${manifest.progress.total ?? '?'}` : '', facts.success ?? ''];
    if (numbers.some(Boolean)) lines.push(numbers.filter(Boolean).join(SEPARATOR));
    lines.push(`started ${manifest.started}${manifest.ended ? `, ended ${manifest.ended}` : ''}`);
    lines.push(`${manifest.device.kind}${manifest.device.count ? ` ×${manifest.device.count}` : ''} ${manifest.device.name} · pid ${manifest.pid} on ${manifest.host}`);
    if (manifest.error) lines.push(`error: ${manifest.error}`);
  }
  if (facts.lastEvent) lines.push(facts.lastEvent);
  if (facts.manifestError) lines.push(facts.manifestError);
  lines.push(facts.dir);
  return lines;
}

export function runRow(facts: RunRowFacts): RunRowText {
  return { label: runRowLabel(facts.name, facts.what, facts.state), description: runRowDescription(facts), tooltip: runRowTooltip(facts) };
}
