// A group row of the runs table (src/runsTable/shared/runGroups.ts): a disclosure button, the group's label and how
// many runs it has, each measured column's mean with its 95 % t-interval across runs, the value its runs share in
// any other column, and an empty Δ cell (its title says why). A checkbox selects the group's shown runs. All run text
// goes in as text.
import { GROUP_DELTA_TITLE, groupCell, groupCount, type RunGroup } from '../../src/runsTable/shared/runGroups';
import type { Column } from '../../src/runsTable/shared/runsTable';
import { isolatedText } from '../../src/common/shared/inertText';
import { el } from '../shared/dom';

export interface GroupRowOptions {
  columns: readonly Column[];
  expanded: boolean;
  /** How many of the group's shown runs are selected. */
  selected: number;
  /** Whether a Δ column follows this column. */
  hasDelta: (column: Column) => boolean;
  onToggle: () => void;
  /** Select (true) or deselect the group's shown runs. */
  onSelect: (checked: boolean) => void;
}

export function groupRow(group: RunGroup, options: GroupRowOptions): HTMLTableRowElement {
  const { expanded } = options;
  const name = isolatedText(group.label);
  const box = el('input', { attrs: { type: 'checkbox', 'aria-label': `Select the runs of ${name}` } });
  box.checked = options.selected > 0 && options.selected === group.rows.length;
  box.indeterminate = options.selected > 0 && options.selected < group.rows.length;
  box.addEventListener('click', (event) => event.stopPropagation());
  box.addEventListener('change', () => options.onSelect(box.checked));
  const disclosure = el('button', {
    class: 'disclosure',
    text: expanded ? '▾' : '▸',
    attrs: { type: 'button', 'aria-expanded': String(expanded), 'aria-label': `${expanded ? 'Collapse' : 'Expand'} ${name}`, title: expanded ? 'Hide the runs' : 'Show the runs' },
  });
  disclosure.addEventListener('click', (event) => {
    event.stopPropagation();
    options.onToggle();
  });
  const cells: HTMLElement[] = [el('td', {}, box)];
  for (const column of options.columns) {
    if (column.id === 'run') {
      cells.push(el('td', { attrs: { 'data-col': 'run' } }, disclosure, el('span', { class: 'group-label', text: group.label }), el('span', { class: 'muted group-count', text: ` ${groupCount(group)}` })));
    } else {
      const cell = groupCell(group, column.id);
      const numeric = column.kind === 'eval' || column.kind === 'number';
      cells.push(el('td', { class: numeric ? 'num' : '', attrs: { 'data-col': column.id, ...(cell.title ? { title: cell.title } : {}) }, text: cell.text }));
    }
    if (options.hasDelta(column)) cells.push(el('td', { class: 'num delta', attrs: { 'data-delta': column.id, title: GROUP_DELTA_TITLE } }));
  }
  const tr = el('tr', { class: `group${expanded ? ' expanded' : ''}`, attrs: { 'data-group': group.id, 'aria-expanded': String(expanded), tabindex: '0' } }, ...cells);
  tr.addEventListener('click', () => options.onToggle());
  tr.addEventListener('keydown', (event) => {
    if (event.target !== tr) return;
    if (event.key === 'Enter' || (event.key === 'ArrowRight' && !expanded) || (event.key === 'ArrowLeft' && expanded)) options.onToggle();
  });
  return tr;
}
