// The evaluation sample table (src/evalSamples/evalSamplesPanel.ts): pick an evaluation (split · update), see the
// summary per task type with 95 % Wilson intervals, sort by any column, filter, and open a row's trajectory (click or
// Enter). "Compare with" another evaluation of the split (a linked base evaluation, an earlier update) pairs them task
// by task (compareView.ts). All run text goes in as text.
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { EVAL_SAMPLES_TO_WEBVIEW, type EvalSamplesToHost, type EvalSamplesToWebview } from '../../src/evalSamples/shared/protocol';
import { evaluationsOf, filterSamples, rowEvaluation, sortSamples, summarizeSamples, type SampleRow, type SampleSortKey } from '../../src/evalSamples/shared/evalSamples';
import { pairEvaluations } from '../../src/evalSamples/shared/pairedEvaluations';
import { comparisonSummary, comparisonTable, filterPairs } from './compareView';
import { formatCell } from '../../src/dashboard/shared/evaluation';
import { clear, el } from '../shared/dom';
import { HostChannel } from '../shared/hostApi';
import { isolatedText } from '../../src/common/shared/inertText';

const channel = new HostChannel<EvalSamplesToWebview, EvalSamplesToHost>(EVAL_SAMPLES_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));

interface PageState {
  evaluation?: string;
  /** The evaluation compared with (its key), when one is. */
  compare?: string;
  sort: { key: SampleSortKey; direction: 'ascending' | 'descending' };
  filter: string;
}
const saved = (channel.state ?? {}) as Partial<PageState>;
const state: PageState = { sort: saved.sort ?? { key: 'task', direction: 'ascending' }, filter: saved.filter ?? '', ...(saved.evaluation ? { evaluation: saved.evaluation } : {}), ...(saved.compare ? { compare: saved.compare } : {}) };
const save = (): void => {
  channel.state = state;
};

const COLUMNS: ReadonlyArray<[key: SampleSortKey, label: string, text: (row: SampleRow) => string]> = [
  ['task', 'task', (row) => row.task],
  ['type', 'type', (row) => row.type],
  ['success', 'success', (row) => (row.success ? 'success' : 'failure')],
  ['length', 'length', (row) => String(row.length)],
  ['reward', 'reward', (row) => String(Number(row.reward.toPrecision(4)))],
  ['why', 'why it failed', (row) => row.why ?? ''],
  ['trajectory', 'trajectory', (row) => row.trajectory ?? '—'],
];

let data: EvalSamplesToWebview['samples'] | undefined;
const title = el('h1');
const evaluationSelect = document.createElement('vscode-single-select') as HTMLElement & { value: string };
evaluationSelect.id = 'evaluation';
evaluationSelect.setAttribute('aria-label', 'Evaluation');
evaluationSelect.addEventListener('change', () => {
  state.evaluation = evaluationSelect.value;
  fillCompareSelect();
  save();
  render();
});
const compareSelect = document.createElement('vscode-single-select') as HTMLElement & { value: string };
compareSelect.id = 'compare';
compareSelect.setAttribute('aria-label', 'Compare with');
compareSelect.addEventListener('change', () => {
  state.compare = compareSelect.value || undefined;
  save();
  render();
});
const filterField = document.createElement('vscode-textfield') as HTMLElement & { value: string };
filterField.id = 'filter';
filterField.setAttribute('placeholder', 'Filter: words, success, failure, type:NAME, -word');
filterField.value = state.filter;
filterField.addEventListener('input', () => {
  state.filter = filterField.value;
  save();
  render();
});
const summary = el('div', { class: 'summary' });
const tableHolder = el('div', { class: 'table-holder' });
root.append(el('header', { class: 'toolbar' }, title, evaluationSelect, el('span', { class: 'muted', text: 'compare with' }), compareSelect, filterField), summary, tableHolder);

/** "Compare with": nothing, or another evaluation of the shown one's split. */
function fillCompareSelect(): void {
  const evaluations = evaluationsOf(data?.rows ?? []);
  const shown = evaluations.find((e) => e.key === state.evaluation);
  const others = evaluations.filter((e) => e.split === shown?.split && e.key !== shown?.key);
  if (!others.some((e) => e.key === state.compare)) delete state.compare;
  clear(compareSelect);
  for (const [value, label] of [['', 'nothing'], ...others.map((e) => [e.key, `${e.label} (${e.n})`])] as const) {
    const option = document.createElement('vscode-option');
    option.setAttribute('value', value);
    option.textContent = isolatedText(label);
    if (value === (state.compare ?? '')) option.setAttribute('selected', '');
    compareSelect.append(option);
  }
  compareSelect.value = state.compare ?? '';
}

/** The paired view of the shown evaluation (B) against the one compared with (A). */
function renderComparison(rows: readonly SampleRow[]): void {
  const evaluations = evaluationsOf(data?.rows ?? []);
  const label = (key: string | undefined) => evaluations.find((e) => e.key === key)?.label ?? '?';
  const compared = pairEvaluations(data?.rows.filter((r) => rowEvaluation(r) === state.compare) ?? [], rows);
  const shown = filterPairs(compared.rows, state.filter);
  clear(tableHolder);
  tableHolder.append(
    comparisonSummary(compared, { a: label(state.compare), b: label(state.evaluation) }),
    el('p', { class: 'muted count', text: `${shown.length} of ${compared.rows.length} tasks` }),
    comparisonTable(shown, (row) => channel.post('compare', { a: { trajectory: row.a.trajectory!, ...(row.a.source ? { runDir: row.a.source.runDir } : {}) }, b: { trajectory: row.b.trajectory!, ...(row.b.source ? { runDir: row.b.source.runDir } : {}) } })),
  );
  channel.post('rendered', { rows: shown.length, ms: 0 });
}

