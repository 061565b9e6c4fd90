// The trajectory table (src/trajectoryTable/tablePanel.ts): one row per trajectory of a batch, sortable by every column
// (click a header; again to reverse), a row opens the viewer (click or Enter), two checked rows open the diff. All
// text from the run goes in as text.
import { TABLE_TO_WEBVIEW, type TableToHost, type TableToWebview } from '../../src/trajectoryTable/shared/protocol';
import { formatNumber } from '../../src/trajectory/shared/format';
import { sortRows, type SortKey, type TableRow } from '../../src/trajectoryTable/shared/trajectoryTable';
import { clear, el } from '../shared/dom';
import { HostChannel } from '../shared/hostApi';

const channel = new HostChannel<TableToWebview, TableToHost>(TABLE_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));

const COLUMNS: ReadonlyArray<[key: SortKey, label: string, text: (row: TableRow) => string]> = [
  ['id', 'trajectory', (row) => row.id],
  ['task', 'task', (row) => row.task],
  ['type', 'type', (row) => row.type],
  ['success', 'outcome', (row) => (row.success ? 'success' : 'failure')],
  ['length', 'steps', (row) => String(row.length)],
  ['tokens', 'tokens', (row) => String(row.tokens)],
  ['skill', 'skill', (row) => row.skill],
  ['meanGate', 'mean g', (row) => (row.meanGate === null ? '—' : formatNumber(row.meanGate))],
];

const saved = (channel.state ?? {}) as { key?: SortKey; direction?: 'ascending' | 'descending' };
let sort: { key: SortKey; direction: 'ascending' | 'descending' } = { key: saved.key ?? 'id', direction: saved.direction ?? 'ascending' };
let data: TableToWebview['rows'] | undefined;
const checked = new Set<string>();

function render(): void {
  if (!data) return;
  const started = performance.now();
  const rows = sortRows(data.rows, sort.key, sort.direction);
  const compare = el('button', { class: 'action', text: `Compare checked (${checked.size}/2)`, attrs: { 'data-action': 'compare' } });
  compare.disabled = checked.size !== 2;
  compare.addEventListener('click', () => {
    const [a, b] = [...checked];
    if (a && b) channel.post('compare', { a, b });
  });
  const head = el(
    'tr',
    {},
    el('th', { text: '' }),
    ...COLUMNS.map(([key, label]) => {
      const th = el('th', { attrs: { 'data-key': key, 'aria-sort': sort.key === key ? sort.direction : 'none', tabindex: '0', role: 'columnheader' } }, label);
      const toggle = (): void => {
        sort = { key, direction: sort.key === key && sort.direction === 'ascending' ? 'descending' : 'ascending' };
        channel.state = sort;
        render();
      };
      th.addEventListener('click', toggle);
      th.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') toggle();
      });
      return th;
    }),
  );
  const body = el('tbody');
  for (const row of rows) {
    const box = el('input', { attrs: { type: 'checkbox', 'aria-label': `Check ${row.id} for comparison` } });
    box.checked = checked.has(row.id);
    box.addEventListener('click', (event) => event.stopPropagation());
    box.addEventListener('change', () => {
      if (box.checked) checked.add(row.id);
      else checked.delete(row.id);
      if (checked.size > 2) checked.delete([...checked][0]!); // two at most: the oldest check goes
      render();
    });
    const tr = el('tr', { class: row.success ? 'success' : 'failure', attrs: { 'data-id': row.id, tabindex: '0' } }, el('td', {}, box), ...COLUMNS.map(([key, , text]) => el('td', { attrs: { 'data-key': key }, text: text(row), title: text(row) })));
    tr.addEventListener('click', () => channel.post('open', { id: row.id }));
    tr.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') channel.post('open', { id: row.id });
    });
    body.append(tr);
  }
  clear(root);
  root.append(
    el('header', { class: 'table-header' }, el('h1', { text: `${data.run} · ${data.batch}` }), el('span', { class: 'muted', text: `${rows.length} trajectories` }), compare),
    el('table', { class: 'trajectories' }, el('thead', {}, head), body),
  );
  channel.post('rendered', { rows: rows.length, ms: performance.now() - started });
}

channel
  .on('rows', (rows) => {
    data = rows;
    checked.clear();
    render();
  })
  .on('error', ({ message }) => {
    clear(root);
    root.append(el('div', { class: 'error', attrs: { role: 'alert' } }, el('strong', { text: 'Cannot list these trajectories' }), el('pre', { text: message })));
  });
channel.ready();
