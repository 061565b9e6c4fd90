// The runs table (src/runsTable/runsTablePanel.ts): every run of the workspace a row; columns picked from config keys,
// final metrics and evaluations; a filter; sort by any column (click its header, again to reverse); tags; a baseline
// per split, and after each evaluation column with one a Δ column: the paired change with its 95 % interval (the
// host computes it), coloured only when the interval excludes 0; runs grouped by a config key or "all but seed", a
// group row with each measured column's mean and t-interval across runs (groupRows.ts), its runs a click away; CSV
// export; the selection opens in the dashboard. All run text goes in as text.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-multi-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { RUNS_TABLE_TO_WEBVIEW, type RunsTableToHost, type RunsTableToWebview } from '../../src/runsTable/shared/protocol';
import {
  availableColumns,
  baselineSplits,
  cellText,
  columnOf,
  defaultColumnIds,
  deltaCell,
  filterRows,
  reportedSplits,
  runsCsv,
  sortRows,
  type Column,
  type RunsTableRow,
} from '../../src/runsTable/shared/runsTable';
import { filterGroups, groupIntervalTitle, groupsCsv, sortGroups, type RunGroup } from '../../src/runsTable/shared/runGroups';
import { groupRuns, groupingOf, groupingOptions } from '../../src/runs/shared/runGrouping';
import { groupRow } from './groupRows';
import { clear, el } from '../shared/dom';
import { HostChannel } from '../shared/hostApi';
import { isolatedText } from '../../src/common/shared/inertText';

const channel = new HostChannel<RunsTableToWebview, RunsTableToHost>(RUNS_TABLE_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));

interface PageState {
  columns?: string[];
  sort: { id: string; direction: 'ascending' | 'descending' };
  filter: string;
  /** '' (none), `all-but-seed` or `config:<key>` (runGroups.ts). */
  group: string;
  /** The ids of the expanded groups. */
  expanded: string[];
}
const saved = (channel.state ?? {}) as Partial<PageState>;
const state: PageState = {
  sort: saved.sort ?? { id: 'run', direction: 'ascending' },
  filter: saved.filter ?? '',
  group: typeof saved.group === 'string' ? saved.group : '',
  expanded: Array.isArray(saved.expanded) ? saved.expanded.filter((id) => typeof id === 'string') : [],
  ...(saved.columns ? { columns: saved.columns } : {}),
};
const save = (): void => {
  channel.state = state;
};

let data: RunsTableToWebview['rows'] | undefined;
const selected = new Set<string>();

type Field = HTMLElement & { value: string };
type MultiSelect = HTMLElement & { value: string[] };

function button(label: string, action: string): HTMLElement & { disabled: boolean } {
  const node = document.createElement('vscode-button') as HTMLElement & { disabled: boolean };
  node.textContent = label;
  node.setAttribute('data-action', action);
  return node;
}

const filterField = document.createElement('vscode-textfield') as Field;
filterField.id = 'filter';
filterField.setAttribute('placeholder', 'Filter: words, tag:NAME, key=value, key>n, -word');
filterField.value = state.filter;
filterField.addEventListener('input', () => {
  state.filter = filterField.value;
  save();
  render();
});
const columnSelect = document.createElement('vscode-multi-select') as MultiSelect;
columnSelect.id = 'columns';
columnSelect.setAttribute('aria-label', 'Columns');
columnSelect.addEventListener('change', () => {
  const picked = Array.isArray(columnSelect.value) ? columnSelect.value : [];
  state.columns = picked.length > 0 ? ['run', ...picked.filter((id) => id !== 'run')] : ['run'];
  save();
  render();
});
const groupSelect = document.createElement('vscode-single-select') as Field;
groupSelect.id = 'group-by';
groupSelect.setAttribute('aria-label', 'Group by');
groupSelect.addEventListener('change', () => {
  state.group = groupSelect.value;
  save();
  render();
});
const count = el('span', { class: 'muted count' });
const tagField = document.createElement('vscode-textfield') as Field;
tagField.id = 'tag-input';
tagField.setAttribute('placeholder', 'tag');
const addTag = button('Add Tag', 'add-tag');
const dashboard = button('Open in Dashboard', 'dashboard');
const samples = button('Evaluation Samples', 'samples');
const pin = button('Pin as Baseline', 'pin');
const exportCsv = button('Export CSV', 'csv');
const tableHolder = el('div', { class: 'table-holder' });
root.append(
  el('header', { class: 'toolbar' }, el('h1', { text: 'Runs' }), count, filterField, el('span', { class: 'muted', text: 'Columns' }), columnSelect, el('span', { class: 'muted', text: 'Group by' }), groupSelect),
  el('div', { class: 'toolbar actions' }, tagField, addTag, dashboard, samples, pin, exportCsv),
  tableHolder,
);