function currentRows(): SampleRow[] {
  if (!data) return [];
  return data.rows.filter((r) => rowEvaluation(r) === state.evaluation);
}

function renderSummary(rows: readonly SampleRow[]): void {
  const result = summarizeSamples(rows);
  const body = el('tbody');
  body.append(el('tr', { class: 'overall', attrs: { 'data-type': '' } }, el('th', { text: 'all types' }), el('td', { text: formatCell(result.overall) }), el('td', { class: 'num', text: rows.length ? (rows.reduce((s, r) => s + r.length, 0) / rows.length).toFixed(1) : '—' })));
  for (const [type, cell, meanLength] of result.byType) {
    const tr = el('tr', { attrs: { 'data-type': type, tabindex: '0', title: `Filter to type:${type}` } }, el('th', { text: type }), el('td', { text: formatCell(cell) }), el('td', { class: 'num', text: meanLength.toFixed(1) }));
    tr.addEventListener('click', () => {
      filterField.value = `type:${type}`;
      state.filter = filterField.value;
      save();
      render();
    });
    body.append(tr);
  }
  clear(summary);
  summary.append(el('table', { class: 'summary-table' }, el('thead', {}, el('tr', {}, el('th', { text: 'type' }), el('th', { text: 'success [95 % Wilson] n' }), el('th', { text: 'mean length' }))), body));
}

function render(): void {
  if (!data) return;
  const started = performance.now();
  const all = currentRows();
  renderSummary(all);
  if (state.compare) {
    renderComparison(all);
    return;
  }
  const rows = sortSamples(filterSamples(all, state.filter), state.sort.key, state.sort.direction);
  const head = el(
    'tr',
    {},
    ...COLUMNS.map(([key, label]) => {
      const th = el('th', { attrs: { 'data-key': key, 'aria-sort': state.sort.key === key ? state.sort.direction : 'none', tabindex: '0', role: 'columnheader' } }, label);
      const toggle = (): void => {
        state.sort = { key, direction: state.sort.key === key && state.sort.direction === 'ascending' ? 'descending' : 'ascending' };
        save();
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
    const tr = el('tr', { class: row.success ? 'success' : 'failure', attrs: { 'data-task': row.task, ...(row.trajectory ? { 'data-trajectory': row.trajectory, tabindex: '0' } : {}) } }, ...COLUMNS.map(([key, , text]) => el('td', { attrs: { 'data-key': key }, text: text(row) })));
    if (row.trajectory) {
      const id = row.trajectory;
      tr.classList.add('openable');
      const where = row.source ? { runDir: row.source.runDir } : {};
      tr.addEventListener('click', () => channel.post('open', { trajectory: id, ...where }));
      tr.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') channel.post('open', { trajectory: id, ...where });
      });
    }
    body.append(tr);
  }
  clear(tableHolder);
  tableHolder.append(
    el('p', { class: 'muted count', text: `${rows.length} of ${all.length} episodes` }),
    el('table', { class: 'samples' }, el('thead', {}, head), body),
  );
  channel.post('rendered', { rows: rows.length, ms: performance.now() - started });
}

channel
  .on('samples', (samples) => {
    data = samples;
    title.textContent = `Evaluation samples · ${isolatedText(samples.run)}`;
    const evaluations = evaluationsOf(samples.rows);
    // The initial split's latest evaluation, else the one shown before, else the latest of the first split.
    const ofSplit = (split: string) => evaluations.filter((e) => e.split === split).pop();
    const chosen = (samples.initial ? ofSplit(samples.initial) : undefined) ?? evaluations.find((e) => e.key === state.evaluation) ?? ofSplit(evaluations[0]?.split ?? '');
    state.evaluation = chosen?.key;
    save();
    clear(evaluationSelect);
    for (const evaluation of evaluations) {
      const option = document.createElement('vscode-option');
      option.setAttribute('value', evaluation.key);
      option.textContent = `${isolatedText(evaluation.label)} (${evaluation.n})`;
      if (evaluation.key === state.evaluation) option.setAttribute('selected', '');
      evaluationSelect.append(option);
    }
    if (state.evaluation) evaluationSelect.value = state.evaluation;
    fillCompareSelect();
    if (evaluations.length === 0) {
      clear(tableHolder);
      clear(summary);
      tableHolder.append(el('p', { class: 'muted empty', text: 'This run has no evaluated episodes yet.' }));
      return;
    }
    render();
  })
  .on('error', ({ message }) => {
    clear(tableHolder);
    tableHolder.append(el('div', { class: 'error', attrs: { role: 'alert' } }, el('strong', { text: 'Cannot list the evaluation samples' }), el('pre', { text: message })));
  });
channel.ready();
