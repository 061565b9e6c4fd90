// The host side of "What if…" for one open trajectory: picks the ONNX export whose weights scored it (or, when there is
// none or it is above seedStudio.whatIf.maxOnnxSizeMB, offers the trainer), rescores the trajectory under a typed skill
// behind a cancellable progress notification, keeps every result for comparison, saves them next to the run and
// reopens them with the viewer.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { decodeInt32 } from '../runs/core';
import type { WhatIfPayload, WhatIfQuestion } from './shared/whatIfRecord';
import { resolveTrainerPython } from '../python/pythonInterpreter';
import { trainerEnv } from '../python/trainerSettings';
import type { RunAccess, TrajectoryRef } from '../runs/runAccess';
import { WhatIfError } from './core/errors';
import { exportCandidates } from './core/exportChoice';
import { onnxModelBytes } from './core/onnxExport';
import { DEFAULT_MAX_ONNX_MB, chooseScorer, type ScorerChoice } from './core/scorerChoice';
import { checkSkillText } from './core/skillInsertion';
import { rescoreWithTrainer } from './core/trainerRescore';
import type { Rescorer, RescoreStep } from './core/rescore';
import { readWhatIf, resultRecord, whatIfPath, writeWhatIf, type WhatIfResultRecord } from './core/whatIfFile';
import { scoringStep, trainerWeightsText } from './shared/weights';

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

  /** The results saved with the run, reopened (none when nothing was saved). */
  reopen(): WhatIfPayload {
    const saved = readWhatIf(this.ref.runDir, this.ref.id, this.access.schemas());
    if (saved) {
      this.results = saved.results;
      this.file = path.relative(this.ref.runDir, whatIfPath(this.ref.runDir, this.ref.id));
    }
    return this.payload();
  }

  payload(): WhatIfPayload {
    return { results: this.results, ...(this.file ? { file: this.file } : {}) };
  }

  /**
   * Rescores under `skill`. When the trainer is needed (no export, or too large) and the user has not agreed yet, the
   * payload carries the question instead of a result; the viewer asks it and calls again with `useTrainer`.
   */
  async rescore(skill: string, useTrainer = false): Promise<WhatIfPayload> {
    checkSkillText(skill);
    if (useTrainer) this.trainerAccepted = true;
    const { trajectory, run } = await this.access.load(this.ref);
    const scorer = this.chooseScorer(trajectory.update, trajectory.phase);
    if ('question' in scorer) return { ...this.payload(), question: scorer.question };
    const title = `SEED: What if… rescoring ${trajectory.steps.length} step(s)`;
    let record: WhatIfResultRecord;
    if (scorer.path === 'trainer') {
      const python = (await resolveTrainerPython()).path;
      const file = await withCancellableProgress(`${title} with the trainer`, (signal, onProgress) =>
        rescoreWithTrainer(this.ref.runDir, this.ref.id, [skill], this.access.schemas(), { python, env: trainerEnv(), signal, onProgress }),
      );
      record = file.results[0]!;
    } else {
      const rescorer = await this.rescorerFor(scorer.exportDir, trajectory.steps.map((step) => toRescoreStep(step)), run);
      const result = await withCancellableProgress(title, (signal, onProgress) => rescorer.rescore(skill, { signal, onProgress }));
      record = resultRecord(result, scorer.exportDir, this.ref.runDir);
    }
    this.log.info(`what-if ${this.ref.id}: ${trajectory.steps.length} steps with ${record.export} on ${record.path} (${record.provider}) in ${record.seconds} s`);
    this.results = [...this.results, record];
    this.file = undefined; // the saved file does not hold this result yet
    return this.payload();
  }

  async save(): Promise<WhatIfPayload> {
    if (this.results.length === 0) throw new Error('Nothing to save yet: rescore a skill first.');
    const file = await writeWhatIf(this.ref.runDir, { format: 1, trajectory: this.ref.id, results: this.results });
    this.file = path.relative(this.ref.runDir, file);
    return this.payload();
  }

  /** The export that fits, or — when there is none or it is too large — the trainer once the user agreed, else the question. */
  private chooseScorer(update: number | null, phase: string): ScorerChoice | { question: WhatIfQuestion } {
    if (this.trainerAccepted) return { path: 'trainer', reason: 'chosen before' };
    const candidates = exportCandidates(this.ref.runDir, update, phase);
    const exportDir = candidates.chosen;
    const maxMegabytes = vscode.workspace.getConfiguration('seedStudio').get<number>('whatIf.maxOnnxSizeMB', DEFAULT_MAX_ONNX_MB);
    const choice = chooseScorer(exportDir, exportDir ? onnxModelBytes(exportDir) : undefined, maxMegabytes, exportDir && path.relative(this.ref.runDir, exportDir));
    if (choice.path === 'onnxruntime-node') return choice;
    const exportHint = `python -m seed_trainer export --checkpoint ${path.join('checkpoints', candidates.wanted)} --format onnx`;
    // No checkpoint to name or export when the run's starting model (or an evaluated model) scored the trajectory.
    const checkpointScored = scoringStep(phase, update) > 0;
    return {
      question: {
        text: `${choice.reason} Score through the trainer on the run's device instead? It loads ${trainerWeightsText(phase, update)}.`,
        accept: 'Score with the trainer',
        ...(exportDir || !checkpointScored ? {} : { hint: `Or export the checkpoint that scored this trajectory: ${exportHint}` }),
      },
    };
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
