// The trajectory diff webview: two trajectories of one task aligned turn by turn (LCS over actions), the first
// divergence highlighted and scrolled to, removed / inserted / changed turns marked, per-turn reward and gate deltas,
// and on demand each side's token heatmap. Receives both records from the host (src/diff/diffPanel.ts).
import { HostChannel } from '../shared/hostApi';
import { DIFF_TO_WEBVIEW, type DiffToHost, type DiffToWebview } from '../../src/diff/shared/protocol';
import type { TrajectoryPayload } from '../../src/trajectory/shared/protocol';
import { clear, el, isTyping } from '../shared/dom';
import { TokenHoverCard, installHeatmapStyles, legend, renderTokens } from '../trajectory/heatmap';
import { heatScale } from '../../src/trajectory/shared/colorScale';
import { diffTrajectories, episodeDeltas, ownDelta, type DiffRow, type TrajectoryDiff, type TurnDelta } from '../../src/diff/shared/align';
import { actionResult } from '../../src/runs/shared/actionResult';
import { SCORE_TITLE, actionBadges, formatNumber, formatPercent, formatScore, formatSigned, signClass } from '../../src/trajectory/shared/format';
import { clip } from '../../src/common/shared/inertText';
import { buildModel, type TrajectoryModel } from '../trajectory/model';
import { gateSwatchClass } from '../trajectory/turnView';

