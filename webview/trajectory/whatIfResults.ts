// The results of What if… (webview/trajectory/whatIfView.ts holds its controls): a summary row per skill beside the
// recorded one (mean g, g > 0.5, mean Δ, tokens that flipped side), the weights of the chosen row, and per turn the
// recorded and recomputed token rows on one colour scale, with the tokens whose gate crossed 0.5 marked (↑: the
// teacher now finds the token more likely than the student does, ↓: less). When a result's weights are not the ones
// that scored the trajectory, its flips are counted against the control — the recorded skill rescored on the same
// weights (src/whatIf/whatIfSession.ts adds it) — not against the recorded gates, so a flip is the skill's and not
// the change of weights'.
import type { TokenArrays } from '../../src/runs/shared/tokenArrays';
import { fittedScale, type HeatScale } from '../../src/trajectory/shared/colorScale';
import { formatNumber, formatPercent } from '../../src/trajectory/shared/format';
import { summarizeGates, type GateSummary } from '../../src/runs/shared/gate';
import { gateFlips } from '../../src/whatIf/shared/gateFlips';
import type { WhatIfResultRecord } from '../../src/whatIf/shared/whatIfRecord';
import { scoringStep, shortWeights, stepOfWeights, weightsNote } from '../../src/whatIf/shared/weights';
import { clear, el } from '../shared/dom';
import { legend, renderTokens } from './heatmap';
import type { TrajectoryModel } from './model';

interface ResultView {
  record: WhatIfResultRecord;
  summary: GateSummary;
  flipsUp: number;
  flipsDown: number;
  /** The recorded skill on this result's weights, which its flips are counted against (undefined: the recorded gates). */
  control?: WhatIfResultRecord;
  /** This result is that control for its weights. */
  isControl: boolean;
}

export class WhatIfResults {
  private results: ResultView[] = [];
  private selected = -1;
  readonly weights: HTMLElement;
  readonly summaryTable: HTMLElement;
  readonly turnsBox: HTMLElement;

  constructor(private readonly model: TrajectoryModel) {
    this.summaryTable = el('table', { class: 'whatif-summary', attrs: { 'aria-label': 'Gate summaries: recorded and each skill tried' } });
    this.turnsBox = el('div', { class: 'whatif-turns' });
    this.weights = el('div', { class: 'whatif-weights', attrs: { 'data-k': 'whatif-weights' } });
    this.renderSummary();
  }

  /** Every result, the newest chosen. */
  show(records: readonly WhatIfResultRecord[]): void {
    this.results = records.map((record) => this.viewOf(record, records));
    this.selected = this.results.length - 1;
    this.showWeights();
    this.renderSummary();
    this.renderTurns();
  }

  /** Which weights the shown result used, and whether they scored the trajectory. */
  private showWeights(): void {
    const record = this.results[this.selected]?.record;
    const trajectory = this.model.trajectory;
    this.weights.textContent = record ? `Weights: ${shortWeights(record.export)}, ${weightsNote(record.export, trajectory.phase, trajectory.update)}.` : '';
  }

  /** The gates a result is compared with, per turn: its control's when it has one, else the recorded ones. */
  private baselineGate(turn: number, control: WhatIfResultRecord | undefined): ArrayLike<number> | undefined {
    return control ? control.steps[turn]?.gate : this.model.turns[turn]?.arrays?.gate;
  }

  /** The control of a result: when its weights did not score the trajectory, a result of the recorded skill on the
   * same weights (other than itself). */
  private controlOf(record: WhatIfResultRecord, all: readonly WhatIfResultRecord[]): WhatIfResultRecord | undefined {
    const { phase, update } = this.model.trajectory;
    const step = stepOfWeights(record.export) ?? 0;
    const recorded = this.model.trajectory.skill?.text;
    if (step === scoringStep(phase, update) || !recorded || record.skill === recorded) return undefined;
    return all.find((other) => other !== record && other.skill === recorded && (stepOfWeights(other.export) ?? 0) === step);
  }

  private viewOf(record: WhatIfResultRecord, all: readonly WhatIfResultRecord[]): ResultView {
    const control = this.controlOf(record, all);
    const isControl = record.skill === this.model.trajectory.skill?.text && all.some((other) => this.controlOf(other, all) === record);
    let flipsUp = 0;
    let flipsDown = 0;
    const parts = record.steps.map((step, i) => {
      const before = this.baselineGate(i, control);
      if (before) {
        for (const flip of gateFlips(before, step.gate)) {
          if (flip === 1) flipsUp++;
          else if (flip === -1) flipsDown++;
        }
      }
      return { gate: Float32Array.from(step.gate), delta: Float32Array.from(step.delta) };
    });
    return { record, summary: summarizeGates(parts), flipsUp, flipsDown, isControl, ...(control ? { control } : {}) };
  }

