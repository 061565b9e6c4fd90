// The skill review webview (custom editor on skills.jsonl): one card per record with its outcome, task, source,
// skill, summary, format-verification status and review state; Accept · Reject · Edit · Open trajectory; filters by
// outcome, task type, state and text; counts. Decisions go to the host, which edits the document; the document's new
// content comes back as a `records` message and the cards are redrawn (so undo/redo shows here too).
import { HostChannel } from '../shared/hostApi';
import { REVIEW_TO_WEBVIEW, type ReviewLine, type ReviewToHost, type ReviewToWebview } from '../../src/review/shared/protocol';
import { clear, el, isTyping } from '../shared/dom';
import type { ReviewState, SkillRecord } from '../../src/runs/shared/types';
import { NO_FILTER, bulkTargets, describeCounts, groupSkills, matchesFilter, reviewCounts, taskTypes, type SkillFilter } from '../../src/review/shared/skillFilters';
import { formatScore } from '../../src/trajectory/shared/format';
import { clip, displayText } from '../../src/common/shared/inertText';
import { skillMismatches } from '../../src/runs/shared/skillRelevance';
import { mismatchNote } from '../shared/skillMismatch';

type Records = ReviewToWebview['records'];

const channel = new HostChannel<ReviewToWebview, ReviewToHost>(REVIEW_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
const MAX_TEXT = 20_000;

let data: Records | undefined;
const savedState = (channel.state ?? {}) as { filter?: SkillFilter; grouped?: boolean };
let filter: SkillFilter = { ...NO_FILTER, ...(savedState.filter ?? {}) };
/** Cards grouped by identical or near-identical skill. */
let grouped = savedState.grouped ?? false;

function saveState(): void {
  channel.state = { filter, grouped };
}
/** Edits in progress survive redraws: record id → draft text. */
const drafts = new Map<string, string>();
let currentId: string | undefined;

function setFilter(change: Partial<SkillFilter>): void {
  filter = { ...filter, ...change };
  saveState();
  render();
}

const FILTER_OPTION_CHARS = 48;

/** Accept / Reject buttons for a set of records (the filtered set, or a group): one message, one edit, one undo. */
function bulkButtons(records: readonly SkillRecord[], scope: string, locked: boolean): HTMLElement[] {
  const make = (state: 'accepted' | 'rejected', verb: string) => {
    const targets = bulkTargets(records, state);
    return button(`${verb} ${scope} (${targets.length})`, `bulk-${state === 'accepted' ? 'accept' : 'reject'}`, `${verb} these ${targets.length} records at once (one edit: Undo takes it back)${state === 'accepted' ? '; records that failed format verification are left out' : ''}`, () => channel.post('decideMany', { ids: targets.map((r) => r.id), state }), { disabled: locked || targets.length === 0 });
  };
  return [make('accepted', 'Accept'), make('rejected', 'Reject')];
}

function select(label: string, key: keyof SkillFilter, options: Array<[string, string]>): HTMLElement {
  const input = el('select', { attrs: { 'aria-label': label, 'data-filter': key } });
  for (const [value, text] of options) {
    // A long task type is cut in the list (the select is as wide as its longest option); the full text is on hover.
    const cut = clip(text, FILTER_OPTION_CHARS);
    const option = el('option', { text: cut.omitted ? `${cut.text}…` : text, title: text, attrs: { value } });
    option.selected = String(filter[key] ?? '') === value;
    input.append(option);
  }
  const showFull = (): void => {
    input.title = displayText(options.find(([value]) => value === input.value)?.[1] ?? '');
  };
  showFull();
  input.addEventListener('change', () => {
    showFull();
    setFilter({ [key]: input.value } as Partial<SkillFilter>);
  });
  return el('label', { class: 'filter' }, el('span', { text: label }), input);
}

function button(text: string, action: string, title: string, onClick: () => void, options: { pressed?: boolean; disabled?: boolean } = {}): HTMLButtonElement {
  const node = el('button', { class: `action action-${action}`, text, title, attrs: { 'data-action': action, ...(options.pressed !== undefined ? { 'aria-pressed': String(options.pressed) } : {}) } });
  node.disabled = options.disabled ?? false;
  node.addEventListener('click', onClick);
  return node;
}

function decide(record: SkillRecord, state: ReviewState, text?: string): void {
  channel.post('decide', { id: record.id, state, ...(text !== undefined ? { text } : {}) });
}

function startEdit(record: SkillRecord): void {
  drafts.set(record.id, record.review.state === 'edited' ? (record.review.text ?? '') : (record.skill ?? ''));
  currentId = record.id;
  render();
  document.querySelector<HTMLTextAreaElement>(`.card[data-id="${CSS.escape(record.id)}"] textarea`)?.focus();
}

function card(record: SkillRecord, line: number, readOnly: string | null): HTMLElement {
  const state = record.review.state;
  const editing = drafts.has(record.id);
  const locked = readOnly !== null;
  const actions = el(
    'div',
    { class: 'actions' },
    button('Accept', 'accept', record.valid ? 'Train on this skill (a)' : 'Failed format verification: never trained on', () => decide(record, 'accepted'), { pressed: state === 'accepted', disabled: locked || !record.valid }),
    button('Reject', 'reject', 'Never train on this record (r)', () => decide(record, 'rejected'), { pressed: state === 'rejected', disabled: locked }),
    button('Edit', 'edit', 'Replace the skill with your own text (e)', () => startEdit(record), { pressed: state === 'edited', disabled: locked || !record.valid || editing }),
    state !== 'pending' ? button('Reset', 'reset', 'Back to pending', () => decide(record, 'pending'), { disabled: locked }) : null,
    button('Open trajectory', 'open', record.trajectory ? 'Open the analyzed trajectory (o)' : 'The trajectory was not kept', () => channel.post('openTrajectory', { id: record.id }), { disabled: !record.trajectory }),
    button('What if…', 'what-if', record.trajectory ? 'Rescore the trajectory with this skill (or your edit of it) as the teacher\'s: see the gates (w)' : 'The trajectory was not kept', () => channel.post('whatIf', { id: record.id }), { disabled: !record.trajectory }),
  );
  let editor: HTMLElement | null = null;
  if (editing) {
    const area = el('textarea', { attrs: { rows: '3', 'aria-label': `Edited skill of ${record.id}` } });
    area.value = drafts.get(record.id) ?? '';
    const save = button('Save edit', 'save-edit', 'Store as review.text with state "edited" (Ctrl+Enter)', () => {
      const text = area.value;
      drafts.delete(record.id);
      decide(record, 'edited', text);
      render();
    }, { disabled: area.value.trim() === '' });
    const cancel = button('Cancel', 'cancel-edit', 'Discard this edit (Escape)', () => {
      drafts.delete(record.id);
      render();
    });
    area.addEventListener('input', () => {
      drafts.set(record.id, area.value);
      save.disabled = area.value.trim() === '';
    });
    area.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !save.disabled) save.click();
      else if (event.key === 'Escape') cancel.click();
    });
    editor = el('div', { class: 'editor' }, area, el('div', { class: 'editor-actions' }, save, cancel));
  }
  const edited = state === 'edited' && record.review.text !== undefined;
  return el(
    'article',
    { class: `card state-${state}${record.valid ? '' : ' invalid'}${record.id === currentId ? ' current' : ''}`, attrs: { 'data-id': record.id, 'data-line': String(line), 'data-state': state, tabindex: '-1' } },
    el(
      'div',
      { class: 'card-head' },
      el('span', { class: `outcome ${record.success ? 'success' : 'failure'}`, text: record.success ? 'success' : 'failure' }),
      el('span', { class: 'record-id', text: record.id }),
      el('span', { class: 'task', text: `${record.task.type} · ${record.task.id}` }),
      el('span', { class: 'meta', text: `reward ${formatScore(record.reward)} · ${record.length} steps · ${record.source}${record.model ? ` (${record.model})` : ''} · line ${line}` }),
      el('span', { class: `state-badge state-${state}`, attrs: { 'data-k': 'state' }, text: state }),
    ),
    record.task.description ? el('div', { class: 'description', text: clip(record.task.description, 2000).text }) : null,
    record.valid ? null : el('div', { class: 'invalid-reason', attrs: { 'data-k': 'reason' }, text: `Format verification failed: ${record.reason ?? 'no reason given'}. Never trained on.` }),
    mismatchNote(record.valid ? skillMismatches({ text: edited ? record.review.text : record.skill, summary: record.summary }, record.task.description ?? '', record.length) : []),
    el('div', { class: 'label', text: edited ? 'Edited skill' : 'Skill' }),
    el('div', { class: 'skill text', attrs: { 'data-k': 'skill' } }, clip((edited ? record.review.text : record.skill) ?? '(none)', MAX_TEXT).text),
    edited ? el('details', { class: 'original' }, el('summary', { text: 'Original skill' }), el('div', { class: 'text' }, clip(record.skill ?? '(none)', MAX_TEXT).text)) : null,
    record.summary ? el('div', { class: 'label', text: 'Episode summary' }) : null,
    record.summary ? el('div', { class: 'summary text' }, clip(record.summary, MAX_TEXT).text) : null,
    record.raw && !record.valid ? el('details', { class: 'raw' }, el('summary', { text: 'Raw analyzer reply' }), el('div', { class: 'text' }, clip(record.raw, MAX_TEXT).text)) : null,
    editor,
    actions,
  );
}

