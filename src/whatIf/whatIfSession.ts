// The host side of "What if…" for one open trajectory: picks the weights that scored it, else the kept ones nearest
// (src/whatIf/core/exportChoice.ts), rescores with their ONNX export (or, when there is none or it is above
// seedStudio.whatIf.maxOnnxSizeMB, offers the trainer, which loads the same checkpoint) under a typed skill behind a
// cancellable progress notification, keeps every result for comparison, saves them next to the run and reopens them
// with the viewer. When the weights are not the ones that scored the trajectory, the recorded skill is rescored on
// them first, once: that row is the control the viewer counts flips against, so a flip is the skill's and not the
// change of weights'.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { decodeInt32 } from '../runs/core';
import type { WhatIfQuestion, WhatIfReply, WhatIfState } from './shared/whatIfRecord';
import { resolveTrainerPython } from '../python/pythonInterpreter';
import { trainerEnv } from '../python/trainerSettings';
import type { RunAccess, TrajectoryRef } from '../runs/runAccess';
import { WhatIfError } from './core/errors';
import { chooseWeights, exportOffer, type WeightsChoice } from './core/exportChoice';
import { onnxModelBytes } from './core/onnxExport';
import { DEFAULT_MAX_ONNX_MB, chooseScorer, type ScorerChoice } from './core/scorerChoice';
import { checkSkillText } from './core/skillInsertion';
import { rescoreWithTrainer } from './core/trainerRescore';
import type { Rescorer, RescoreStep } from './core/rescore';
import { readWhatIf, resultRecord, whatIfPath, writeWhatIf, type WhatIfResultRecord } from './core/whatIfFile';
import { checkpointName, stepOfWeights, trainerWeightsText } from './shared/weights';

export class WhatIfSession implements vscode.Disposable {
  private results: WhatIfResultRecord[] = [];
  private file: string | undefined;
  private rescorer: { dir: string; rescorer: Rescorer } | undefined;
  /** The user agreed to score this trajectory through the trainer: not asked again. */
  private trainerAccepted = false;

