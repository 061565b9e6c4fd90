// One turn of the viewer as DOM: its header with the per-turn summary, the observation, the response as coloured
// tokens (or plain text when the step recorded no token arrays), and the action. Long texts are cut with a button
// that shows the rest, so a hostile 1 MB line cannot stall the page.
import type { Trajectory } from '../../src/runs/shared/types';
import { binClass, binOf, heatScale, type HeatMode, type HeatScale } from '../../src/trajectory/shared/colorScale';
import { actionResult } from '../../src/runs/shared/actionResult';
import { SCORE_TITLE, actionBadges, formatNumber, formatPercent, formatScore } from '../../src/trajectory/shared/format';
import { clip } from '../../src/common/shared/inertText';
import { el } from '../shared/dom';
import { renderTokens } from './heatmap';
import { skillMismatches } from '../../src/runs/shared/skillRelevance';
import { mismatchNote } from '../shared/skillMismatch';
import type { TrajectoryModel } from './model';
import { deltaSparkline } from './sparklineCanvas';

const MAX_FIELD_CHARS = 20_000;

export interface TurnViewState {
  mode: HeatMode | undefined;
  /** The scale tokens are coloured by: the mode's fitted or absolute scale. */
  scale: HeatScale | undefined;
  /** Fields shown whole: `<turn>:<field>`. */
  expanded: Set<string>;
  /** A token picked outside the text (the Δ sparkline): go to it. */
  goToToken?: (turn: number, token: number) => void;
}

export function gateSwatchClass(meanGate: number | null): string {
  if (meanGate === null) return 'h-none';
  const scale = heatScale('gate');
  return binClass(scale.kind, binOf(scale, meanGate));
}

function moreButton(label: string, onClick: () => void): HTMLElement {
  const button = el('button', { class: 'more', text: label });
  button.addEventListener('click', onClick);
  return button;
}

function textField(label: string, text: string, key: string, index: number, view: TurnViewState, onExpand: (index: number) => void, extraClass = ''): HTMLElement {
  const whole = view.expanded.has(key);
  const { text: shown, omitted } = whole ? { text, omitted: 0 } : clip(text, MAX_FIELD_CHARS);
  return el(
    'div',
    { class: `field ${extraClass}` },
    el('div', { class: 'field-label', text: label }),
    el('div', { class: 'text' }, shown),
    omitted > 0
      ? moreButton(`Show all (${omitted.toLocaleString('en-US')} more characters)`, () => {
          view.expanded.add(key);
          onExpand(index);
        })
      : null,
  );
}

export function renderTurn(m: TrajectoryModel, index: number, view: TurnViewState, onExpand: (index: number) => void): HTMLElement {
  const turn = m.turns[index]!;
  const { step, stats, arrays } = turn;
  const facts: (HTMLElement | null)[] = [
    el('span', { class: 'fact', text: `t=${step.t}` }),
    typeof step.score === 'number' ? el('span', { class: 'fact', attrs: { 'data-k': 'score' }, title: SCORE_TITLE, text: `score ${formatScore(step.score)}` }) : null,
    typeof step.env_reward === 'number' ? el('span', { class: 'fact', text: `env reward ${formatScore(step.env_reward)}` }) : null,
    typeof step.advantage === 'number' ? el('span', { class: 'fact', attrs: { 'data-k': 'advantage' }, text: `advantage ${formatNumber(step.advantage)}` }) : null,
    stats.tokens > 0 ? el('span', { class: 'fact', text: `${stats.tokens} tokens` }) : null,
    stats.teacher
      ? el(
          'span',
          { class: 'fact gate-summary', attrs: { 'data-k': 'meanGate' } },
          el('span', { class: `swatch ${gateSwatchClass(stats.meanGate)}` }),
          `mean g ${formatNumber(stats.meanGate)}`,
        )
      : null,
    stats.teacher ? el('span', { class: 'fact', attrs: { 'data-k': 'fracAbove' }, text: `g > 0.5: ${formatPercent(stats.fracGateAboveHalf)}` }) : null,
    step.truncated ? el('span', { class: 'badge warn', text: 'truncated' }) : null,
  ];
  const head = el(
    'div',
    { class: 'turn-head', attrs: { tabindex: '-1', role: 'heading', 'aria-level': '2' } },
    el('span', { class: 'turn-no', text: `Turn ${index + 1}` }),
    ...actionBadges(step.valid, actionResult(m.trajectory, index)).map((badge) => el('span', { class: `badge ${badge.kind}`, attrs: { 'data-k': 'action' }, title: badge.title, text: badge.text })),
    ...facts,
  );

  let response: HTMLElement;
  if (arrays) {
    const key = `${index}:tokens`;
    const whole = view.expanded.has(key);
    const tokens = el('div', { class: 'tokens', attrs: { 'data-turn': String(index) } });
    const { fragment, rendered } = renderTokens(arrays, view.scale, whole ? Infinity : MAX_FIELD_CHARS);
    tokens.append(fragment);
    response = el(
      'div',
      { class: 'field response' },
      el(
        'div',
        { class: 'field-label response-label' },
        'Response',
        arrays.delta ? deltaSparkline(arrays.delta, m.deltaRange, index, (token) => view.goToToken?.(index, token)) : null,
      ),
      tokens,
      rendered < arrays.count
        ? moreButton(`Show the remaining ${arrays.count - rendered} tokens`, () => {
            view.expanded.add(key);
            onExpand(index);
          })
        : null,
    );
  } else {
    response = textField('Response (no token arrays recorded)', step.response, `${index}:response`, index, view, onExpand, 'response plain');
  }
  const action =
    step.action === null
      ? el('div', { class: 'field action' }, el('span', { class: 'field-label', text: 'Action' }), el('span', { class: 'no-action', text: 'no well-formed <action>' }))
      : el('div', { class: 'field action' }, el('span', { class: 'field-label', text: 'Action' }), el('code', { class: 'action-text', text: clip(step.action, 2000).text }));
  return el(
    'section',
    { class: `turn${step.valid ? '' : ' invalid'}`, attrs: { 'data-turn': String(index), role: 'listitem', 'aria-label': `Turn ${index + 1} of ${m.turns.length}` } },
    head,
    textField('Observation', step.observation, `${index}:observation`, index, view, onExpand, 'observation'),
    response,
    action,
  );
}

