// "SEED: Open in TensorBoard" in a real VS Code: a real trainer run with `report_to: [tensorboard]`, the command on
// it → a real TensorBoard (the trainer interpreter's) answering with that run's scalars, shown in the Simple Browser;
// the same run again → the same process.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenedTensorBoard } from '../../../src/tensorboard/openTensorBoard';
import { isProcessAlive } from '../../../src/runs/core/trainerProcess';
import { repoRoot, seedApi, tinyPolicy, trainerPython, waitFor, workspaceDir, writeExperiment } from '../trainFixture';

/** `python -m seed_trainer train` to the end, on the counter environment (about a second per update here). */
function trainToEnd(experiment: string, runDir: string): Promise<void> {
  const env = { ...process.env, PYTHONPATH: path.join(repoRoot, 'trainer', 'tests', 'support'), OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  return new Promise((resolve, reject) => {
    execFile(trainerPython(), ['-m', 'seed_trainer', 'train', experiment, '--run-dir', runDir], { env, timeout: 240_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`the trainer failed: ${stderr.slice(-2000) || error.message}`));
      else resolve();
    });
  });
}

function simpleBrowserTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('simpleBrowser'));
}

suite('SEED: Open in TensorBoard', () => {
  test('starts a real TensorBoard on a run, which answers with the run\'s scalars, in the Simple Browser; reused for the same run', async function () {
    this.timeout(300_000);
    const api = await seedApi();
    const dir = path.join(workspaceDir(), 'tensorboard');
    const model = await tinyPolicy(path.join(dir, 'tiny-policy'));
    const experiment = writeExperiment(dir, 'tb-grpo', { updates: 2, modelDir: model });
    appendFileSync(experiment, 'report_to: [tensorboard]\n');
    const runDir = path.join(dir, 'runs', '20260401-120000-train-tb-grpo');
    await trainToEnd(experiment, runDir);
    assert.ok(readdirSync(path.join(runDir, 'tensorboard')).some((name) => name.startsWith('events.out.tfevents')), 'the trainer wrote event files');
    await api.services.runs.add(runDir);

    const opened = await vscode.commands.executeCommand<OpenedTensorBoard | undefined>('seedStudio.openTensorBoard', runDir);
    assert.ok(opened, 'the command returned nothing (see the SEED Studio log)');
    assert.equal(opened.logdir, path.join(runDir, 'tensorboard'));
    assert.ok(isProcessAlive(opened.pid));

    // TensorBoard's own API: the folder it reads, and the scalar tags it found there, which are the metrics' keys.
    // One run is given as `--logdir_spec <run id>:<folder>`, so that TensorBoard lists it by its name, not as ".".
    const logdir = (await (await fetch(`${opened.url}data/logdir`)).json()) as { logdir: string };
    assert.equal(logdir.logdir, `${path.basename(runDir)}:${opened.logdir}`);
    // Every number of the first update's metrics row (docs/trainer.md: the same rows as metrics.jsonl).
    const firstRow = JSON.parse(readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8').split('\n')[0]!) as Record<string, unknown>;
    const metricTags = Object.entries(firstRow).filter(([key, value]) => !['step', 'time', 'kind', 'split', 'epoch'].includes(key) && typeof value === 'number').map(([key]) => key);
    assert.ok(metricTags.includes('success/overall'), metricTags.join(', '));
    const tags = await waitFor('TensorBoard to load every metric of the run', async () => {
      const answer = (await (await fetch(`${opened.url}data/plugin/scalars/tags`)).json()) as Record<string, Record<string, unknown>>;
      const found = new Set(Object.values(answer).flatMap((run) => Object.keys(run)));
      return metricTags.every((tag) => found.has(tag)) ? found : undefined;
    }, 60_000, 500);
    assert.ok(tags.size >= metricTags.length);
    const runs = Object.keys((await (await fetch(`${opened.url}data/plugin/scalars/tags`)).json()) as Record<string, unknown>);
    assert.ok(runs.length > 0 && runs.every((run) => run.startsWith(path.basename(runDir))), runs.join(', '));
    const page = await (await fetch(opened.url)).text();
    assert.match(page, /<title>TensorBoard<\/title>/i);

    await waitFor('the Simple Browser tab', () => (simpleBrowserTabs().length > 0 ? true : undefined), 20_000);
    const again = await vscode.commands.executeCommand<OpenedTensorBoard | undefined>('seedStudio.openTensorBoard', runDir);
    assert.equal(again?.pid, opened.pid, 'the same run reuses its TensorBoard');
  });
});
