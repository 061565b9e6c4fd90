// The dashboard's before/after panel: for each overlaid run linked to its base evaluations (run.json
// `baseline_evals`), one row per split — success before (the base policy) and after (the run's end-of-run
// evaluation), the change with its 95 % interval (paired task by task when both played the same tasks) and what it
// means. Every cell is text (textContent): run names come from files.
import { changeTexts, shortChange } from '../../src/runs/shared/pairedChange';
import type { BeforeAfterView, DashboardRun } from '../../src/dashboard/shared/protocol';

const pct = (x: number | undefined): string => (x === undefined ? '—' : `${Math.round(100 * x)}%`);

function cell(tag: 'td' | 'th', text: string, className?: string): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

/** The panel, or undefined when no overlaid run links a base evaluation. */
export function beforeAfterPanel(runs: ReadonlyArray<{ run: DashboardRun; beforeAfter: readonly BeforeAfterView[] }>): HTMLElement | undefined {
  const linked = runs.filter((r) => r.beforeAfter.length > 0);
  if (linked.length === 0) return undefined;
  const table = document.createElement('table');
  table.className = 'panel-table before-after-table';
  table.createCaption().textContent = 'Before / after: held-out success of the base policy and after this run, change with its 95 % interval';
  const head = table.createTHead().insertRow();
  head.append(...['run', 'split', 'before', 'after', 'change [95 % interval]', ''].map((text) => cell('th', text)));
  const body = table.createTBody();
  for (const { run, beforeAfter } of linked) {
    for (const pair of beforeAfter) {
      const tr = body.insertRow();
      const texts = changeTexts(pair.split, pair.before, pair.after, pair.change);
      const verdict = pair.change?.verdict ?? 'none';
      tr.className = `before-after-row verdict-${verdict}`;
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
  const section = document.createElement('section');
  section.className = 'panel before-after-panel';
  section.append(table);
  return section;
}