const channel = new HostChannel<DiffToWebview, DiffToHost>(DIFF_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
installHeatmapStyles();

const KIND_LABEL: Record<DiffRow['kind'], string> = { same: '=', changed: '≠', removed: '−', inserted: '+' };
const KIND_TITLE: Record<DiffRow['kind'], string> = {
  same: 'same action',
  changed: 'different action',
  removed: 'only in A',
  inserted: 'only in B',
};
const OBSERVATION_PREVIEW = 600;

let models: { a: TrajectoryModel; b: TrajectoryModel } | undefined;
let rowElements: HTMLElement[] = [];
let currentRow = 0;

function sideHeader(side: 'a' | 'b', payload: TrajectoryPayload, m: TrajectoryModel): HTMLElement {
  const t = m.trajectory;
  const open = el('button', { class: 'action', text: `Open ${side.toUpperCase()}`, attrs: { 'data-action': `open-${side}` } });
  open.addEventListener('click', () => channel.post('openTrajectory', { side }));
  return el(
    'div',
    { class: `side-header side-${side}` },
    el('div', { class: 'side-title' }, el('span', { class: 'side-letter', text: side.toUpperCase() }), el('span', { class: 'side-id', text: t.id }), el('span', { class: `outcome ${t.success ? 'success' : 'failure'}`, text: t.success ? 'success' : 'failure' }), open),
    el(
      'div',
      { class: 'facts' },
      el('span', { text: `run ${payload.run}` }),
      el('span', { text: `reward ${formatScore(t.reward)}` }),
      el('span', { text: `${t.length} steps` }),
      el('span', { text: `mean g ${formatNumber(m.total.meanGate)}` }),
      el('span', { text: `g > 0.5: ${formatPercent(m.total.fracGateAboveHalf)}` }),
      el('span', { text: t.skill ? `skill ${t.skill.source}${t.skill.valid ? '' : ' (invalid)'}` : 'no skill' }),
    ),
  );
}

function cell(m: TrajectoryModel, index: number | undefined, side: 'a' | 'b', rowIndex: number, expanded: boolean): HTMLElement {
  if (index === undefined) return el('div', { class: `cell empty side-${side}`, text: side === 'a' ? '(not in A)' : '(not in B)' });
  const turn = m.turns[index]!;
  const { step, stats, arrays } = turn;
  const head = el(
    'div',
    { class: 'cell-head' },
    el('span', { class: 'turn-no', text: `Turn ${index + 1}` }),
    // "well-formed" is format verification only; "no effect" where the environment answered "Nothing happens." (the
    // last turn's answer is the final observation)
    ...actionBadges(step.valid, actionResult(m.trajectory, index)).map((badge) => el('span', { class: `badge ${badge.kind}`, title: badge.title, text: badge.text })),
    typeof step.score === 'number' ? el('span', { title: SCORE_TITLE, attrs: { 'data-k': 'score' }, text: `score ${formatScore(step.score)}` }) : null,
    stats.teacher ? el('span', { class: 'gate-summary' }, el('span', { class: `swatch ${gateSwatchClass(stats.meanGate)}` }), `g ${formatNumber(stats.meanGate, 3)}`) : null,
  );
  const action =
    step.action === null
      ? el('div', { class: 'cell-action no-action', text: 'no well-formed <action>' })
      : el('div', { class: 'cell-action' }, el('code', { text: clip(step.action, 500).text }));
  const obs = el('div', { class: 'cell-obs text' }, clip(step.observation, OBSERVATION_PREVIEW).text + (step.observation.length > OBSERVATION_PREVIEW ? ' …' : ''));
  let tokens: HTMLElement | null = null;
  if (expanded) {
    if (arrays) {
      tokens = el('div', { class: 'tokens', attrs: { 'data-side': side, 'data-turn': String(index), 'data-row': String(rowIndex) } });
      // The diff keeps the absolute scale: colours of the two sides compare.
      tokens.append(renderTokens(arrays, arrays.gate ? heatScale('gate') : arrays.logp ? heatScale('student') : undefined, 20_000).fragment);
    } else {
      tokens = el('div', { class: 'text muted' }, clip(step.response, 20_000).text);
    }
  }
  return el('div', { class: `cell side-${side}`, attrs: { 'data-turn': String(index) } }, head, action, obs, tokens);
}

/** One B − A difference, coloured only when it shows as non-zero at its precision. */
function deltaItem(key: string, label: string, value: number | null, digits: number): HTMLElement | null {
  return value === null ? null : el('div', { class: `delta ${signClass(value, digits)}`, attrs: { 'data-k': key } }, `${label} ${formatSigned(value, digits)}`);
}

/** A row's differences; the step score's and the advantage's only where they are not the episode's (said once in the
 * summary). */
function deltaView(delta: TurnDelta | null, episode: ReturnType<typeof episodeDeltas>): HTMLElement {
  if (!delta) return el('div', { class: 'deltas' });
  return el(
    'div',
    { class: 'deltas' },
    deltaItem('score', 'Δscore', ownDelta(delta.score, episode.score), 2),
    deltaItem('envReward', 'Δreward', delta.envReward, 2),
    deltaItem('advantage', 'Δadv', ownDelta(delta.advantage, episode.advantage), 3),
    deltaItem('meanGate', 'Δg', delta.meanGate, 3),
    deltaItem('fracAbove', 'Δ(g>0.5)', delta.fracGateAboveHalf, 3),
  );
}

function rowView(diff: TrajectoryDiff, m: { a: TrajectoryModel; b: TrajectoryModel }, rowIndex: number, expanded: boolean): HTMLElement {
  const row = diff.rows[rowIndex]!;
  const first = rowIndex === diff.firstDivergence;
  const toggle = el('button', { class: 'expand', text: expanded ? 'Hide tokens' : 'Tokens', title: 'Show both responses as gate heatmaps', attrs: { 'aria-expanded': String(expanded) } });
  const element = el(
    'div',
    {
      class: `row kind-${row.kind}${first ? ' first-divergence' : ''}`,
      attrs: { 'data-row': String(rowIndex), 'data-kind': row.kind, role: 'listitem', tabindex: '-1', 'aria-label': `${KIND_TITLE[row.kind]}${first ? ', first divergence' : ''}` },
    },
    cell(m.a, row.a, 'a', rowIndex, expanded),
    el(
      'div',
      { class: 'gutter' },
      el('div', { class: 'kind', title: KIND_TITLE[row.kind], text: KIND_LABEL[row.kind] }),
      first ? el('div', { class: 'first-label', text: 'first divergence' }) : null,
      deltaView(diff.deltas[rowIndex] ?? null, episodeDeltas(diff.deltas)),
      toggle,
    ),
    cell(m.b, row.b, 'b', rowIndex, expanded),
  );
  toggle.addEventListener('click', () => {
    const replacement = rowView(diff, m, rowIndex, !expanded);
    element.replaceWith(replacement);
    rowElements[rowIndex] = replacement;
  });
  return element;
}

function summary(diff: TrajectoryDiff): HTMLElement {
  const { counts } = diff;
  const episode = episodeDeltas(diff.deltas);
  let text: string;
  if (diff.firstDivergence < 0) {
    text = 'The actions agree turn for turn.';
  } else {
    const row = diff.rows[diff.firstDivergence]!;
    const where = [row.a !== undefined ? `turn ${row.a + 1} of A` : null, row.b !== undefined ? `turn ${row.b + 1} of B` : null].filter(Boolean).join(' / ');
    text = `First divergence after ${diff.firstDivergence} agreeing turn${diff.firstDivergence === 1 ? '' : 's'}: ${where} (${KIND_TITLE[row.kind]}).`;
  }
  return el(
    'div',
    { class: 'summary' },
    el('span', { class: 'summary-text', attrs: { 'data-k': 'divergence' }, text }),
    el('span', { class: 'counts', attrs: { 'data-k': 'counts' }, text: `${counts.same} same · ${counts.changed} changed · ${counts.removed} only in A · ${counts.inserted} only in B` }),
    episode.score === null && episode.advantage === null
      ? null
      : el(
          'span',
          { class: 'episode-deltas', attrs: { 'data-k': 'episode-deltas' }, title: 'B − A of the step score and the advantage on most turns; a row shows its own only where it differs' },
          'B − A per turn: ',
          deltaItem('episodeScore', 'Δscore', episode.score, 2),
          ' ',
          deltaItem('episodeAdvantage', 'Δadv', episode.advantage, 3),
        ),
  );
}

function focusRow(index: number): void {
  if (rowElements.length === 0) return;
  currentRow = Math.max(0, Math.min(rowElements.length - 1, index));
  const row = rowElements[currentRow]!;
  for (const r of rowElements) r.classList.toggle('current', r === row);
  row.scrollIntoView({ block: 'nearest' });
  row.focus({ preventScroll: true });
}

function show(params: DiffToWebview['show']): void {
  const started = performance.now();
  const m = { a: buildModel(params.a.trajectory, params.a.estimator), b: buildModel(params.b.trajectory, params.b.estimator) };
  models = m;
  channel.state = { a: { runDir: params.a.runDir, id: params.a.trajectory.id }, b: { runDir: params.b.runDir, id: params.b.trajectory.id } };
  const diff = diffTrajectories(m.a.trajectory, m.b.trajectory, m.a.turns.map((t) => t.stats), m.b.turns.map((t) => t.stats));
  clear(root);
  const textDiff = el('button', { class: 'action', text: 'Open as Text Diff', attrs: { 'data-action': 'textDiff' } });
  textDiff.addEventListener('click', () => channel.post('openTextDiff', {}));
  const jump = el('button', { class: 'action', text: 'Go to First Divergence', attrs: { 'data-action': 'jump' } });
  jump.disabled = diff.firstDivergence < 0;
  jump.addEventListener('click', () => focusRow(diff.firstDivergence));
  const sameTask = m.a.trajectory.task.id === m.b.trajectory.task.id;
  const list = el('div', { class: 'rows', attrs: { role: 'list', 'aria-label': 'Aligned turns' } });
  rowElements = diff.rows.map((_, index) => rowView(diff, m, index, false));
  list.append(...rowElements);
  root.append(
    el(
      'header',
      { class: 'diff-header' },
      el('h1', { class: 'title', text: m.a.trajectory.task.description ?? m.a.trajectory.task.id }),
      sameTask ? null : el('div', { class: 'warning', text: `Different tasks: ${m.a.trajectory.task.id} and ${m.b.trajectory.task.id}.` }),
      el('div', { class: 'sides' }, sideHeader('a', params.a, m.a), sideHeader('b', params.b, m.b)),
      summary(diff),
      el('div', { class: 'toolbar' }, jump, textDiff, el('span', { class: 'toolbar-gap' }), legend(heatScale('gate'))),
    ),
    list,
    el('div', { class: 'statusline', text: 'j / k: next / previous row · d: first divergence · t: tokens of the current row' }),
  );
  new TokenHoverCard(list, (span) => {
    const tokens = span.closest<HTMLElement>('.tokens');
    const side = tokens?.dataset.side === 'b' ? 'b' : 'a';
    const turn = Number(tokens?.dataset.turn);
    const arrays = models?.[side].turns[turn]?.arrays;
    const index = Number(span.getAttribute('data-i'));
    return arrays && Number.isInteger(index) ? { arrays, index, where: `${side.toUpperCase()} · turn ${turn + 1}`, estimator: models?.[side].estimator } : undefined;
  });
  if (diff.firstDivergence >= 0) {
    currentRow = diff.firstDivergence;
    rowElements[currentRow]?.classList.add('current');
    rowElements[currentRow]?.scrollIntoView({ block: 'center' });
  }
  const ms = performance.now() - started; // scrollIntoView has forced the layout
  const tokens = m.a.total.tokens + m.b.total.tokens;
  channel.post('rendered', {
    ms,
    turns: m.a.turns.length + m.b.turns.length,
    turnsInDom: m.a.turns.length + m.b.turns.length,
    tokens,
    tokensInDom: list.querySelectorAll('.tok').length,
    rows: diff.rows.length,
    firstDivergence: diff.firstDivergence,
  });
}

document.addEventListener('keydown', (event) => {
  if (!models || isTyping(event) || event.ctrlKey || event.metaKey || event.altKey) return;
  let handled = true;
  if (event.key === 'j' || event.key === 'n' || event.key === 'ArrowDown') focusRow(currentRow + 1);
  else if (event.key === 'k' || event.key === 'p' || event.key === 'ArrowUp') focusRow(currentRow - 1);
  else if (event.key === 'd') {
    const first = rowElements.findIndex((row) => row.classList.contains('first-divergence'));
    if (first >= 0) focusRow(first);
  } else if (event.key === 't') rowElements[currentRow]?.querySelector<HTMLButtonElement>('.expand')?.click();
  else handled = false;
  if (handled) event.preventDefault();
});

channel.on('show', show).on('error', ({ message }) => {
  clear(root);
  root.append(el('div', { class: 'error', attrs: { role: 'alert' } }, el('strong', { text: 'Cannot compare these trajectories' }), el('pre', { text: message })));
});
channel.ready();
