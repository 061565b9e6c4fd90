// The trajectory viewer webview: header, toolbar (colour mode, copy, open as text, compare), legend, the virtualized
// turns with their token heatmaps, the hindsight skill beside them, the hover card and keyboard navigation.
// Receives the trajectory record from the host (src/trajectory/trajectoryPanel.ts); all text goes in as text.
import { HostChannel } from '../shared/hostApi';
import { VIEWER_TO_WEBVIEW, type TrajectoryPayload, type ViewerToHost, type ViewerToWebview } from '../../src/trajectory/shared/protocol';
import { clear, el, isTyping } from '../shared/dom';
import { MODE_LABELS, TokenHoverCard, installHeatmapStyles, legend, mathLabel, recolorTokens } from './heatmap';
import { HEAT_MODES, heatScale, type HeatMode, type HeatScale, describeScale } from '../../src/trajectory/shared/colorScale';
import { formatNumber, formatPercent, formatScore } from '../../src/trajectory/shared/format';
import { meanAdvantage } from '../../src/trajectory/shared/turnStats';
import { baselineWording, subtractsBaseline } from '../../src/runs/shared/opdEstimator';
import { estimateTextHeight } from '../../src/trajectory/shared/virtualLayout';
import { buildModel, type TrajectoryModel } from './model';
import { TurnList } from './turnList';
import { renderTurn, renderFinal, skillPanel, type TurnViewState } from './turnView';
import { WhatIfView, type WhatIfSaved } from './whatIfView';

interface SavedState {
  runDir?: string;
  id?: string;
  mode?: HeatMode;
  /** Colour by the absolute domain instead of the one fitted to the trajectory. */
  absolute?: boolean;
  /** What if… open, and the skill typed: a reloaded page shows them again. */
  whatIf?: WhatIfSaved;
}

const channel = new HostChannel<ViewerToWebview, ViewerToHost>(VIEWER_TO_WEBVIEW);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
installHeatmapStyles();

let model: TrajectoryModel | undefined;
let list: TurnList | undefined;
let current = 0;
let hoverCard: TokenHoverCard | undefined;
let whatIf: WhatIfView | undefined;
/** Position in the model's disagreement list of the token last jumped to (−1: none yet). */
let disagreementCursor = -1;
const view: TurnViewState = { mode: undefined, scale: undefined, expanded: new Set<string>(), goToToken: (turn, token) => goToToken(turn, token) };

function scaleFor(mode: HeatMode | undefined): HeatScale | undefined {
  if (!mode) return undefined;
  const scale = saved().absolute ? heatScale(mode) : (model?.fitted(mode) ?? heatScale(mode));
  return describeScale(scale, model?.estimator, model?.modes.includes('weight') ?? false);
}

/** The tooltip of a mode button (a disabled one says why). */
function modeTitle(m: TrajectoryModel, mode: HeatMode, key: number): string {
  const label = mode === 'weight' ? baselineWording(m.estimator).weight : MODE_LABELS[mode].replace('^', '');
  if (m.modes.includes(mode)) {
    const what = mode === 'weight' ? `: what the update weighed each sampled token by (opd.estimator: ${m.estimator ?? 'unknown'})` : '';
    return `Colour tokens by ${label}${what} (${key})`;
  }
  if (mode !== 'weight') return 'Not recorded in this trajectory';
  if (m.estimator && !subtractsBaseline(m.estimator)) return `This run's OPD estimator (${m.estimator}) subtracts nothing: the update weighed each sampled token by g itself`;
  return 'No gate baseline (gate_baseline) was recorded in this trajectory';
}

function saved(): SavedState {
  const state = channel.state;
  return state && typeof state === 'object' ? (state as SavedState) : {};
}

function fact(label: string, value: string, key?: string): HTMLElement {
  return el('div', { class: 'fact', attrs: key ? { 'data-fact': key } : {} }, el('span', { class: 'fact-label', text: label }), el('span', { class: 'fact-value', text: value }));
}

