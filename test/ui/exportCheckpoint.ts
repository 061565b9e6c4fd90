// SEED: Export Checkpoint… end to end in code-server, like a user, with the real trainer. The trainer writes a real
// three-update run of the tiny household policy (checkpoints 2 and 3 kept, no export:
// trainer/tests/support/make_whatif_run.py) into the workspace. What if… on a trajectory of update 3 (scored by
// step-000002) finds no export and offers, beside the trainer, a button that exports the checkpoint it names (no
// shell command). Then, from the run's context menu in the Runs view:
// Export Checkpoint… → checkpoints/step-000002 → ONNX; the progress notification shows the trainer's progress lines,
// the end says where the export is (with Open Folder and Reveal), and What if… rescores with it (onnxruntime-node).
// The export moved away, the view's button starts exporting it again; cancelled half-way, the trainer process is
// ended, the half-written folder removed, and the view asks again; the export put back is used. Last, the palette
// offers the run's checkpoints newest first, then the two formats; and with step-000002 pruned (as the demo's Stage-2
// runs prune the one that scored update 30), the view's button and hint name the kept step-000003, not the pruned one.
//
//   npm run build && npm run test:ui:export       (node out/test/ui/exportCheckpoint.js)
//
// Writes test-results/ui-export-progress.png, ui-export-done.png and ui-whatif-export-button.png.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { TrajectoryIndexRow } from '../../src/runs/core';
import { repoRoot, resultsDir, runCodeServerTest, runnerPrerequisites } from '../integration/codeServerSession';
import { contextMenuItem, fail, palette, runUiSteps, treeRow, webview } from './workbench';

const LABEL = 'export checkpoint ui (code-server)';
const SKILL = 'Go straight to the receptacle named in the task and never open anything.';
const ONNX_STATUS = /onnxruntime-node \(cpu\) in [\d.]+ s with exports\/step-000002-onnx/;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await delay(200);
  }
}

/** A notification toast whose text matches. */
function toast(page: Page, text: string | RegExp): Locator {
  return page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
}

/** The row of the open quick pick whose label is `label`. */
function pickRow(page: Page, label: string): Locator {
  const exact = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return page.locator('.quick-input-widget .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
}

/** The trainer processes exporting `checkpoint` now (their command lines). */
function exportProcesses(checkpoint: string): string[] {
  const lines = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes('seed_trainer export') && line.includes(checkpoint));
}

class ExportUi {
  readonly exportsDir: string;

  constructor(
    private readonly page: Page,
    readonly runDir: string,
    private readonly python: string,
  ) {
    this.exportsDir = path.join(runDir, 'exports');
  }