export function renderFinal(text: string, index: number, view: TurnViewState, onExpand: (index: number) => void): HTMLElement {
  return el(
    'section',
    { class: 'turn final', attrs: { 'data-final': 'true', role: 'listitem', 'aria-label': 'Final observation' } },
    el('div', { class: 'turn-head', attrs: { tabindex: '-1', role: 'heading', 'aria-level': '2' } }, el('span', { class: 'turn-no', text: 'Final observation' })),
    textField('Observation', text, `${index}:final`, index, view, onExpand, 'observation'),
  );
}

/** The hindsight skill beside the turns: text, summary, parse status, source, and the raw reply when kept. */
export function skillPanel(trajectory: Trajectory): HTMLElement {
  const skill = trajectory.skill;
  if (!skill) {
    return el(
      'aside',
      { class: 'skill-panel', attrs: { 'aria-label': 'Hindsight skill' } },
      el('h2', { text: 'Hindsight skill' }),
      el('p', { class: 'muted', text: 'None: no analysis ran for this trajectory (GRPO, evaluation, or a baseline without skills).' }),
    );
  }
  // Open when the skill is invalid: the raw reply is what shows why format verification failed.
  const raw = skill.raw
    ? el('details', { class: 'raw', attrs: skill.valid ? {} : { open: '' } }, el('summary', { text: 'Raw analyzer reply' }), el('div', { class: 'text' }, clip(skill.raw, MAX_FIELD_CHARS).text))
    : null;
  return el(
    'aside',
    { class: 'skill-panel', attrs: { 'aria-label': 'Hindsight skill' } },
    el('h2', { text: 'Hindsight skill' }),
    el(
      'div',
      { class: 'skill-badges' },
      el('span', { class: `badge source source-${skill.source}`, attrs: { 'data-k': 'source' }, text: `source: ${skill.source}` }),
      el('span', { class: `badge ${skill.valid ? 'valid' : 'invalid'}`, attrs: { 'data-k': 'parse' }, text: skill.valid ? 'parsed' : 'invalid' }),
    ),
    !skill.valid && skill.reason ? el('p', { class: 'reason', text: `Format verification failed: ${skill.reason}. No distillation on this trajectory (OPD mask 0).` }) : null,
    mismatchNote(skill.valid ? skillMismatches(skill, trajectory.task.description ?? '', trajectory.length) : []),
    el('div', { class: 'field-label', text: 'Skill' }),
    el('div', { class: 'skill-text text', attrs: { 'data-k': 'skill' } }, skill.text === null ? '(not parseable)' : clip(skill.text, MAX_FIELD_CHARS).text),
    skill.summary ? el('div', { class: 'field-label', text: 'Episode summary' }) : null,
    skill.summary ? el('div', { class: 'skill-summary text', attrs: { 'data-k': 'summary' } }, clip(skill.summary, MAX_FIELD_CHARS).text) : null,
    raw,
  );
}