function problemCard(line: ReviewLine): HTMLElement {
  return el('article', { class: 'card problem', attrs: { 'data-line': String(line.line) } }, el('strong', { text: `Line ${line.line} is not a record` }), el('div', { class: 'text', text: line.problem ?? '' }));
}

function render(): void {
  if (!data) return;
  const started = performance.now();
  const scrollTop = document.scrollingElement?.scrollTop ?? 0;
  const records = data.lines.filter((l) => l.record).map((l) => l.record!);
  const counts = reviewCounts(records);
  const shown = data.lines.filter((l) => !l.record || matchesFilter(l.record, filter));
  const search = el('input', { attrs: { type: 'search', placeholder: 'Filter by text…', 'aria-label': 'Filter by text', 'data-filter': 'text' } });
  search.value = filter.text ?? '';
  search.addEventListener('input', () => {
    filter = { ...filter, text: search.value };
    saveState();
    renderList();
  });
  const list = el('div', { class: 'cards', attrs: { role: 'list' } });
  const bulk = el('div', { class: 'bulk', attrs: { 'data-k': 'bulk' } });
  const groupBox = el('input', { attrs: { type: 'checkbox', 'data-action': 'group', 'aria-label': 'Group identical skills' } });
  groupBox.checked = grouped;
  groupBox.addEventListener('change', () => {
    grouped = groupBox.checked;
    saveState();
    renderList();
  });
  const renderList = () => {
    clear(list);
    const visible = data!.lines.filter((l) => !l.record || matchesFilter(l.record, filter));
    const visibleRecords = visible.filter((l) => l.record).map((l) => l.record!);
    const locked = data!.readOnly !== null || data!.problems.some((p) => p.severity === 'error');
    bulk.replaceChildren(...bulkButtons(visibleRecords, 'shown', locked), el('label', { class: 'group-toggle' }, groupBox, el('span', { text: 'Group identical skills' })));
    if (grouped) {
      const lineOf = new Map(visible.filter((l) => l.record).map((l) => [l.record!.id, l.line]));
      for (const group of groupSkills(visibleRecords)) {
        const head = el(
          'div',
          { class: 'group-head' },
          el('span', { class: 'group-count', text: `${group.records.length} ×` }),
          el('span', { class: 'group-text text', text: clip(group.text, 300).text }),
          ...(group.records.length > 1 ? bulkButtons(group.records, 'group', locked) : []),
        );
        list.append(el('section', { class: 'group', attrs: { 'data-size': String(group.records.length) } }, head, ...group.records.map((r) => card(r, lineOf.get(r.id) ?? 0, data!.readOnly))));
      }
      for (const line of visible.filter((l) => !l.record)) list.append(problemCard(line));
    } else {
      list.append(...visible.map((l) => (l.record ? card(l.record, l.line, data!.readOnly) : problemCard(l))));
    }
    if (visible.length === 0) list.append(el('p', { class: 'muted', text: 'No record matches the filters.' }));
    const status = document.getElementById('shown');
    if (status) status.textContent = `${visible.filter((l) => l.record).length} of ${records.length} shown`;
  };
  const openText = el('button', { class: 'action', text: 'Open as Text', title: 'Reopen skills.jsonl in the text editor (CodeLens review, diagnostics)', attrs: { 'data-action': 'open-text' } });
  openText.addEventListener('click', () => channel.post('openAsText', {}));
  clear(root);
  root.append(
    el(
      'header',
      { class: 'review-header' },
      el('div', { class: 'title-row' }, el('h1', { text: `Hindsight skills · ${data.run}` }), el('span', { class: 'file', text: data.file }), openText),
      el(
        'div',
        { class: 'counts', attrs: { 'data-k': 'counts' } },
        el('span', { class: 'count state-accepted', text: `${counts.accepted} accepted` }),
        el('span', { class: 'count state-edited', text: `${counts.edited} edited` }),
        el('span', { class: 'count state-rejected', text: `${counts.rejected} rejected` }),
        el('span', { class: 'count state-pending', text: `${counts.pending} pending` }),
        counts.invalid ? el('span', { class: 'count invalid', text: `${counts.invalid} failed format verification` }) : null,
        el('span', { class: 'muted', attrs: { id: 'shown' } }),
      ),
      data.readOnly ? el('div', { class: 'readonly', attrs: { role: 'status' }, text: `Read-only: ${data.readOnly}.` }) : null,
      data.problems.some((p) => p.severity === 'error')
        ? el('div', { class: 'problems', attrs: { role: 'status' }, text: `${data.problems.filter((p) => p.severity === 'error').length} line(s) with problems: decisions are refused until they are fixed (see the Problems panel).` })
        : null,
      el(
        'div',
        { class: 'filters' },
        select('Outcome', 'outcome', [['all', 'All'], ['success', 'Success'], ['failure', 'Failure']]),
        select('Task type', 'taskType', [['all', 'All'], ...taskTypes(records).map((t): [string, string] => [t, t])]),
        select('State', 'state', [['all', 'All'], ['pending', 'Pending'], ['accepted', 'Accepted'], ['edited', 'Edited'], ['rejected', 'Rejected']]),
        search,
      ),
      bulk,
    ),
    list,
  );
  root.setAttribute('aria-label', describeCounts(counts));
  renderList();
  if (document.scrollingElement) document.scrollingElement.scrollTop = scrollTop;
  channel.post('rendered', { records: records.length, shown: shown.filter((l) => l.record).length, ms: performance.now() - started });
}

