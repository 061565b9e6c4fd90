// "What if…" in the trajectory viewer: type a skill, the host rescores the trajectory (src/whatIf/whatIfSession.ts)
// and this section shows every result beside the recorded gates (webview/trajectory/whatIfResults.ts). Each action is
// one request whose reply is its outcome (src/whatIf/shared/whatIfProtocol.ts; the consent question is such a reply,
// see src/whatIf/core/whatIfDesk.ts). Rescore is disabled exactly while one of them makes the host work, and a page
// that loads while the host works (a reload) is told so and waits for it.
import type { WhatIfQuestion, WhatIfReply, WhatIfState } from '../../src/whatIf/shared/whatIfRecord';
import { shortWeights } from '../../src/whatIf/shared/weights';
import { adoptCss, clear, el } from '../shared/dom';
import type { TrajectoryModel } from './model';
import { WhatIfResults } from './whatIfResults';
import { isolatedText } from '../../src/common/shared/inertText';

/** What the page keeps of What if… across a reload (VS Code keeps a webview's state). */
export interface WhatIfSaved {
  open: boolean;
  skill: string;
}

export interface WhatIfHost {
  rescore(skill: string, useTrainer: boolean): Promise<WhatIfReply>;
  save(): Promise<WhatIfState>;
  /** Exports a kept checkpoint as ONNX (SEED: Export Checkpoint…); resolves when the export has ended. */
  exportCheckpoint(checkpoint: string): Promise<void>;
  /** Waits for the job the host was running when this page loaded; the state once it has ended. */
  wait(): Promise<WhatIfState>;
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

export class WhatIfView {
  readonly element: HTMLElement;
  private readonly results: WhatIfResults;
  private readonly textarea: HTMLTextAreaElement;
  private readonly status: HTMLElement;
  private readonly saveButton: HTMLButtonElement;
  private readonly rescoreButton: HTMLButtonElement;
  private readonly question: HTMLElement;
  /** The request of this page that makes the host work now (rescore, export, or wait for the host's job). */
  private busy: object | undefined;