function header(payload: TrajectoryPayload, m: TrajectoryModel): HTMLElement {
  const t = m.trajectory;
  const advantage = meanAdvantage(t);
  const where = [t.phase, t.update !== null ? `update ${t.update}` : '', t.group !== undefined ? `group ${t.group}` : '', t.sample !== undefined ? `sample ${t.sample}` : '']
    .filter(Boolean)
    .join(' · ');
  return el(
    'header',
    { class: 'traj-header' },
    el(
      'div',
      { class: 'title-row' },
      el('span', { class: `outcome ${t.success ? 'success' : 'failure'}`, text: t.success ? 'success' : 'failure' }),
      el('h1', { class: 'title', text: t.task.description ?? t.task.id }),
    ),
    el(
      'div',
      { class: 'facts' },
      fact('trajectory', t.id, 'id'),
      fact('run', payload.run, 'run'),
      fact('task', t.task.id, 'task'),
      fact('type', t.task.type, 'type'),
      fact('split', t.task.split ?? '—', 'split'),
      fact('reward', formatScore(t.reward), 'reward'),
      fact('length', String(t.length), 'length'),
      fact('advantage', formatNumber(advantage), 'advantage'),
      fact('where', where, 'where'),
      fact('tokens', String(m.total.tokens), 'tokens'),
      fact('mean g', formatNumber(m.total.meanGate), 'meanGate'),
      fact('g > 0.5', formatPercent(m.total.fracGateAboveHalf), 'fracAbove'),
      m.estimator ? fact('OPD estimator', m.estimator, 'estimator') : null,
    ),
  );
}

function toolbar(m: TrajectoryModel): HTMLElement {
  const modes = el('div', { class: 'modes', attrs: { role: 'radiogroup', 'aria-label': 'Colour tokens by' } });
  HEAT_MODES.forEach((mode, i) => {
    const available = m.modes.includes(mode);
    const label = mode === 'weight' ? baselineWording(m.estimator).weight : MODE_LABELS[mode];
    const button = el(
      'button',
      {
        class: 'mode',
        title: modeTitle(m, mode, i + 1),
        attrs: { role: 'radio', 'aria-checked': String(view.mode === mode), 'data-mode': mode },
      },
      mathLabel(label),
    );
    button.disabled = !available;
    button.addEventListener('click', () => setMode(mode));
    modes.append(button);
  });
  const action = (label: string, key: string, title: string, run: () => void) => {
    const button = el('button', { class: 'action', text: label, title, attrs: { 'data-action': key } });
    button.addEventListener('click', run);
    return button;
  };
  const scaleButton = action(saved().absolute ? 'Scale: absolute' : 'Scale: fitted', 'scale', 'Switch between the colour scale fitted to this trajectory and the absolute one (a)', () => toggleScale());
  const next = action('Next disagreement', 'next-disagreement', 'Jump to the token where teacher and student disagree most, then the next (d; D goes back)', () => jumpToDisagreement(1));
  next.disabled = !m.hasDisagreements;
  return el(
    'div',
    { class: 'toolbar' },
    el('span', { class: 'toolbar-label', text: 'Colour by' }),
    modes,
    scaleButton,
    next,
    el('span', { class: 'toolbar-gap' }),
    action('Copy as Text', 'copy', 'Copy the whole trajectory as text (c)', () => channel.post('copyText', {})),
    action('Open as Text', 'openText', 'Open the text rendering in an editor', () => channel.post('openText', {})),
    action('Compare…', 'compare', 'Compare with another trajectory of the same task', () => channel.post('compare', {})),
    action('What if…', 'what-if', 'Edit the skill and see the gates recomputed (w)', () => whatIf?.toggle()),
  );
}

function legendSlot(): HTMLElement {
  const slot = document.getElementById('legend-slot') ?? el('div', { attrs: { id: 'legend-slot' } });
  clear(slot);
  if (view.scale) slot.append(legend(view.scale));
  else slot.append(el('div', { class: 'legend-none', text: 'No token arrays were recorded for this trajectory: nothing to colour.' }));
  return slot;
}

function setMode(mode: HeatMode): void {
  if (!model || !model.modes.includes(mode) || view.mode === mode) return;
  view.mode = mode;
  channel.state = { ...saved(), mode };
  for (const button of document.querySelectorAll<HTMLElement>('.mode')) button.setAttribute('aria-checked', String(button.dataset.mode === mode));
  recolor();
}

function recolor(): void {
  view.scale = scaleFor(view.mode);
  legendSlot();
  if (!model || !list) return;
  for (const [index, row] of list.rendered) {
    const arrays = model.turns[index]?.arrays;
    if (arrays) recolorTokens(row, arrays, view.scale);
  }
}

function toggleScale(): void {
  const absolute = !saved().absolute;
  channel.state = { ...saved(), absolute };
  const button = document.querySelector<HTMLElement>('[data-action="scale"]');
  if (button) button.textContent = absolute ? 'Scale: absolute' : 'Scale: fitted';
  recolor();
}