  private renderSummary(): void {
    clear(this.summaryTable);
    const head = el('tr', {}, ...['', 'Skill', 'Scored by', 'mean g', 'g > 0.5', 'mean Δ', '↑ flips', '↓ flips'].map((text) => el('th', { text })));
    const total = this.model.total;
    const recorded = el(
      'tr',
      { attrs: { 'data-result': 'recorded' } },
      el('td', { text: 'recorded' }),
      el('td', { class: 'skill-cell', text: this.model.trajectory.skill?.text ?? '—' }),
      el('td', { text: 'the trainer' }),
      el('td', { class: 'num', attrs: { 'data-k': 'meanGate' }, text: formatNumber(total.meanGate) }),
      el('td', { class: 'num', attrs: { 'data-k': 'fracAbove' }, text: formatPercent(total.fracGateAboveHalf) }),
      el('td', { class: 'num', text: formatNumber(total.meanDelta) }),
      el('td', { class: 'num', text: '' }),
      el('td', { class: 'num', text: '' }),
    );
    this.summaryTable.append(head, recorded);
    this.results.forEach((result, index) => {
      const radio = el('input', { attrs: { type: 'radio', name: 'whatif-shown', 'aria-label': `Show skill ${index + 1} in the turns` } });
      radio.checked = index === this.selected;
      radio.addEventListener('change', () => {
        this.selected = index;
        this.showWeights();
        this.renderSummary();
        this.renderTurns();
      });
      const { summary } = result;
      this.summaryTable.append(
        el(
          'tr',
          { class: index === this.selected ? 'selected' : '', attrs: { 'data-result': String(index) } },
          el('td', {}, radio),
          el(
            'td',
            { class: 'skill-cell' },
            result.record.skill,
            ...(result.isControl ? [el('div', { class: 'whatif-note', attrs: { 'data-k': 'control' }, text: 'the recorded skill on these weights: the control the other rows on them are compared with' })] : []),
            ...(result.control ? [el('div', { class: 'whatif-note', attrs: { 'data-k': 'against' }, text: 'flips counted against the control (same weights)' })] : []),
          ),
          el('td', { text: `${result.record.path} (${result.record.provider}), ${result.record.seconds.toFixed(2)} s` }),
          el('td', { class: 'num', attrs: { 'data-k': 'meanGate' }, text: formatNumber(summary.meanGate) }),
          el('td', { class: 'num', attrs: { 'data-k': 'fracAbove' }, text: formatPercent(summary.fracAboveHalf) }),
          el('td', { class: 'num', text: formatNumber(summary.meanDelta) }),
          el('td', { class: 'num', attrs: { 'data-k': 'flipsUp' }, text: String(result.flipsUp) }),
          el('td', { class: 'num', attrs: { 'data-k': 'flipsDown' }, text: String(result.flipsDown) }),
        ),
      );
    });
  }

  private renderTurns(): void {
    clear(this.turnsBox);
    const result = this.results[this.selected];
    if (!result) return;
    const steps = result.record.steps;
    // One scale for both rows of every turn, fitted to the recorded and the recomputed gates together.
    const scale: HeatScale = fittedScale('gate', [...this.model.turns.map((turn) => turn.arrays?.gate), ...steps.map((step) => step.gate), ...(result.control?.steps.map((step) => step.gate) ?? [])]);
    this.turnsBox.append(legend(scale));
    steps.forEach((step, i) => {
      const turn = this.model.turns[i];
      const arrays = turn?.arrays;
      if (!arrays) return;
      const scored = (s: (typeof steps)[number]): TokenArrays => ({ count: arrays.count, ids: arrays.ids, text: arrays.text, gate: Float32Array.from(s.gate), delta: Float32Array.from(s.delta), teacherLogp: Float32Array.from(s.teacher_logp), logp: Float32Array.from(s.logp) });
      const after = scored(step);
      const controlStep = result.control?.steps[i];
      const baseline = controlStep ? scored(controlStep) : arrays;
      const before = summarizeGates(baseline.gate && baseline.delta ? [{ gate: baseline.gate, delta: baseline.delta }] : []);
      const now = summarizeGates([{ gate: after.gate!, delta: after.delta! }]);
      const recordedRow = renderTokens(baseline, baseline.gate ? scale : undefined).fragment;
      const whatIfRow = renderTokens(after, scale).fragment;
      const flips = baseline.gate ? gateFlips(baseline.gate, after.gate!) : new Int8Array(0);
      for (const span of whatIfRow.querySelectorAll<HTMLElement>('.tok')) {
        const flip = flips[Number(span.getAttribute('data-i'))];
        if (flip === 1) span.classList.add('flip-up');
        else if (flip === -1) span.classList.add('flip-down');
      }
      const ups = flips.filter((f) => f === 1).length;
      const downs = flips.filter((f) => f === -1).length;
      this.turnsBox.append(
        el(
          'div',
          { class: 'whatif-turn', attrs: { 'data-turn': String(i) } },
          el('div', { class: 'whatif-turn-head', text: `Turn ${i + 1}: mean g ${formatNumber(before.meanGate)} → ${formatNumber(now.meanGate)} · g > 0.5 ${formatPercent(before.fracAboveHalf)} → ${formatPercent(now.fracAboveHalf)} · ↑ ${ups} ↓ ${downs}` }),
          el('div', { class: 'whatif-row recorded' }, el('span', { class: 'row-label', text: controlStep ? 'recorded skill, same weights' : 'recorded' }), el('div', { class: 'tokens' }, recordedRow)),
          el('div', { class: 'whatif-row rescored' }, el('span', { class: 'row-label', text: 'what if' }), el('div', { class: 'tokens' }, whatIfRow)),
        ),
      );
    });
  }
}
