// The host side of "What if…" for one open trajectory: picks the ONNX export whose weights scored it, rescores the
// trajectory under a typed skill behind a cancellable progress notification, keeps every result for comparison,
// saves them next to the run and reopens them with the viewer.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { decodeInt32 } from '../runs';
import type { WhatIfPayload } from '../protocol/trajectoryProtocol';
import type { RunAccess, TrajectoryRef } from '../trajectory/runAccess';
import { WhatIfError } from './errors';
import { exportCandidates } from './exportChoice';
import type { Rescorer, RescoreStep } from './rescore';
import { readWhatIf, resultRecord, whatIfPath, writeWhatIf, type WhatIfResultRecord } from './whatIfFile';

export class WhatIfSession implements vscode.Disposable {
  private results: WhatIfResultRecord[] = [];
  private file: string | undefined;
  private rescorer: { dir: string; rescorer: Rescorer } | undefined;

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

  async rescore(skill: string): Promise<WhatIfPayload> {
    const { trajectory, run } = await this.access.load(this.ref);
    const exportDir = await this.chooseExport(trajectory.update, trajectory.phase);
    if (!exportDir) throw new WhatIfError('export', 'No export chosen.');
    const rescorer = await this.rescorerFor(exportDir, trajectory.steps.map((step) => toRescoreStep(step)), run);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SEED: What if… rescoring ${trajectory.steps.length} step(s)`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const cancel = token.onCancellationRequested(() => controller.abort());
        let last = 0;
        try {
          return await rescorer.rescore(skill, {
            signal: controller.signal,
            onProgress: (done, total) => {
              progress.report({ increment: ((done - last) / total) * 100, message: `${done} of ${total} forward passes` });
              last = done;
            },
          });
        } finally {
          cancel.dispose();
        }
      },
    );
    const record = resultRecord(result, exportDir, this.ref.runDir);
    this.log.info(`what-if ${this.ref.id}: ${trajectory.steps.length} steps with ${record.export} on onnxruntime-node (${record.provider}) in ${record.seconds} s`);
    this.results = [...this.results, record];
    return this.payload();
  }

  async save(): Promise<WhatIfPayload> {
    if (this.results.length === 0) throw new Error('Nothing to save yet: rescore a skill first.');
    const file = await writeWhatIf(this.ref.runDir, { format: 1, trajectory: this.ref.id, results: this.results });
    this.file = path.relative(this.ref.runDir, file);
    return this.payload();
  }

  private async chooseExport(update: number | null, phase: string): Promise<string | undefined> {
    const candidates = exportCandidates(this.ref.runDir, update, phase);
    if (candidates.matching) return candidates.matching;
    const exportHint = `python -m seed_trainer export --checkpoint ${path.join(this.ref.runDir, 'checkpoints', candidates.wanted ?? 'step-N')} --format onnx`;
    if (candidates.all.length === 0) {
      throw new WhatIfError('export', `This run has no ONNX export to rescore with. Export the checkpoint that scored this trajectory: ${exportHint}`);
    }
    if (candidates.all.length === 1) return candidates.all[0];
    const picked = await vscode.window.showQuickPick(
      candidates.all.map((dir) => ({ label: path.basename(dir), description: dir, dir })),
      { title: 'What if…: rescore with which export?', placeHolder: candidates.wanted ? `${candidates.wanted} (the weights that scored this trajectory) has no export` : undefined },
    );
    return picked?.dir;
  }

  private async rescorerFor(exportDir: string, steps: RescoreStep[], run: string): Promise<Rescorer> {
    if (this.rescorer?.dir === exportDir) return this.rescorer.rescorer;
    await this.rescorer?.rescorer.close();
    this.rescorer = undefined;
    const { Rescorer } = loadRescorer();
    const rescorer = await Rescorer.open(exportDir, steps, { runId: run });
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
function loadRescorer(): typeof import('./rescore') {
  const bundled = path.join(__dirname, 'whatIf.js');
  const id = existsSync(bundled) ? bundled : './rescore';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load (see above)
  return require(id) as typeof import('./rescore');
}

function toRescoreStep(step: { t: number; prompt?: string; response: string; tokens?: { ids: string } }): RescoreStep {
  if (!step.tokens) throw new WhatIfError('trajectory', `Step ${step.t} has no recorded tokens: there is nothing to rescore.`);
  return { t: step.t, prompt: step.prompt ?? '', responseIds: decodeInt32(step.tokens.ids), response: step.response };
}