/** Moves to the next (`step` 1) or previous (−1) token in order of |Δ|: scrolls to it, marks it, shows its numbers. */
function jumpToDisagreement(step: 1 | -1): void {
  if (!model || !list || model.disagreements.length === 0) return;
  const count = model.disagreements.length;
  disagreementCursor = (((disagreementCursor + step) % count) + count) % count;
  const target = model.disagreements[disagreementCursor]!;
  goToToken(target.turn, target.token);
  const status = document.getElementById('nav-status');
  if (status) status.textContent = `Disagreement ${disagreementCursor + 1} of ${count}: Δ ${formatNumber(target.delta)} at turn ${target.turn + 1}, token ${target.token + 1}`;
}

/** Scrolls to a token, marks it and opens its hover card (disagreement navigation, a click on a Δ sparkline). */
function goToToken(turn: number, token: number): void {
  setCurrent(turn, false);
  for (const marked of document.querySelectorAll('.focus-token')) marked.classList.remove('focus-token');
  const span = document.querySelector<HTMLElement>(`.turn[data-turn="${turn}"] .tok[data-i="${token}"]`);
  span?.classList.add('focus-token');
  span?.scrollIntoView({ block: 'center' });
  if (span) hoverCard?.show(span);
}

/** Pixel metrics for the height estimates: a monospace character's width and the line height (undefined while the
 * page is not laid out, e.g. hidden). */
function measureText(parent: HTMLElement): { charWidth: number; lineHeight: number } | undefined {
  const probe = el('div', { class: 'tokens measure', text: 'x'.repeat(64) });
  parent.append(probe);
  const rect = probe.getBoundingClientRect();
  const lineHeight = parseFloat(getComputedStyle(probe).lineHeight);
  probe.remove();
  return rect.width > 0 && lineHeight > 0 ? { charWidth: rect.width / 64, lineHeight } : undefined;
}

// Measured while the page loads, before any trajectory arrives: the first layout of text in a new page (fonts, the
// stylesheets) then happens while the host is still reading the trajectory, not between its arrival and the first
// frame. Measured again in show() if the page could not be laid out yet.
let textMetrics = measureText(root);

function setCurrent(index: number, focus: boolean): void {
  if (!model || !list) return;
  const rows = list.count;
  current = Math.max(0, Math.min(rows - 1, index));
  const row = list.scrollTo(current);
  markCurrent();
  if (focus) row?.querySelector<HTMLElement>('.turn-head')?.focus({ preventScroll: true });
  const status = document.getElementById('nav-status');
  if (status) status.textContent = `Turn ${Math.min(current + 1, model.turns.length)} of ${model.turns.length}`;
}

function markCurrent(): void {
  if (!list) return;
  for (const [index, row] of list.rendered) {
    row.classList.toggle('current', index === current);
    row.querySelector('.turn-head')?.setAttribute('tabindex', index === current ? '0' : '-1');
  }
}

