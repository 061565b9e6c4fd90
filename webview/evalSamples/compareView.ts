// The paired comparison of two evaluations in the evaluation samples page: per task A and B, which way it flipped,
// filterable (`gained`, `lost`, `same`, words), and a row opens both episodes side by side in the diff viewer.
import type { PairedComparison, PairRow } from '../../src/evalSamples/shared/pairedEvaluations';
import { clampNote, intervalClamped, intervalPoints, points } from '../../src/runs/shared/pairedChange';
import { el } from '../shared/dom';

const CHANGE_TEXT: Record<PairRow['change'], string> = { gained: '↑ gained', lost: '↓ lost', 'both won': '= both won', 'both failed': '= both failed' };

/** The rows a filter keeps: `gained`, `lost`, `same` (both won or both failed), else words of the task or type. */
export function filterPairs(rows: readonly PairRow[], query: string): PairRow[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (row: PairRow, word: string): boolean => {
    if (word === 'gained' || word === 'lost') return row.change === word;
    if (word === 'same') return row.change === 'both won' || row.change === 'both failed';
    return `${row.task}\n${row.type}\n${row.b.why ?? ''}`.toLowerCase().includes(word);
  };
  return rows.filter((row) => words.every((word) => (word.startsWith('-') && word.length > 1 ? !matches(row, word.slice(1)) : matches(row, word))));
}

/** The summary line: flips each way and the paired change with its interval, coloured only when resolved. */
export function comparisonSummary(compared: PairedComparison, labels: { a: string; b: string }): HTMLElement {
  const change = compared.change;
  const resolved = change ? (change[1] > 0 ? 'up' : change[2] < 0 ? 'down' : '') : '';
  return el(
    'p',
    { class: 'compare-summary', attrs: { 'data-k': 'compare-summary' } },
    `B (${labels.b}) against A (${labels.a}) on ${compared.rows.length} paired tasks: `,
    el('strong', { text: `${compared.gained} gained, ${compared.lost} lost` }),
    change ? ' · change ' : '',
    change
      ? el('span', {
          class: `change ${resolved}`,
          attrs: { 'data-k': 'change' },
          text: `${points(change[0])} pts ${intervalPoints(change[1], change[2])}`,
          ...(intervalClamped(change[1], change[2]) ? { title: `95 % interval${clampNote(change[1], change[2])}` } : {}),
        })
      : null,
    compared.unpaired.a + compared.unpaired.b > 0 ? ` · unpaired: ${compared.unpaired.a} in A, ${compared.unpaired.b} in B` : '',
  );
}

/** The paired table; `open(row)` shows both episodes in the diff viewer. */
export function comparisonTable(rows: readonly PairRow[], open: (row: PairRow) => void): HTMLElement {
  const head = el('tr', {}, ...['task', 'type', 'A', 'B', 'change', 'why B failed'].map((text) => el('th', { text })));
  const body = el('tbody');
  for (const row of rows) {
    const openable = row.a.trajectory !== undefined && row.b.trajectory !== undefined;
    const tr = el(
      'tr',
      { class: `pair ${row.change.replace(' ', '-')}${openable ? ' openable' : ''}`, attrs: { 'data-task': row.task, 'data-change': row.change, ...(openable ? { tabindex: '0', title: 'Compare both episodes in the diff viewer' } : {}) } },
      el('td', { text: row.task }),
      el('td', { text: row.type }),
      el('td', { text: row.a.success ? 'success' : 'failure' }),
      el('td', { text: row.b.success ? 'success' : 'failure' }),
      el('td', { attrs: { 'data-k': 'change' }, text: CHANGE_TEXT[row.change] }),
      el('td', { text: row.b.success ? '' : (row.b.why ?? '') }),
    );
    if (openable) {
      tr.addEventListener('click', () => open(row));
      tr.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') open(row);
      });
    }
    body.append(tr);
  }
  return el('table', { class: 'samples pairs' }, el('thead', {}, head), body);
}