function cards(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('.card[data-id]')];
}

function recordOf(id: string | undefined): SkillRecord | undefined {
  return data?.lines.find((l) => l.record?.id === id)?.record;
}

function move(step: number): void {
  const all = cards();
  if (all.length === 0) return;
  const index = all.findIndex((c) => c.dataset.id === currentId);
  const next = all[Math.max(0, Math.min(all.length - 1, index < 0 ? 0 : index + step))]!;
  for (const c of all) c.classList.toggle('current', c === next);
  currentId = next.dataset.id;
  next.scrollIntoView({ block: 'nearest' });
  next.focus({ preventScroll: true });
}

document.addEventListener('keydown', (event) => {
  if (!data || isTyping(event) || event.ctrlKey || event.metaKey || event.altKey) return;
  const record = recordOf(currentId);
  const current = currentId ? document.querySelector<HTMLElement>(`.card[data-id="${CSS.escape(currentId)}"]`) : null;
  const click = (action: string) => current?.querySelector<HTMLButtonElement>(`[data-action="${action}"]:not(:disabled)`)?.click();
  let handled = true;
  if (event.key === 'j' || event.key === 'ArrowDown') move(1);
  else if (event.key === 'k' || event.key === 'ArrowUp') move(-1);
  else if (record && event.key === 'a') click('accept');
  else if (record && event.key === 'r') click('reject');
  else if (record && event.key === 'e') click('edit');
  else if (record && event.key === 'o') click('open');
  else if (record && event.key === 'w') click('what-if');
  else handled = false;
  if (handled) event.preventDefault();
});

document.addEventListener('focusin', (event) => {
  const id = (event.target as HTMLElement).closest<HTMLElement>('.card[data-id]')?.dataset.id;
  if (id) currentId = id;
});

channel
  .on('records', (records) => {
    data = records;
    const ids = new Set(records.lines.map((l) => l.record?.id));
    for (const id of [...drafts.keys()]) if (!ids.has(id)) drafts.delete(id);
    render();
  })
  .on('error', ({ message }) => {
    clear(root);
    root.append(el('div', { class: 'error', attrs: { role: 'alert' } }, el('strong', { text: 'Cannot show these skills' }), el('pre', { text: message })));
  });
channel.ready();