function shownColumns(rows: readonly RunsTableRow[]): Column[] {
  const ids = state.columns ?? defaultColumnIds(rows);
  return ids.map(columnOf);
}

/** The groups shown (none without a grouping): filtered, sorted, each with its matching runs. */
function visibleGroups(): RunGroup[] {
  if (!data || !state.group) return [];
  const ids = shownColumns(data.rows).map((c) => c.id);
  return sortGroups(filterGroups(groupRuns(data.rows, state.group), state.filter, ids), state.sort.id, state.sort.direction);
}

/** The runs shown, in the table's order (grouped: every run of the shown groups, expanded or not). */
function visibleRows(): RunsTableRow[] {
  if (!data) return [];
  if (state.group) return visibleGroups().flatMap((g) => g.rows);
  const ids = shownColumns(data.rows).map((c) => c.id);
  return sortRows(filterRows(data.rows, state.filter, ids), state.sort.id, state.sort.direction);
}

/** "Group by": nothing, all but seed, or a config key. */
function fillGroupSelect(rows: readonly RunsTableRow[]): void {
  state.group = groupingOf(state.group, rows);
  clear(groupSelect);
  for (const { value, label } of groupingOptions(rows)) {
    const option = document.createElement('vscode-option');
    option.setAttribute('value', value);
    option.textContent = label;
    if (value === state.group) option.setAttribute('selected', '');
    groupSelect.append(option);
  }
  groupSelect.value = state.group;
}

function fillColumnSelect(rows: readonly RunsTableRow[]): void {
  const shown = new Set(shownColumns(rows).map((c) => c.id));
  clear(columnSelect);
  for (const column of availableColumns(rows)) {
    if (column.id === 'run') continue;
    const option = document.createElement('vscode-option');
    option.setAttribute('value', column.id);
    option.textContent = column.label;
    if (shown.has(column.id)) option.setAttribute('selected', '');
    columnSelect.append(option);
  }
}

function tagChips(row: RunsTableRow): HTMLElement {
  const cell = el('td', { attrs: { 'data-col': 'tags' } });
  for (const tag of row.tags) {
    const remove = el('button', { class: 'remove-tag', text: '×', attrs: { 'aria-label': `Remove tag ${isolatedText(tag)}`, title: `Remove tag ${isolatedText(tag)}` } });
    remove.disabled = data?.readOnly ?? false;
    remove.addEventListener('click', (event) => {
      event.stopPropagation();
      channel.post('tags', { changes: [{ run: row.key, tags: row.tags.filter((t) => t !== tag) }] });
    });
    cell.append(el('span', { class: 'tag', attrs: { 'data-tag': tag } }, el('span', { text: tag }), remove));
  }
  return cell;
}

/** `baseline` beside the title of a run that is the baseline of a split (the splits in its title). */
function badge(row: RunsTableRow): HTMLElement | null {
  const splits = baselineSplits(data?.baselines ?? {}, row.key);
  return splits.length > 0 ? el('span', { class: 'pin-badge', text: 'baseline', attrs: { title: `baseline of ${splits.join(', ')}` } }) : null;
}

function updateActions(): void {
  const rows = data?.rows ?? [];
  const chosen = rows.filter((r) => selected.has(r.key));
  dashboard.disabled = chosen.length === 0;
  samples.disabled = chosen.length !== 1 || Object.keys(chosen[0]?.evals ?? {}).length === 0;
  addTag.disabled = chosen.length === 0 || (data?.readOnly ?? false);
  const pinned = pinAction(chosen);
  pin.textContent = pinned === 'unpin-all' ? 'Unpin Baselines' : pinned === 'unpin' ? 'Unpin Baseline' : 'Pin as Baseline';
  pin.disabled = pinned === undefined;
}

/** What the pin button does: unpin the one selected run if it is a baseline, else pin it (when it has a report);
 * with nothing selected, unpin every baseline. */
function pinAction(chosen: readonly RunsTableRow[]): 'pin' | 'unpin' | 'unpin-all' | undefined {
  const baselines = data?.baselines ?? {};
  const [one] = chosen;
  if (chosen.length === 0) return Object.keys(baselines).length > 0 ? 'unpin-all' : undefined;
  if (chosen.length !== 1 || !one) return undefined;
  if (baselineSplits(baselines, one.key).length > 0) return 'unpin';
  return reportedSplits(one).length > 0 ? 'pin' : undefined;
}

