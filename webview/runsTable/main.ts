// The runs table (src/runsTable/runsTablePanel.ts): every run of the workspace a row; columns picked from config keys,
// final metrics and evaluations; a filter; sort by any column (click its header, again to reverse); tags; a pinned
// baseline with Δ columns; CSV export; the selection opens in the dashboard. All run text goes in as text.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-multi-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { RUNS_TABLE_TO_WEBVIEW, type RunsTableToHost, type RunsTableToWebview } from '../../src/runsTable/shared/protocol';
import {
  availableColumns,
  cellText,
  columnOf,
  defaultColumnIds,
  delta,
  deltaText,
  filterRows,
  isNumeric,
  runsCsv,
  sortRows,
  type Column,
  type RunsTableRow,
} from '../../src/runsTable/shared/runsTable';
import { clear, el } from '../shared/dom';
import { HostChannel } from '../shared/hostApi';
import { isolatedText } from '../../src/common/shared/inertText';

const channel = new HostChannel<RunsTableToWebview, RunsTableToHost>(RUNS_TABLE_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));

interface PageState {
  columns?: string[];
  sort: { id: string; direction: 'ascending' | 'descending' };
  filter: string;
}
const saved = (channel.state ?? {}) as Partial<PageState>;
const state: PageState = { sort: saved.sort ?? { id: 'run', direction: 'ascending' }, filter: saved.filter ?? '', ...(saved.columns ? { columns: saved.columns } : {}) };
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
  el('header', { class: 'toolbar' }, el('h1', { text: 'Runs' }), count, filterField, el('span', { class: 'muted', text: 'Columns' }), columnSelect),
  el('div', { class: 'toolbar actions' }, tagField, addTag, dashboard, samples, pin, exportCsv),
  tableHolder,
);

function shownColumns(rows: readonly RunsTableRow[]): Column[] {
  const ids = state.columns ?? defaultColumnIds(rows);
  return ids.map(columnOf);
}

function visibleRows(): RunsTableRow[] {
  if (!data) return [];
  const ids = shownColumns(data.rows).map((c) => c.id);
  return sortRows(filterRows(data.rows, state.filter, ids), state.sort.id, state.sort.direction);
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

function updateActions(): void {
  const rows = data?.rows ?? [];
  const chosen = rows.filter((r) => selected.has(r.key));
  dashboard.disabled = chosen.length === 0;
  samples.disabled = chosen.length !== 1 || Object.keys(chosen[0]?.evals ?? {}).length === 0;
  addTag.disabled = chosen.length === 0 || (data?.readOnly ?? false);
  const pinned = data?.baseline ?? null;
  pin.textContent = pinned !== null && (chosen.length === 0 || chosen[0]?.key === pinned) ? 'Unpin Baseline' : 'Pin as Baseline';
  pin.disabled = !(chosen.length === 1 || pinned !== null);
}

function render(): void {
  if (!data) return;
  const started = performance.now();
  const all = data.rows;
  const columns = shownColumns(all);
  const rows = visibleRows();
  const baseline = all.find((r) => r.key === data?.baseline);
  const numeric = new Set(columns.filter((c) => isNumeric(c, all)).map((c) => c.id));
  count.textContent = `${rows.length} of ${all.length} runs${baseline ? ` · baseline: ${isolatedText(baseline.title)}` : ''}`;

  const allBox = el('input', { attrs: { type: 'checkbox', 'aria-label': 'Select all shown runs' } });
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
    const th = el('th', { attrs: { 'data-col': column.id, 'aria-sort': state.sort.id === column.id ? state.sort.direction : 'none', tabindex: '0', role: 'columnheader', title: column.id } }, column.label);
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
    if (baseline && numeric.has(column.id)) headCells.push(el('th', { class: 'delta', attrs: { 'data-delta': column.id }, text: `Δ ${column.label}` }));
  }
  const body = el('tbody');
  for (const row of rows) {
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
      else if (column.id === 'run') cells.push(el('td', { attrs: { 'data-col': 'run' } }, cellText(row, 'run'), row.key === baseline?.key ? el('span', { class: 'pin-badge', text: 'baseline' }) : null));
      else cells.push(el('td', { attrs: { 'data-col': column.id }, class: column.kind === 'text' ? '' : 'num', text: cellText(row, column.id) }));
      if (baseline && numeric.has(column.id)) {
        const d = row.key === baseline.key ? undefined : delta(row, baseline, column.id);
        cells.push(el('td', { class: `num delta${d === undefined || d === 0 ? '' : d > 0 ? ' up' : ' down'}`, attrs: { 'data-delta': column.id }, text: row.key === baseline.key ? 'baseline' : deltaText(d, column.id) }));
      }
    }
    const tr = el('tr', { class: `${selected.has(row.key) ? 'selected' : ''}${row.key === baseline?.key ? ' baseline' : ''}`, attrs: { 'data-key': row.key, 'data-id': row.id, tabindex: '0', 'aria-selected': String(selected.has(row.key)) } }, ...cells);
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
    body.append(tr);
  }
  clear(tableHolder);
  tableHolder.append(
    rows.length === 0
      ? el('p', { class: 'muted empty', text: all.length === 0 ? 'No runs in this workspace yet (seedStudio.runs.include).' : 'No run matches the filter.' })
      : el('table', { class: 'runs' }, el('thead', {}, el('tr', {}, ...headCells)), body),
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
  const [chosen] = [...selected];
  const unpin = data.baseline !== null && (chosen === undefined || chosen === data.baseline);
  channel.post('pin', { run: unpin ? null : (chosen ?? null) });
});
exportCsv.addEventListener('click', () => {
  if (!data) return;
  const columns = shownColumns(data.rows).map((c) => c.id);
  const baseline = data.rows.find((r) => r.key === data?.baseline);
  channel.post('exportCsv', { csv: runsCsv(visibleRows(), columns, baseline) });
});

channel
  .on('rows', (rows) => {
    data = rows;
    const keys = new Set(rows.rows.map((r) => r.key));
    for (const key of [...selected]) if (!keys.has(key)) selected.delete(key);
    fillColumnSelect(rows.rows);
    render();
  })
  .on('error', ({ message }) => {
    clear(tableHolder);
    tableHolder.append(el('div', { class: 'error', attrs: { role: 'alert' } }, el('strong', { text: 'Cannot list the runs' }), el('pre', { text: message })));
  });
channel.ready();
