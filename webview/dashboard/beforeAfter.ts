// The dashboard's before/after panel: for each overlaid run linked to its base evaluations (run.json
// `baseline_evals`), one row per split — success before (the base policy) and after (the run's end-of-run
// evaluation), the change with its 95 % interval (paired task by task when both played the same tasks) and what it
// means; grouped (issue 54), each group's mean across its runs first. Every cell is text (textContent): run names and
// group labels come from files.
import { changeTexts, points, shortChange } from '../../src/runs/shared/pairedChange';
import { groupedChanges } from '../../src/dashboard/shared/groupedChange';
import type { BeforeAfterView, DashboardRun } from '../../src/dashboard/shared/protocol';

const pct = (x: number | undefined): string => (x === undefined ? '—' : `${Math.round(100 * x)}%`);

function cell(tag: 'td' | 'th', text: string, className?: string): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

type LinkedRun = { run: DashboardRun; beforeAfter: readonly BeforeAfterView[] };

const CAPTION = 'Before / after: held-out success of the base policy and after this run, change with its 95 % interval';

/** A group's rows (issue 54): per split the mean success before and after across its runs, and the mean change with
 * its 95 % t-interval across the runs — the spread between seeds; a run's own interval holds its evaluation's noise. */
function groupRows(body: HTMLTableSectionElement, label: string, word: (n: number) => string, runs: readonly LinkedRun[]): void {
  if (runs.length === 1) {
    // A group of one: a heading, so that its run is not read as one of the group above.
    const tr = body.insertRow();
    tr.className = 'before-after-row group-row';
    const note = cell('td', 'one run: its own change below');
    note.setAttribute('colspan', '5');
    tr.append(cell('th', `${label} — 1 ${word(1)} (n=1)`), note);
    return;
  }
  for (const grouped of groupedChanges(runs.map((r) => r.beforeAfter))) {
    if (!grouped.change) continue;
    const { change, before, after } = grouped;
    const tr = body.insertRow();
    const verdict = grouped.n < 2 ? 'one run so far' : grouped.verdict === 'better' ? 'better' : grouped.verdict === 'worse' ? 'worse' : 'inside the noise';
    tr.className = `before-after-row group-row verdict-${grouped.n < 2 ? 'none' : grouped.verdict}`;
    tr.title = `${grouped.split}: the mean over ${grouped.n} ${word(grouped.n)} of their before, after and change; the change's 95 % t-interval is across the ${word(grouped.n)} (n − 1 = ${grouped.n - 1} degrees of freedom)`;
    tr.append(
      cell('th', `${label} — mean of ${grouped.n}${grouped.n < runs.length ? ` of ${runs.length}` : ''} ${word(runs.length)}`),
      cell('td', grouped.split),
      cell('td', pct(before?.mean)),
      cell('td', pct(after?.mean)),
      cell('td', change.low === undefined || change.high === undefined ? `${points(change.mean)} pts (n=1)` : `${points(change.mean)} pts [${points(change.low)}, ${points(change.high)}] across ${word(grouped.n)}`, 'change'),
      cell('td', verdict, 'verdict'),
    );
  }
}

/** The panel, or undefined when no overlaid run links a base evaluation. Grouped: each group's mean rows, then its
 * runs' own. */
export function beforeAfterPanel(runs: readonly LinkedRun[], grouped?: { by: string; word: (n: number) => string; groups: ReadonlyArray<{ label: string; keys: readonly string[] }> }): HTMLElement | undefined {
  const linked = runs.filter((r) => r.beforeAfter.length > 0);
  if (linked.length === 0) return undefined;
  const table = document.createElement('table');
  table.className = 'panel-table before-after-table';
  table.createCaption().textContent = grouped
    ? `${CAPTION}. Grouped by ${grouped.by}: each group's mean over its ${grouped.word(2)} with the change's 95 % t-interval across them, then each run's own paired change`
    : CAPTION;
  const head = table.createTHead().insertRow();
  head.append(...['run', 'split', 'before', 'after', 'change [95 % interval]', ''].map((text) => cell('th', text)));
  const body = table.createTBody();
  const sections = grouped
    ? grouped.groups.map((g) => ({ label: g.label, runs: g.keys.map((key) => linked.find((r) => r.run.key === key)).filter((r): r is LinkedRun => r !== undefined) }))
    : [{ label: '', runs: linked }];
  for (const section of sections) {
    if (grouped) groupRows(body, section.label, grouped.word, section.runs);
    for (const { run, beforeAfter } of section.runs) appendRunRows(body, run, beforeAfter, grouped !== undefined);
  }
  const section = document.createElement('section');
  section.className = 'panel before-after-panel';
  section.append(table);
  return section;
}

/** A run's rows: per split, its before, after and own change (paired task by task when it can be). */
function appendRunRows(body: HTMLTableSectionElement, run: DashboardRun, beforeAfter: readonly BeforeAfterView[], member: boolean): void {
  for (const pair of beforeAfter) {
    const tr = body.insertRow();
    const texts = changeTexts(pair.split, pair.before, pair.after, pair.change);
    const verdict = pair.change?.verdict ?? 'none';
    tr.className = `before-after-row verdict-${verdict}${member ? ' member-row' : ''}`;
    tr.title = pair.problem ? `${texts.tooltip}\n${pair.problem}` : `${texts.tooltip}\nbase evaluation: ${pair.baseRun}`;
    tr.append(
      cell('th', run.name),
      cell('td', pair.split),
      cell('td', pair.before ? `${pct(pair.before.success)} (n=${pair.before.n})` : pair.problem ? 'unreadable' : '—'),
      cell('td', pair.after ? `${pct(pair.after.success)} (n=${pair.after.n})` : '…'),
      cell('td', pair.change ? `${shortChange(pair.change)}${pair.change.paired ? ' paired' : ''}` : '—', 'change'),
      cell('td', pair.change ? (verdict === 'better' ? 'better' : verdict === 'worse' ? 'worse' : 'inside the noise') : texts.description, 'verdict'),
    );
  }
}
