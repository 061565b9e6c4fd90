// "What if…" in the trajectory viewer: type a skill, the host rescores the trajectory (src/whatIf/whatIfSession.ts),
// and this section shows every result beside the recorded gates — a summary row per skill (mean g, g > 0.5, mean Δ,
// tokens that flipped side), and per turn the recorded and recomputed token rows on one colour scale, with the tokens
// whose gate crossed 0.5 marked (↑: the teacher now finds the token more likely than the student does, ↓: less).
// When a result's weights are not the ones that scored the trajectory, its flips are counted against the control —
// the recorded skill rescored on the same weights (src/whatIf/whatIfSession.ts adds it) — not against the recorded
// gates, so a flip is the skill's and not the change of weights'.
import type { WhatIfPayload, WhatIfQuestion } from '../../src/trajectory/shared/protocol';
import type { TokenArrays } from '../../src/runs/shared/tokenArrays';
import { fittedScale, type HeatScale } from '../../src/trajectory/shared/colorScale';
import { formatNumber, formatPercent } from '../../src/trajectory/shared/format';
import { summarizeGates, type GateSummary } from '../../src/runs/shared/gate';
import { gateFlips } from '../../src/whatIf/shared/gateFlips';
import type { WhatIfResultRecord } from '../../src/whatIf/shared/whatIfRecord';
import { scoringStep, shortWeights, stepOfWeights, weightsNote } from '../../src/whatIf/shared/weights';
import { adoptCss, clear, el } from '../shared/dom';
import { legend, renderTokens } from './heatmap';
import type { TrajectoryModel } from './model';
import { isolatedText } from '../../src/common/shared/inertText';

export interface WhatIfHost {
  rescore(skill: string, useTrainer?: boolean): Promise<void>;
  save(): Promise<void>;
  /** Exports a kept checkpoint as ONNX (SEED: Export Checkpoint…); resolves when the export has ended. */
  exportCheckpoint(checkpoint: string): Promise<void>;
}

const CSS = `
.whatif { border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 8px 10px; margin: 6px 0; }
.whatif[hidden] { display: none; }
.whatif h2 { font-size: 1.05em; margin: 0 0 6px; }
.whatif-skill { width: 100%; min-height: 3.5em; box-sizing: border-box; font-family: var(--vscode-editor-font-family, monospace); }
.whatif-actions { display: flex; gap: 6px; align-items: center; margin: 6px 0; flex-wrap: wrap; }
.whatif-status { opacity: 0.85; }
.whatif-summary { border-collapse: collapse; margin: 6px 0; width: 100%; }
.whatif-summary th, .whatif-summary td { text-align: left; padding: 2px 8px; border-bottom: 1px solid var(--vscode-panel-border, #8883); vertical-align: top; }
.whatif-summary td.num { text-align: right; font-variant-numeric: tabular-nums; }
.whatif-summary tr.selected { outline: 2px solid var(--vscode-focusBorder, #0078d4); }
.whatif-summary .skill-cell { max-width: 40ch; overflow-wrap: anywhere; }
.whatif-turn { margin: 8px 0; }
.whatif-turn-head { font-weight: 600; margin-bottom: 2px; }
.whatif-row { display: grid; grid-template-columns: 6.5em 1fr; gap: 6px; align-items: start; }
.whatif-row .row-label { opacity: 0.8; }
.whatif-row .tokens { white-space: pre-wrap; overflow-wrap: anywhere; font-family: var(--vscode-editor-font-family, monospace); }
.whatif-question { border-left: 3px solid var(--vscode-inputValidation-warningBorder, #b89500); padding: 4px 8px; margin: 6px 0; }
.whatif-question[hidden] { display: none; }
.whatif-question p { margin: 2px 0 6px; }
.whatif-weights { opacity: 0.85; margin: 2px 0; }
.whatif-note { opacity: 0.75; font-size: 0.9em; }
.tok.flip-up { outline: 2px solid #1a7f37; outline-offset: -1px; }
.tok.flip-down { outline: 2px dashed #cf222e; outline-offset: -1px; }
`;

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

export class WhatIfView {
  readonly element: HTMLElement;
  private results: ResultView[] = [];
  private selected = -1;
  private readonly textarea: HTMLTextAreaElement;
  private readonly status: HTMLElement;
  private readonly summaryTable: HTMLElement;
  private readonly turnsBox: HTMLElement;
  private readonly saveButton: HTMLButtonElement;
  private readonly rescoreButton: HTMLButtonElement;
  private readonly question: HTMLElement;
  private readonly weights: HTMLElement;