function show(payload: TrajectoryPayload): void {
  const started = performance.now();
  const previous = saved();
  const trajectory = payload.trajectory;
  const m = buildModel(trajectory, payload.estimator);
  model = m;
  const sameTrajectory = previous.id === trajectory.id && previous.runDir === payload.runDir;
  view.mode = sameTrajectory && previous.mode && m.modes.includes(previous.mode) ? previous.mode : m.modes[0];
  view.expanded.clear();
  current = 0;
  disagreementCursor = -1;
  const whatIfSaved = sameTrajectory ? previous.whatIf : undefined;
  channel.state = { runDir: payload.runDir, id: trajectory.id, mode: view.mode, ...(previous.absolute ? { absolute: true } : {}), ...(whatIfSaved ? { whatIf: whatIfSaved } : {}) };
  view.scale = scaleFor(view.mode);

  clear(root);
  const scroller = el('div', { class: 'turns', attrs: { role: 'list', 'aria-label': 'Turns', tabindex: '0' } });
  const aside = skillPanel(trajectory);
  whatIf = new WhatIfView(m, {
    rescore: (skill, useTrainer) => channel.request('whatIf', { skill, ...(useTrainer ? { useTrainer: true } : {}) }),
    save: () => channel.request('saveWhatIf', {}),
    exportCheckpoint: (checkpoint) => channel.request('whatIfExport', { checkpoint }),
    wait: () => channel.request('whatIfWait', {}),
  }, { saved: whatIfSaved, remember: (state) => (channel.state = { ...saved(), whatIf: state }) });
  root.append(
    header(payload, m),
    toolbar(m),
    whatIf.element,
    legendSlot(),
    el('main', { class: 'traj-main' }, scroller, aside),
    el('div', { class: 'statusline' }, el('span', { attrs: { id: 'nav-status' }, text: `Turn 1 of ${m.turns.length}` }), el('span', { class: 'keys', text: 'j / k: next / previous turn · g / G: first / last · 1–5: colour mode · a: fitted / absolute scale · d / D: next / previous disagreement · w: what if… · c: copy' })),
  );

  textMetrics ??= measureText(scroller);
  const { charWidth, lineHeight } = textMetrics ?? { charWidth: 7.5, lineHeight: 18 };
  const rowCount = m.turns.length + (trajectory.final_observation !== undefined ? 1 : 0);
  const estimate = (index: number): number => {
    const width = Math.max(200, scroller.clientWidth - 40);
    const perLine = width / charWidth;
    const turn = m.turns[index];
    if (!turn) return 60 + estimateTextHeight(trajectory.final_observation ?? '', perLine, lineHeight);
    const obs = estimateTextHeight(turn.step.observation.slice(0, 20_000), perLine, lineHeight);
    const resp = Math.max(lineHeight, (turn.chars / perLine) * lineHeight * 1.1 + lineHeight * (turn.step.response.split('\n').length - 1));
    return 40 + 24 + obs + 24 + resp + 30 + 16;
  };
  list = new TurnList(scroller, {
    count: rowCount,
    estimate,
    render: (index) => (index < m.turns.length ? renderTurn(m, index, view, onExpand) : renderFinal(trajectory.final_observation ?? '', index, view, onExpand)),
    onChange: markCurrent,
  });
  hoverCard?.element.remove();
  hoverCard = new TokenHoverCard(scroller, (span) => {
    const row = span.closest<HTMLElement>('[data-turn]');
    const index = Number(row?.dataset.turn);
    const arrays = m.turns[index]?.arrays;
    const tokenIndex = Number(span.getAttribute('data-i'));
    return arrays && Number.isInteger(tokenIndex) ? { arrays, index: tokenIndex, where: `turn ${index + 1}`, estimator: m.estimator } : undefined;
  });
  scroller.addEventListener('focusin', (event) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-turn]');
    if (row && Number(row.dataset.turn) !== current) {
      current = Number(row.dataset.turn);
      markCurrent();
    }
  });
  list.firstDraw();
  markCurrent();
  const ms = performance.now() - started;
  let tokensInDom = 0;
  for (const row of list.rendered.values()) tokensInDom += row.querySelectorAll('.tok').length;
  channel.post('rendered', { ms, turns: m.turns.length, turnsInDom: list.rendered.size, tokens: m.total.tokens, tokensInDom });
}

function onExpand(index: number): void {
  list?.redraw([index]);
  list?.remeasure(index);
}

function showError(message: string): void {
  clear(root);
  root.append(el('div', { class: 'error', attrs: { role: 'alert' } }, el('strong', { text: 'Cannot show this trajectory' }), el('pre', { text: message })));
}

document.addEventListener('keydown', (event) => {
  if (!model || !list || isTyping(event) || event.ctrlKey || event.metaKey || event.altKey) return;
  const onHead = (event.target as HTMLElement | null)?.classList.contains('turn-head') ?? false;
  const key = event.key;
  let handled = true;
  if (key === 'j' || key === 'n' || (onHead && key === 'ArrowDown')) setCurrent(current + 1, true);
  else if (key === 'k' || key === 'p' || (onHead && key === 'ArrowUp')) setCurrent(current - 1, true);
  else if (key === 'g' || (onHead && key === 'Home')) setCurrent(0, true);
  else if (key === 'G' || (onHead && key === 'End')) setCurrent(list.count - 1, true);
  else if (/^[1-5]$/.test(key)) setMode(HEAT_MODES[Number(key) - 1]!);
  else if (key === 'c') channel.post('copyText', {});
  else if (key === 'a') toggleScale();
  else if (key === 'd' || key === 'D') jumpToDisagreement(key === 'd' ? 1 : -1);
  else if (key === 'w') whatIf?.toggle();
  else handled = false;
  if (handled) event.preventDefault();
});

channel
  .on('show', show)
  .on('error', ({ message }) => showError(message))
  .on('whatIfState', (state) => whatIf?.restore(state))
  .on('startWhatIf', ({ skill }) => whatIf?.start(skill));
channel.ready();