/** `baselines: valid_seen ← a, valid_unseen ← b` (titles as isolated text). */
function baselinesText(all: readonly RunsTableRow[]): string {
  const entries = Object.entries(data?.baselines ?? {});
  if (entries.length === 0) return '';
  const titles = entries.map(([split, key]) => `${split} ← ${isolatedText(all.find((r) => r.key === key)?.title ?? key)}`);
  return ` · ${entries.length === 1 ? 'baseline' : 'baselines'}: ${titles.join(', ')}`;
}

/** The header row: the select-all box and each column (a click sorts by it), a Δ header after each column with one. */
function headRow(columns: readonly Column[], rows: readonly RunsTableRow[], deltaSplit: (column: Column) => string | undefined): HTMLElement {
  const allBox = el('input', { attrs: { type: 'checkbox', 'aria-label': state.group ? 'Select the runs of every shown group' : 'Select all shown runs' } });
  allBox.checked = rows.length > 0 && rows.every((r) => selected.has(r.key));
  allBox.addEventListener('change', () => {
    for (const row of rows) {
      if (allBox.checked) selected.add(row.key);
      else selected.delete(row.key);
    }
    render();
  });
  const headCells: HTMLElement[] = [el('th', {}, allBox)];
  for (const column of columns) {
    const title = state.group && (column.kind === 'eval' || column.kind === 'number') ? `${column.id} — ${groupIntervalTitle(column.id)}` : column.id;
    const th = el('th', { attrs: { 'data-col': column.id, 'aria-sort': state.sort.id === column.id ? state.sort.direction : 'none', tabindex: '0', role: 'columnheader', title } }, column.label);
    const toggle = (): void => {
      state.sort = { id: column.id, direction: state.sort.id === column.id && state.sort.direction === 'descending' ? 'ascending' : state.sort.id === column.id ? 'descending' : column.kind === 'text' || column.kind === 'tags' ? 'ascending' : 'descending' };
      save();
      render();
    };
    th.addEventListener('click', toggle);
    th.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') toggle();
    });
    headCells.push(th);
    if (deltaSplit(column) !== undefined) {
      const deltaTitle = `change in success against the baseline of ${deltaSplit(column)}, points [95 % interval]; coloured only when the interval excludes 0`;
      headCells.push(el('th', { class: 'delta', attrs: { 'data-delta': column.id, title: deltaTitle }, text: `Δ ${column.label}` }));
    }
  }
  return el('tr', {}, ...headCells);
}

/** A run's row (`group`: a member row of that group, indented). */
function runRow(row: RunsTableRow, columns: readonly Column[], deltaSplit: (column: Column) => string | undefined, group?: string): HTMLElement {
  const baselines = data?.baselines ?? {};
  const box = el('input', { attrs: { type: 'checkbox', 'aria-label': `Select ${row.title}` } });
  box.checked = selected.has(row.key);
  box.addEventListener('click', (event) => event.stopPropagation());
  box.addEventListener('change', () => {
    if (box.checked) selected.add(row.key);
    else selected.delete(row.key);
    render();
  });
  const cells: HTMLElement[] = [el('td', {}, box)];
  for (const column of columns) {
    if (column.kind === 'tags') cells.push(tagChips(row));
    else if (column.id === 'run') cells.push(el('td', { attrs: { 'data-col': 'run' } }, cellText(row, 'run'), badge(row)));
    else cells.push(el('td', { attrs: { 'data-col': column.id }, class: column.kind === 'text' ? '' : 'num', text: cellText(row, column.id) }));
    const split = deltaSplit(column);
    if (split !== undefined) {
      const delta = deltaCell(row, split, baselines);
      cells.push(el('td', { class: `num delta${delta.className ? ` ${delta.className}` : ''}`, attrs: { 'data-delta': column.id, ...(delta.title ? { title: delta.title } : {}) }, text: delta.text }));
    }
  }
  const isBaseline = baselineSplits(baselines, row.key).length > 0;
  const classes = [selected.has(row.key) ? 'selected' : '', isBaseline ? 'baseline' : '', group !== undefined ? 'member' : ''].filter(Boolean).join(' ');
  const tr = el('tr', { class: classes, attrs: { 'data-key': row.key, 'data-id': row.id, ...(group !== undefined ? { 'data-member-of': group } : {}), tabindex: '0', 'aria-selected': String(selected.has(row.key)) } }, ...cells);
  tr.addEventListener('click', (event) => {
    if (!(event.ctrlKey || event.metaKey)) selected.clear();
    if (selected.has(row.key)) selected.delete(row.key);
    else selected.add(row.key);
    render();
  });
  tr.addEventListener('dblclick', () => channel.post('openDashboard', { runs: [row.key] }));
  tr.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') channel.post('openDashboard', { runs: [row.key] });
  });
  return tr;
}