  constructor(
    private readonly model: TrajectoryModel,
    private readonly host: WhatIfHost,
  ) {
    adoptCss(CSS);
    this.textarea = el('textarea', { class: 'whatif-skill', attrs: { 'aria-label': 'Skill to try', spellcheck: 'false' } });
    this.textarea.value = model.trajectory.skill?.text ?? '';
    this.rescoreButton = el('button', { class: 'action', text: 'Rescore', title: 'Recompute the gates of every turn under this skill', attrs: { 'data-action': 'whatif-rescore' } });
    this.rescoreButton.addEventListener('click', () => void this.rescore());
    this.saveButton = el('button', { class: 'action', text: 'Save', title: 'Save the results next to the run (whatif/<trajectory id>.json)', attrs: { 'data-action': 'whatif-save' } });
    this.saveButton.disabled = true;
    this.saveButton.addEventListener('click', () => void this.save());
    this.status = el('span', { class: 'whatif-status', attrs: { 'data-k': 'whatif-status', role: 'status' } });
    this.summaryTable = el('table', { class: 'whatif-summary', attrs: { 'aria-label': 'Gate summaries: recorded and each skill tried' } });
    this.turnsBox = el('div', { class: 'whatif-turns' });
    this.question = el('div', { class: 'whatif-question', attrs: { role: 'alertdialog', 'aria-label': 'What if… needs an answer', 'data-k': 'whatif-question' } });
    this.question.hidden = true;
    this.weights = el('div', { class: 'whatif-weights', attrs: { 'data-k': 'whatif-weights' } });
    this.element = el(
      'section',
      { class: 'whatif', attrs: { id: 'whatif', 'aria-label': 'What if' } },
      el('h2', { text: 'What if… the skill had been' }),
      this.textarea,
      el('div', { class: 'whatif-actions' }, this.rescoreButton, this.saveButton, this.status),
      this.question,
      this.weights,
      this.summaryTable,
      this.turnsBox,
    );
    this.element.hidden = true;
    this.textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void this.rescore();
    });
    this.renderSummary();
  }

  toggle(): void {
    this.element.hidden = !this.element.hidden;
    if (!this.element.hidden) this.textarea.focus();
  }

  /** Opens the section with `skill` typed in, ready to rescore (from the skill review). */
  start(skill: string): void {
    this.textarea.value = skill;
    this.element.hidden = false;
    this.element.scrollIntoView({ block: 'nearest' });
    this.textarea.focus();
  }

  /** The host's results (after a rescoring, a save, or reopened with the run). */
  update(payload: WhatIfPayload): void {
    this.element.hidden = false;
    if (payload.question) {
      this.ask(payload.question);
      return;
    }
    this.question.hidden = true;
    this.results = payload.results.map((record) => this.viewOf(record, payload.results));
    this.selected = this.results.length - 1;
    this.element.hidden = false;
    this.saveButton.disabled = this.results.length === 0;
    const last = payload.results[payload.results.length - 1];
    const ran = last ? `${last.path === 'trainer' ? 'the trainer' : 'onnxruntime-node'} (${last.provider}) in ${last.seconds.toFixed(2)} s with ${shortWeights(last.export)}` : '';
    this.status.textContent = [ran, payload.file ? `saved in ${payload.file}` : 'not saved'].filter(Boolean).join(' · ');
    this.showWeights();
    this.renderSummary();
    this.renderTurns();
  }

  /** The host needs an answer before rescoring (the trainer instead of an export): asked here, in the view. */
  private ask(question: WhatIfQuestion): void {
    clear(this.question);
    const accept = el('button', { class: 'action', text: question.accept, attrs: { 'data-action': 'whatif-accept' } });
    const cancel = el('button', { class: 'action', text: 'Cancel', attrs: { 'data-action': 'whatif-cancel' } });
    accept.addEventListener('click', () => {
      this.question.hidden = true;
      void this.rescore(true);
    });
    cancel.addEventListener('click', () => {
      this.question.hidden = true;
      this.status.textContent = 'Not rescored.';
    });
    const checkpoint = question.exportCheckpoint;
    const exportButton = checkpoint
      ? el('button', { class: 'action', text: `Export ${checkpoint} as ONNX`, title: 'SEED: Export Checkpoint… with its progress notification; then rescore with the export', attrs: { 'data-action': 'whatif-export' } })
      : undefined;
    exportButton?.addEventListener('click', () => void this.exportThenRescore(checkpoint!));
    this.question.append(el('p', { text: question.text }), ...(question.hint ? [el('p', { text: question.hint })] : []), el('div', { class: 'whatif-actions' }, accept, ...(exportButton ? [exportButton] : []), cancel));
    this.question.hidden = false;
    this.status.textContent = 'Waiting for your answer below.';
    accept.focus();
  }

  /** The question's export button: the host exports the checkpoint (its notification shows the progress and the
   * outcome), then the skill is rescored — with the export when it was made, else the question comes back. */
  private async exportThenRescore(checkpoint: string): Promise<void> {
    this.question.hidden = true;
    this.rescoreButton.disabled = true;
    this.status.textContent = `Exporting ${checkpoint} as ONNX (progress in the notification)…`;
    try {
      await this.host.exportCheckpoint(checkpoint);
    } catch (error) {
      this.status.textContent = `Not exported: ${isolatedText((error as Error).message)}`;
      this.rescoreButton.disabled = false;
      return;
    }
    await this.rescore();
  }

  /** Which weights the shown result used, and whether they scored the trajectory. */
  private showWeights(): void {
    const record = this.results[this.selected]?.record;
    const trajectory = this.model.trajectory;
    this.weights.textContent = record ? `Weights: ${shortWeights(record.export)}, ${weightsNote(record.export, trajectory.phase, trajectory.update)}.` : '';
  }

  private async rescore(useTrainer = false): Promise<void> {
    this.rescoreButton.disabled = true;
    this.question.hidden = true;
    this.status.textContent = useTrainer ? 'Rescoring with the trainer…' : 'Rescoring…';
    try {
      await this.host.rescore(this.textarea.value, useTrainer);
    } catch (error) {
      this.status.textContent = `Not rescored: ${isolatedText((error as Error).message)}`;
    } finally {
      this.rescoreButton.disabled = false;
    }
  }

  private async save(): Promise<void> {
    try {
      await this.host.save();
    } catch (error) {
      this.status.textContent = `Not saved: ${isolatedText((error as Error).message)}`;
    }
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