  constructor(
    model: TrajectoryModel,
    private readonly host: WhatIfHost,
    private readonly page: { saved?: WhatIfSaved | undefined; remember(saved: WhatIfSaved): void },
  ) {
    adoptCss(CSS);
    this.results = new WhatIfResults(model);
    this.textarea = el('textarea', { class: 'whatif-skill', attrs: { 'aria-label': 'Skill to try', spellcheck: 'false' } });
    this.textarea.value = page.saved?.skill ?? model.trajectory.skill?.text ?? '';
    this.textarea.addEventListener('input', () => this.remember());
    this.rescoreButton = el('button', { class: 'action', text: 'Rescore', title: 'Recompute the gates of every turn under this skill', attrs: { 'data-action': 'whatif-rescore' } });
    this.rescoreButton.addEventListener('click', () => void this.rescore());
    this.saveButton = el('button', { class: 'action', text: 'Save', title: 'Save the results next to the run (whatif/<trajectory id>.json)', attrs: { 'data-action': 'whatif-save' } });
    this.saveButton.disabled = true;
    this.saveButton.addEventListener('click', () => void this.save());
    this.status = el('span', { class: 'whatif-status', attrs: { 'data-k': 'whatif-status', role: 'status' } });
    this.question = el('div', { class: 'whatif-question', attrs: { role: 'alertdialog', 'aria-label': 'What if… needs an answer', 'data-k': 'whatif-question' } });
    this.question.hidden = true;
    this.element = el(
      'section',
      { class: 'whatif', attrs: { id: 'whatif', 'aria-label': 'What if' } },
      el('h2', { text: 'What if… the skill had been' }),
      this.textarea,
      el('div', { class: 'whatif-actions' }, this.rescoreButton, this.saveButton, this.status),
      this.question,
      this.results.weights,
      this.results.summaryTable,
      this.results.turnsBox,
    );
    this.element.hidden = page.saved?.open !== true;
    this.textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void this.rescore();
    });
  }

  toggle(): void {
    this.element.hidden = !this.element.hidden;
    if (!this.element.hidden) this.textarea.focus();
    this.remember();
  }

  /** Opens the section with `skill` typed in, ready to rescore (from the skill review). */
  start(skill: string): void {
    this.textarea.value = skill;
    this.element.hidden = false;
    this.element.scrollIntoView({ block: 'nearest' });
    this.textarea.focus();
    this.remember();
  }

  private remember(): void {
    this.page.remember({ open: !this.element.hidden, skill: this.textarea.value });
  }

  /** The state a (re)loaded page starts from (the host's push): the results, and the job the host runs now, which
   * this page waits for as if it had asked for it. */
  restore(state: WhatIfState): void {
    this.show(state);
    const job = state.running;
    if (!job) return;
    if (job.kind === 'rescore') this.textarea.value = job.skill;
    this.remember();
    const before = '(started before this view was reloaded)';
    const doing = job.kind === 'rescore' ? `Rescoring${job.trainer ? ' with the trainer' : ''}… ${before}` : `Exporting ${job.checkpoint} as ONNX (progress in the notification) ${before}…`;
    this.busyWith(doing, () => this.host.wait()).then(
      (after) => {
        this.show(after);
        if (job.kind === 'export') this.status.textContent = `The export of ${job.checkpoint} has ended: Rescore to use it.`;
      },
      (error: Error) => {
        this.status.textContent = `${job.kind === 'rescore' ? 'Not rescored' : 'Not exported'}: ${isolatedText(error.message)}`;
      },
    );
  }

  /** Runs a request that makes the host work: Rescore is disabled until it ends, however it ends — its reply, its
   * error, or the panel closing (the channel then rejects what it can no longer answer). */
  private async busyWith<T>(status: string, request: () => Promise<T>): Promise<T> {
    const token = {};
    this.busy = token;
    this.rescoreButton.disabled = true;
    this.question.hidden = true;
    this.status.textContent = status;
    try {
      return await request();
    } finally {
      if (this.busy === token) {
        this.busy = undefined;
        this.rescoreButton.disabled = false;
      }
    }
  }

  /** The results, and what ran last. */
  private show(state: WhatIfState): void {
    this.element.hidden = false;
    this.remember();
    this.question.hidden = true;
    this.results.show(state.results);
    this.saveButton.disabled = state.results.length === 0;
    const last = state.results[state.results.length - 1];
    const ran = last ? `${last.path === 'trainer' ? 'the trainer' : 'onnxruntime-node'} (${last.provider}) in ${last.seconds.toFixed(2)} s with ${shortWeights(last.export)}` : '';
    this.status.textContent = [ran, state.file ? `saved in ${state.file}` : 'not saved'].filter(Boolean).join(' · ');
  }

  /** The host needs an answer before rescoring (the trainer instead of an export): asked here, in the view. Nothing
   * runs meanwhile, so Rescore stays enabled (it asks again); accepting is a new request with the consent. */
  private ask(question: WhatIfQuestion): void {
    clear(this.question);
    const accept = el('button', { class: 'action', text: question.accept, attrs: { 'data-action': 'whatif-accept' } });
    const cancel = el('button', { class: 'action', text: 'Cancel', attrs: { 'data-action': 'whatif-cancel' } });
    accept.addEventListener('click', () => void this.rescore(true));
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
    if (this.busy) return;
    try {
      await this.busyWith(`Exporting ${checkpoint} as ONNX (progress in the notification)…`, () => this.host.exportCheckpoint(checkpoint));
    } catch (error) {
      this.status.textContent = `Not exported: ${isolatedText((error as Error).message)}`;
      return;
    }
    await this.rescore();
  }

  /** One request, one result: the rescored state, or the question to ask first. */
  private async rescore(useTrainer = false): Promise<void> {
    if (this.busy) return; // Ctrl+Enter while the host works
    try {
      const reply = await this.busyWith(useTrainer ? 'Rescoring with the trainer…' : 'Rescoring…', () => this.host.rescore(this.textarea.value, useTrainer));
      if (reply.kind === 'needsConsent') this.ask(reply.question);
      else this.show(reply.state);
    } catch (error) {
      this.status.textContent = `Not rescored: ${isolatedText((error as Error).message)}`;
    }
  }

  private async save(): Promise<void> {
    try {
      this.show(await this.host.save());
    } catch (error) {
      this.status.textContent = `Not saved: ${isolatedText((error as Error).message)}`;
    }
  }
}