  constructor(
    private readonly ref: TrajectoryRef,
    private readonly access: RunAccess,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Reads the results saved with the run (none when nothing was saved); the viewer's desk does it once. */
  reopen(): void {
    const saved = readWhatIf(this.ref.runDir, this.ref.id, this.access.schemas());
    if (saved) {
      this.results = saved.results;
      this.file = path.relative(this.ref.runDir, whatIfPath(this.ref.runDir, this.ref.id));
    }
  }

  state(): WhatIfState {
    return { results: this.results, ...(this.file ? { file: this.file } : {}) };
  }

  /**
   * Rescores under `skill`. When the trainer is needed (no export, or too large) and the user has not agreed yet, the
   * reply is the question instead of a result; the viewer asks it and asks again with `useTrainer`.
   */
  async rescore(skill: string, useTrainer = false): Promise<WhatIfReply> {
    checkSkillText(skill);
    if (useTrainer) this.trainerAccepted = true;
    const { trajectory, run } = await this.access.load(this.ref);
    const { scorer, weights } = this.chooseScorer(trajectory.phase, trajectory.update);
    if ('question' in scorer) return { kind: 'needsConsent', question: scorer.question };
    const skills = [...this.controlSkill(weights, trajectory.skill?.text ?? undefined, skill), skill];
    const title = `SEED: What if… rescoring ${trajectory.steps.length} step(s)${skills.length > 1 ? ' under the recorded skill (the control) and yours' : ''}`;
    let records: WhatIfResultRecord[];
    if (scorer.path === 'trainer') {
      const python = (await resolveTrainerPython()).path;
      const checkpoint = weights.checkpoint ? path.join(this.ref.runDir, weights.checkpoint) : undefined;
      const file = await withCancellableProgress(`${title} with the trainer`, (signal, onProgress) =>
        rescoreWithTrainer(this.ref.runDir, this.ref.id, skills, this.access.schemas(), { python, env: trainerEnv(), signal, onProgress, ...(checkpoint ? { checkpoint } : {}) }),
      );
      records = file.results;
    } else {
      const rescorer = await this.rescorerFor(scorer.exportDir, trajectory.steps.map((step) => toRescoreStep(step)), run);
      records = [];
      for (const text of skills) {
        const result = await withCancellableProgress(title, (signal, onProgress) => rescorer.rescore(text, { signal, onProgress }));
        records.push(resultRecord(result, scorer.exportDir, this.ref.runDir));
      }
    }
    for (const record of records) {
      this.log.info(`what-if ${this.ref.id}: ${trajectory.steps.length} steps with ${record.export} on ${record.path} (${record.provider}) in ${record.seconds} s`);
    }
    this.results = [...this.results, ...records];
    this.file = undefined; // the saved file does not hold these results yet
    return { kind: 'rescored', state: this.state() };
  }

  /** The recorded skill, when it must be rescored first as the control: the weights are not the ones that scored the
   * trajectory and no result holds it on these weights yet. */
  private controlSkill(weights: WeightsChoice, recorded: string | undefined, skill: string): string[] {
    if (weights.exact || !recorded?.trim() || recorded === skill) return [];
    const onTheseWeights = this.results.some((result) => result.skill === recorded && (stepOfWeights(result.export) ?? 0) === weights.step);
    return onTheseWeights ? [] : [recorded];
  }

  async save(): Promise<WhatIfState> {
    if (this.results.length === 0) throw new Error('Nothing to save yet: rescore a skill first.');
    const file = await writeWhatIf(this.ref.runDir, { format: 1, trajectory: this.ref.id, results: this.results });
    this.file = path.relative(this.ref.runDir, file);
    return this.state();
  }

  /** The export of the chosen weights when it fits; else the trainer, with the weights it can load chosen by the same
   * rule, once the user agreed, else the question. Looked up on every rescoring, so an export made meanwhile is used
   * at once. */
  private chooseScorer(phase: string, update: number | null): { scorer: ScorerChoice | { question: WhatIfQuestion }; weights: WeightsChoice } {
    const nearest = chooseWeights(this.ref.runDir, update, phase);
    const { exportDir } = nearest;
    const maxMegabytes = vscode.workspace.getConfiguration('seedStudio').get<number>('whatIf.maxOnnxSizeMB', DEFAULT_MAX_ONNX_MB);
    const choice = chooseScorer(exportDir, exportDir ? onnxModelBytes(exportDir) : undefined, maxMegabytes, exportDir && path.relative(this.ref.runDir, exportDir));
    if (choice.path === 'onnxruntime-node') return { scorer: choice, weights: nearest };
    const weights = chooseWeights(this.ref.runDir, update, phase, false);
    if (this.trainerAccepted) return { scorer: { path: 'trainer', reason: 'chosen before' }, weights };
    const loads = weights.checkpoint ?? (weights.exact ? trainerWeightsText(phase, update) : 'the run\u2019s starting model');
    // The view's button runs SEED: Export Checkpoint… on the checkpoint offered, then rescores (with the export, found
    // by the lookup above).
    const offer = exportOffer(weights, exportDir !== undefined);
    const text = `${choice.reason} Score through the trainer on the run's device instead? It loads ${loads}${weights.exact ? '' : `, the kept weights nearest to ${checkpointName(weights.wantedStep)} (which scored this trajectory and was not kept)`}.`;
    return { scorer: { question: { text, accept: 'Score with the trainer', ...(offer ?? {}) } }, weights };
  }

  private async rescorerFor(exportDir: string, steps: RescoreStep[], run: string): Promise<Rescorer> {
    if (this.rescorer?.dir === exportDir) return this.rescorer.rescorer;
    await this.rescorer?.rescorer.close();
    this.rescorer = undefined;
    const { Rescorer } = loadRescorer();
    const preferCuda = vscode.workspace.getConfiguration('seedStudio').get<string>('whatIf.executionProvider') === 'cuda';
    const rescorer = await Rescorer.open(exportDir, steps, { runId: run, preferCuda });
    if (rescorer.cudaFallback) {
      this.log.warn(`what-if: ${rescorer.cudaFallback}; rescoring on the CPU`);
      void vscode.window.showWarningMessage(`SEED: What if… ${rescorer.cudaFallback}: rescoring on the CPU instead.`);
    }
    this.rescorer = { dir: exportDir, rescorer };
    return rescorer;
  }

  dispose(): void {
    void this.rescorer?.rescorer.close();
    this.rescorer = undefined;
  }
}

/**
 * The rescorer module, required on first use. In the extension it is a bundle of its own (dist/whatIf.js, see
 * esbuild.mjs), so activation neither loads nor parses the tokenizers, the template engine or onnxruntime-node; the
 * tests run the compiled module beside this one.
 */
function loadRescorer(): typeof import('./core/rescore') {
  const bundled = path.join(__dirname, 'whatIf.js');
  const id = existsSync(bundled) ? bundled : './core/rescore';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load (see above)
  return require(id) as typeof import('./core/rescore');
}

/** A task behind the cancellable progress notification, told its forward passes as they are done. */
async function withCancellableProgress<T>(title: string, task: (signal: AbortSignal, onProgress: (done: number, total: number) => void) => Promise<T>): Promise<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const controller = new AbortController();
    const cancel = token.onCancellationRequested(() => controller.abort());
    let last = 0;
    try {
      return await task(controller.signal, (done, total) => {
        progress.report({ increment: ((done - last) / total) * 100, message: `${done} of ${total} forward passes` });
        last = done;
      });
    } finally {
      cancel.dispose();
    }
  });
}

function toRescoreStep(step: { t: number; prompt?: string; response: string; tokens?: { ids: string } }): RescoreStep {
  if (!step.tokens) throw new WhatIfError('trajectory', `Step ${step.t} has no recorded tokens: there is nothing to rescore.`);
  return { t: step.t, prompt: step.prompt ?? '', responseIds: decodeInt32(step.tokens.ids), response: step.response };
}