  /** The trajectory of update 3 (scored by step-000002) in the viewer, What if… open with the skill typed in. */
  async openWhatIf(): Promise<string[]> {
    const rows = readFileSync(path.join(this.runDir, 'trajectories', 'index.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as TrajectoryIndexRow);
    const row = rows.find((r) => r.update === 3)!;
    await treeRow(this.page, 'whatif-tiny');
    await treeRow(this.page, 'Update 3');
    await treeRow(this.page, row.task.type);
    await treeRow(this.page, `#${row.sample} ${row.success ? 'success' : 'failure'}`);
    const frame = webview(this.page);
    await frame.locator('[data-action="what-if"]').waitFor({ state: 'visible', timeout: 30_000 });
    await frame.locator('[data-action="what-if"]').click();
    await frame.locator('.whatif-skill').fill(SKILL);
    await frame.locator('[data-action="whatif-rescore"]').click();
    const question = frame.locator('[data-k="whatif-question"]');
    await question.waitFor({ state: 'visible', timeout: 60_000 });
    const text = ((await question.textContent()) ?? '').trim();
    if (/python -m seed_trainer/.test(text)) fail(`the question still prints a shell command: "${text}"`);
    const button = question.locator('[data-action="whatif-export"]');
    const label = ((await button.textContent()) ?? '').trim();
    if (label !== 'Export checkpoints/step-000002 as ONNX') fail(`the export button says "${label}"`);
    await question.locator('[data-action="whatif-cancel"]').click();
    return [`no export: the view offers "${label}" beside "Score with the trainer"`];
  }

  /** Right-click the run in the Runs view → Export Checkpoint…. */
  private async fromRunMenu(): Promise<void> {
    const row = this.page.locator('.monaco-list-row', { hasText: 'whatif-tiny' }).first();
    await contextMenuItem(this.page, row, 'Export Checkpoint…', 'the run');
  }

  async exportFromTree(): Promise<string[]> {
    await this.fromRunMenu();
    const newest = pickRow(this.page, 'checkpoints/step-000003');
    await newest.waitFor({ state: 'visible', timeout: 15_000 });
    const newestText = ((await newest.textContent()) ?? '').trim();
    if (!/update 3 · the latest kept/.test(newestText)) fail(`the newest checkpoint's row says "${newestText}"`);
    await pickRow(this.page, 'checkpoints/step-000002').click();
    const onnx = pickRow(this.page, 'ONNX');
    await onnx.waitFor({ state: 'visible', timeout: 15_000 });
    const onnxText = ((await onnx.textContent()) ?? '').trim();
    if (!onnxText.includes('for What if… in the editor') || !/runs\/[^/]+\/exports\/step-000002-onnx/.test(onnxText)) fail(`the ONNX row says "${onnxText}"`);
    const started = Date.now();
    await onnx.click();
    // The progress notification with the trainer's lines: wait for a progress bar line of the trainer's.
    const progress = toast(this.page, 'Exporting checkpoints/step-000002 as ONNX');
    await progress.waitFor({ state: 'visible', timeout: 30_000 });
    const barLine = progress.filter({ hasText: /Loading weights \d+\/\d+/ });
    await barLine.waitFor({ state: 'visible', timeout: 120_000 });
    const progressText = ((await barLine.locator('.notification-list-item-message').textContent()) ?? '').trim();
    await this.page.screenshot({ path: path.join(resultsDir, 'ui-export-progress.png') });
    const done = toast(this.page, 'exported checkpoints/step-000002 as ONNX to');
    await done.waitFor({ state: 'visible', timeout: 300_000 });
    const seconds = (Date.now() - started) / 1000;
    const doneText = ((await done.locator('.notification-list-item-message').textContent()) ?? '').trim();
    const buttons = (await done.locator('.monaco-button').allTextContents()).map((text) => text.trim());
    if (!buttons.includes('Open Folder') || !buttons.includes('Reveal')) fail(`the finished message has the buttons ${JSON.stringify(buttons)}`);
    await this.page.screenshot({ path: path.join(resultsDir, 'ui-export-done.png') });
    this.checkExport();
    return [`progress showed "${progressText}"`, `"${doneText}" [${buttons.join(', ')}] after ${seconds.toFixed(1)} s`];
  }

  private checkExport(): void {
    const out = path.join(this.exportsDir, 'step-000002-onnx');
    for (const file of ['export.json', 'model.onnx', 'tokenizer.json']) if (!existsSync(path.join(out, file))) fail(`${out} has no ${file}`);
    const left = readdirSync(this.exportsDir).filter((name) => name.startsWith('.tmp-'));
    if (left.length > 0) fail(`temporary folders left in exports/: ${left.join(', ')}`);
  }

  /** Rescore in the open viewer; the `index`-th result row must come from the export through onnxruntime-node. */
  async rescoredWithExport(index: number, click: boolean): Promise<string> {
    const frame = webview(this.page);
    if (click) await frame.locator('[data-action="whatif-rescore"]').click();
    await frame.locator(`.whatif-summary tr[data-result="${index}"]`).waitFor({ state: 'visible', timeout: 300_000 });
    const status = ((await frame.locator('[data-k="whatif-status"]').textContent()) ?? '').trim();
    if (!ONNX_STATUS.test(status)) fail(`the status says "${status}"`);
    return status;
  }

  async whatIfUsesIt(): Promise<string[]> {
    await this.page.locator('.tab', { hasText: /^Trajectory / }).first().click();
    return [`What if… rescored: ${await this.rescoredWithExport(0, true)}`];
  }

  /** The view's button starts the export of the checkpoint it names; cancelled half-way, the trainer ends, the
   * half-written folder goes, and the view asks again. The export put back is used at the next rescoring. */
  async exportButtonThenCancel(): Promise<string[]> {
    const moved = path.join(this.runDir, '.moved-step-000002-onnx');
    renameSync(path.join(this.exportsDir, 'step-000002-onnx'), moved);
    const frame = webview(this.page);
    await frame.locator('[data-action="whatif-rescore"]').click();
    const question = frame.locator('[data-k="whatif-question"]');
    const button = question.locator('[data-action="whatif-export"]');
    await button.waitFor({ state: 'visible', timeout: 60_000 });
    await button.click();
    const viewStatus = ((await frame.locator('[data-k="whatif-status"]').textContent()) ?? '').trim();
    if (!viewStatus.startsWith('Exporting checkpoints/step-000002 as ONNX')) fail(`while exporting, the view says "${viewStatus}"`);
    const partial = path.join(this.exportsDir, '.tmp-step-000002-onnx');
    await until('the trainer to start writing .tmp-step-000002-onnx', 180_000, () => existsSync(partial));
    const checkpoint = path.join(this.runDir, 'checkpoints', 'step-000002');
    if (exportProcesses(checkpoint).length === 0) fail('no trainer process exports step-000002');
    const progress = toast(this.page, 'Exporting checkpoints/step-000002 as ONNX');
    await progress.hover();
    await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
    const cancelled = toast(this.page, 'the export of checkpoints/step-000002 as ONNX was cancelled');
    await cancelled.waitFor({ state: 'visible', timeout: 30_000 });
    const text = ((await cancelled.locator('.notification-list-item-message').textContent()) ?? '').trim();
    if (!text.includes('Removed the half-written')) fail(`the cancel says "${text}"`);
    if (existsSync(partial) || existsSync(path.join(this.exportsDir, 'step-000002-onnx'))) fail('the half-written export is still there');
    await until('the trainer process to end', 10_000, () => exportProcesses(checkpoint).length === 0);
    // Still no export: the view asks again.
    await button.waitFor({ state: 'visible', timeout: 60_000 });
    renameSync(moved, path.join(this.exportsDir, 'step-000002-onnx'));
    const status = await this.rescoredWithExport(1, true);
    return [`the view's button started the export; cancelled half-way: "${text}"; the trainer process ended; the view asked again`, `the export put back: ${status}`];
  }

  /** From the palette (one run: no run to pick), the run's checkpoints newest first, then the two formats. */
  async fromPalette(): Promise<string[]> {
    await palette(this.page, 'SEED: Export Checkpoint…');
    // A row's first .label-name is its label (its detail line has one too).
    const labels = () => this.page.locator('.quick-input-widget .monaco-list-row').evaluateAll((rows) => rows.map((row) => row.querySelector('.label-name')?.textContent?.trim() ?? ''));
    await pickRow(this.page, 'checkpoints/step-000003').waitFor({ state: 'visible', timeout: 15_000 });
    const weights = await labels();
    if (JSON.stringify(weights) !== JSON.stringify(['checkpoints/step-000003', 'checkpoints/step-000002'])) fail(`the weights offered: ${JSON.stringify(weights)}`);
    const exported = ((await pickRow(this.page, 'checkpoints/step-000002').textContent()) ?? '').trim();
    if (!exported.includes('Exported already as ONNX')) fail(`step-000002's row says "${exported}"`);
    await pickRow(this.page, 'checkpoints/step-000003').click();
    await pickRow(this.page, 'Hugging Face folder').waitFor({ state: 'visible', timeout: 15_000 });
    const formats = await labels();
    if (JSON.stringify(formats) !== JSON.stringify(['ONNX', 'Hugging Face folder'])) fail(`the formats offered: ${JSON.stringify(formats)}`);
    return [`weights ${weights.join(', ')}; formats ${formats.join(', ')}`, ...(await this.hfFolder())];
  }

  /** Hugging Face folder picked (the palette's open format list): the trainer writes exports/step-000003-hf, and
   * transformers loads it as a causal LM with its tokenizer. */
  private async hfFolder(): Promise<string[]> {
    const started = Date.now();
    await pickRow(this.page, 'Hugging Face folder').click();
    const done = toast(this.page, 'exported checkpoints/step-000003 as Hugging Face folder to');
    await done.waitFor({ state: 'visible', timeout: 300_000 });
    const doneText = ((await done.locator('.notification-list-item-message').textContent()) ?? '').trim();
    await this.page.screenshot({ path: path.join(resultsDir, 'ui-export-hf-done.png') });
    const out = path.join(this.exportsDir, 'step-000003-hf');
    if (!existsSync(path.join(out, 'config.json'))) fail(`${out} has no config.json`);
    const loaded = execFileSync(
      this.python,
      ['-c', 'import sys, transformers as t; m = t.AutoModelForCausalLM.from_pretrained(sys.argv[1]); k = t.AutoTokenizer.from_pretrained(sys.argv[1]); print(type(m).__name__, sum(p.numel() for p in m.parameters()), len(k))', out],
      { env: { ...process.env, OMP_NUM_THREADS: '1', HF_HUB_OFFLINE: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    ).trim();
    if (!/ForCausalLM \d+ \d+$/.test(loaded)) fail(`transformers read the folder as "${loaded}"`);
    return [`"${doneText}" after ${((Date.now() - started) / 1000).toFixed(1)} s`, `transformers loads it: ${loaded} (class, parameters, vocabulary)`];
  }

  /** The demo's case (issue 54 item 1): the checkpoint that scored the trajectory pruned, the next one kept; no export.
   * The question offers to export the kept one it names, never the pruned one. */
  async prunedOffersKept(): Promise<string[]> {
    renameSync(path.join(this.runDir, 'checkpoints', 'step-000002'), path.join(this.runDir, 'checkpoints', '.pruned-step-000002'));
    renameSync(path.join(this.exportsDir, 'step-000002-onnx'), path.join(this.runDir, '.moved-step-000002-onnx'));
    const frame = webview(this.page);
    await frame.locator('[data-action="whatif-rescore"]').click();
    const question = frame.locator('[data-k="whatif-question"]');
    const button = question.locator('[data-action="whatif-export"]');
    await button.waitFor({ state: 'visible', timeout: 60_000 });
    const label = ((await button.textContent()) ?? '').trim();
    const paragraphs = (await question.locator('p').allTextContents()).map((text) => text.trim());
    if (label !== 'Export checkpoints/step-000003 as ONNX') fail(`the export button says "${label}"`);
    if (!paragraphs[0]?.includes('It loads checkpoints/step-000003, the kept weights nearest to step-000002 (which scored this trajectory and was not kept).')) fail(`the question says "${paragraphs[0]}"`);
    if (paragraphs[1] !== 'Or export checkpoints/step-000003 as ONNX for the editor: What if… then rescores it here, without the trainer.') fail(`the hint says "${paragraphs[1]}"`);
    await question.scrollIntoViewIfNeeded();
    await this.page.screenshot({ path: path.join(resultsDir, 'ui-whatif-export-button.png') });
    await question.locator('[data-action="whatif-cancel"]').click();
    return [`"${paragraphs.join(' ')}" [${label}]`];
  }
}

function main(): void {
  const python = runnerPrerequisites(LABEL, 'dist/webview/trajectory.js', 'dist/features.js', 'dist/whatIf.js');
  const trainerPath = path.join(repoRoot, 'trainer');
  const support = path.join(repoRoot, 'trainer', 'tests', 'support');
  runCodeServerTest(
    { label: LABEL, artifactName: 'ui-export', timeoutSeconds: 900, session: { label: 'ui-export', env: { SEED_PYTHON: python, PYTHONPATH: trainerPath }, installExtension: true } },
    async (session) => {
      const made = execFileSync(python, ['-c', 'import json, sys; from pathlib import Path; from make_whatif_run import make_run; print(json.dumps({"run": str(make_run(Path(sys.argv[1]), onnx=False, updates=3)[0])}))', session.workspace], {
        cwd: support,
        env: { ...process.env, OMP_NUM_THREADS: '1', PYTHONPATH: [support, trainerPath].join(path.delimiter) },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const { run } = JSON.parse(made.trim().split('\n').pop()!) as { run: string };
      mkdirSync(resultsDir, { recursive: true });
      const page = await session.openBrowser();
      await page.goto(session.workbenchUrl());
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.part.activitybar a.action-label[aria-label^="SEED"]').first().click();
      const ui = new ExportUi(page, run, python);
      return runUiSteps(page, LABEL, 'ui-export', [
        ['What if… without an export offers a button that exports the checkpoint it names', () => ui.openWhatIf()],
        ['Export Checkpoint… from the run\'s menu: step-000002 → ONNX, the trainer\'s progress, then where it is', () => ui.exportFromTree()],
        ['What if… rescores with the export (onnxruntime-node)', () => ui.whatIfUsesIt()],
        ['the view\'s button exports the checkpoint it names; cancelled half-way, the trainer ends and nothing is left', () => ui.exportButtonThenCancel()],
        ['from the palette: the run\'s checkpoints newest first, then the formats; a Hugging Face folder that transformers loads', () => ui.fromPalette()],
        ['step-000002 pruned: the question\'s export button and hint name the kept step-000003', () => ui.prunedOffersKept()],
      ]);
    },
  );
}

main();