/** A group's row, then its runs when it is expanded. */
function groupRowsOf(group: RunGroup, columns: readonly Column[], deltaSplit: (column: Column) => string | undefined): HTMLElement[] {
  const expanded = state.expanded.includes(group.id);
  const head = groupRow(group, {
    columns,
    expanded,
    selected: group.rows.filter((r) => selected.has(r.key)).length,
    hasDelta: (column) => deltaSplit(column) !== undefined,
    onToggle: () => {
      state.expanded = expanded ? state.expanded.filter((id) => id !== group.id) : [...state.expanded, group.id];
      save();
      render();
      (tableHolder.querySelector(`tr.group[data-group="${CSS.escape(group.id)}"]`) as HTMLElement | null)?.focus();
    },
    onSelect: (checked) => {
      for (const row of group.rows) {
        if (checked) selected.add(row.key);
        else selected.delete(row.key);
      }
      render();
    },
  });
  return [head, ...(expanded ? group.rows.map((row) => runRow(row, columns, deltaSplit, group.id)) : [])];
}

function render(): void {
  if (!data) return;
  const started = performance.now();
  const all = data.rows;
  const columns = shownColumns(all);
  const groups = visibleGroups();
  const rows = visibleRows();
  const baselines = data.baselines;
  const deltaSplit = (column: Column): string | undefined => (column.kind === 'eval' && baselines[column.id.slice(5)] !== undefined ? column.id.slice(5) : undefined);
  const inGroups = state.group ? ` in ${groups.length} ${groups.length === 1 ? 'group' : 'groups'}` : '';
  count.textContent = `${rows.length} of ${all.length} runs${inGroups}${baselinesText(all)}`;
  const body = el('tbody');
  if (state.group) for (const group of groups) body.append(...groupRowsOf(group, columns, deltaSplit));
  else for (const row of rows) body.append(runRow(row, columns, deltaSplit));
  clear(tableHolder);
  tableHolder.append(
    rows.length === 0
      ? el('p', { class: 'muted empty', text: all.length === 0 ? 'No runs in this workspace yet (seedStudio.runs.include).' : 'No run matches the filter.' })
      : el('table', { class: `runs${state.group ? ' grouped' : ''}` }, el('thead', {}, headRow(columns, rows, deltaSplit)), body),
  );
  updateActions();
  channel.post('rendered', { rows: rows.length, ms: performance.now() - started });
}

addTag.addEventListener('click', () => {
  if (!data || addTag.disabled) return;
  const tag = tagField.value.trim();
  if (!tag) return;
  const changes = data.rows.filter((r) => selected.has(r.key) && !r.tags.includes(tag)).map((r) => ({ run: r.key, tags: [...r.tags, tag] }));
  if (changes.length > 0) channel.post('tags', { changes });
  tagField.value = '';
});
tagField.addEventListener('keydown', (event) => {
  if ((event as KeyboardEvent).key === 'Enter') addTag.click();
});
dashboard.addEventListener('click', () => {
  if (!data || dashboard.disabled) return;
  // In the table's order, so the dashboard's colours follow what the user sees.
  const runs = visibleRows().filter((r) => selected.has(r.key)).map((r) => r.key);
  channel.post('openDashboard', { runs: runs.length > 0 ? runs : [...selected] });
});
samples.addEventListener('click', () => {
  const [run] = [...selected];
  if (run && !samples.disabled) channel.post('openSamples', { run });
});
pin.addEventListener('click', () => {
  if (!data || pin.disabled) return;
  const chosen = data.rows.filter((r) => selected.has(r.key));
  const action = pinAction(chosen);
  const run = chosen[0]?.key;
  if (action === 'unpin-all') channel.post('unpin', { run: null });
  else if (action === 'unpin' && run) channel.post('unpin', { run });
  else if (action === 'pin' && run) channel.post('pin', { run });
});
exportCsv.addEventListener('click', () => {
  if (!data) return;
  const columns = shownColumns(data.rows).map((c) => c.id);
  channel.post('exportCsv', { csv: state.group ? groupsCsv(visibleGroups(), columns, data.baselines) : runsCsv(visibleRows(), columns, data.baselines) });
});

channel
  .on('rows', (rows) => {
    data = rows;
    const keys = new Set(rows.rows.map((r) => r.key));
    for (const key of [...selected]) if (!keys.has(key)) selected.delete(key);
    fillColumnSelect(rows.rows);
    if (rows.rows.length > 0) fillGroupSelect(rows.rows);
    render();
  })
  .on('error', ({ message }) => {
    clear(tableHolder);
    tableHolder.append(el('div', { class: 'error', attrs: { role: 'alert' } }, el('strong', { text: 'Cannot list the runs' }), el('pre', { text: message })));
  });
channel.ready();
