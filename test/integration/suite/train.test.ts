// "SEED: Train" end to end in a real VS Code: a real trainer process on a tiny local policy, followed by the runs
// tree and the dashboard; stop; a trainer that dies; and no process left behind for a run the window owns.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SeedStudioApi } from '../../../src/extension';
import type { TrainResult } from '../../../src/training/trainCommands';
import { isProcessGroupAlive, isTrainerAlive } from '../../../src/runs/core/trainerProcess';
import { configureTrainerEnv, killTrainer, repoRoot, seedApi, tinyPolicy, trainerPython, waitFor, workspaceDir, writeExperiment } from '../trainFixture';

suite('SEED: Train', () => {
  let api: SeedStudioApi;
  let experiment: string;
  const started: number[] = [];

  suiteSetup(async function () {
    this.timeout(120_000);
    api = await seedApi();
    await configureTrainerEnv();
    const dir = path.join(workspaceDir(), 'train');
    const model = await tinyPolicy(path.join(dir, 'tiny-policy'));
    experiment = writeExperiment(dir, 'tiny-grpo', { updates: 100_000, modelDir: model });
  });

  suiteTeardown(() => {
    for (const pid of started) killTrainer(pid);
  });

  async function train(lifetime?: 'window'): Promise<TrainResult> {
    const result = await vscode.commands.executeCommand<TrainResult | undefined>('seedStudio.train', {
      experiment,
      stage: 'train',
      ...(lifetime ? { lifetime } : {}),
    });
    assert.ok(result, 'SEED: Train returned nothing (refused?)');
    started.push(result.pid);
    return result;
  }

  test('launches a real run that appears in the runs tree and feeds the dashboard; Stop stops it; Resume resumes it', async () => {
    const result = await train();
    assert.ok(result.pid > 0);
    assert.ok(result.runDir.startsWith(path.join(workspaceDir(), 'train', 'runs')), result.runDir);
    const entry = await waitFor('the run to be followed with metrics', () => {
      const found = api.services.runs.get(result.runDir);
      return found && found.state === 'running' && found.index.metrics.length >= 2 && found.index.batches.size >= 1 ? found : undefined;
    }, 60_000);
    assert.equal(entry.index.manifest?.pid, result.pid, 'run.json records the detached trainer’s pid');
    assert.equal(entry.index.manifest?.algorithm, 'grpo');
    assert.ok(api.services.trainer.statusBarText?.includes('SEED tiny-grpo'), api.services.trainer.statusBarText);

    // The runs tree: run → update → task group → trajectories.
    const tree = api.runsTree();
    assert.ok(tree);
    const runNode = await waitFor('the run in the tree', () => tree.getChildren().find((node) => node.dir === result.runDir), 10_000);
    const runItem = tree.getTreeItem(runNode);
    // The state gives way to the progress and success when the row is short of room: the spinning icon says it.
    assert.match(String(runItem.label), /^\u2068tiny-grpo · grpo( · running)?\u2069$/, 'the label names the algorithm, bidi-isolated');
    assert.equal(typeof runItem.tooltip, 'string', 'a plain-text tooltip: no Markdown links from run files');
    assert.ok(String(runItem.tooltip).includes('train · grpo · running'), 'the tooltip names the state');
    assert.match(String(runItem.description), /^\d+\/100000/);
    assert.match(String(runItem.contextValue), /\blive\b/);
    const [update] = tree.getChildren(runNode);
    assert.ok(update && update.kind === 'batch');
    assert.match(String(tree.getTreeItem(update).label), /^Update \d+$/);
    const [group] = tree.getChildren(update);
    assert.ok(group && group.kind === 'group');
    const trajectories = tree.getChildren(group);
    assert.equal(trajectories.length, 2, 'group_size trajectories per task group');
    assert.equal(tree.getTreeItem(trajectories[0] ?? group).contextValue, 'seedTrajectory');

    // The dashboard draws the metrics the trainer writes, and keeps up while it runs.
    const panel = await vscode.commands.executeCommand<{ whenRendered: (p: (r: { points: Record<string, number> }) => boolean, t: number) => Promise<{ points: Record<string, number> } | undefined> }>(
      'seedStudio.openDashboard',
      result.runDir,
    );
    const first = await panel.whenRendered((report) => (report.points[result.runDir] ?? 0) > 0, 30_000);
    assert.ok(first, 'the dashboard never reported a redraw with points');
    const firstPoints = first.points[result.runDir] ?? 0;
    const later = await panel.whenRendered((report) => (report.points[result.runDir] ?? 0) > firstPoints, 30_000);
    assert.ok(later, 'the dashboard did not receive new metrics while the run was live');

    await vscode.commands.executeCommand('seedStudio.stopRun', result.runDir);
    assert.ok(await api.services.trainer.waitForEnd(result.runDir, 60_000), 'the run did not end after Stop');
    const manifest = JSON.parse(readFileSync(path.join(result.runDir, 'run.json'), 'utf8')) as { status: string };
    assert.equal(manifest.status, 'stopped');
    await waitFor('the trainer process to exit', () => !isTrainerAlive(result.pid), 10_000);
    await waitFor('no process of its group left', () => !isProcessGroupAlive(result.pid), 10_000);
    assert.equal(api.services.runs.get(result.runDir)?.state, 'stopped');

    // Resume continues the same run directory from its checkpoint, with a new trainer process.
    const stoppedAt = api.services.runs.get(result.runDir)?.index.manifest?.progress?.step ?? 0;
    const resumed = await vscode.commands.executeCommand<TrainResult | undefined>('seedStudio.resumeRun', result.runDir);
    assert.ok(resumed, 'SEED: Resume Run returned nothing');
    started.push(resumed.pid);
    assert.equal(resumed.runDir, result.runDir);
    await waitFor('the resumed run to make progress', () => {
      const entry = api.services.runs.get(result.runDir);
      return entry?.state === 'running' && (entry.index.manifest?.progress?.step ?? 0) > stoppedAt && entry.index.manifest?.pid === resumed.pid;
    }, 60_000);
    await vscode.commands.executeCommand('seedStudio.stopRun', result.runDir);
    assert.ok(await api.services.trainer.waitForEnd(result.runDir, 60_000), 'the resumed run did not end after Stop');
    await waitFor('no process of the resumed trainer left', () => !isProcessGroupAlive(resumed.pid), 10_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a run started outside VS Code (a terminal) is found through file-system events and followed', async () => {
    const runDir = path.join(path.dirname(experiment), 'runs', 'started-from-a-terminal');
    const child = spawn(trainerPython(), ['-m', 'seed_trainer', 'train', experiment, '--run-dir', runDir], {
      cwd: path.dirname(experiment),
      env: { ...process.env, PYTHONPATH: path.join(repoRoot, 'trainer', 'tests', 'support'), OMP_NUM_THREADS: '1' },
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
    assert.ok(child.pid);
    started.push(child.pid);
    const entry = await waitFor('the run to be discovered', () => {
      const found = api.services.runs.get(runDir);
      return found?.state === 'running' && found.index.metrics.length > 0 ? found : undefined;
    }, 60_000);
    assert.equal(entry.index.manifest?.pid, child.pid);
    const session = await waitFor('the trainer host to follow it', () => api.services.trainer.sessions.get(runDir), 10_000);
    assert.equal(session.launchedHere, false);
    await vscode.commands.executeCommand('seedStudio.stopRun', runDir);
    assert.ok(await api.services.trainer.waitForEnd(runDir, 60_000), 'the run did not end after Stop');
    assert.equal(api.services.runs.get(runDir)?.state, 'stopped');
  });

  test('the dashboard overlays several runs', async () => {
    const withMetrics = api.services.runs.runs().filter((entry) => entry.dir.startsWith(path.dirname(experiment)) && entry.index.metrics.length > 0);
    assert.ok(withMetrics.length >= 2, `only ${withMetrics.length} run(s) with metrics`);
    const dirs = withMetrics.slice(0, 2).map((entry) => entry.dir);
    const panel = await vscode.commands.executeCommand<NonNullable<ReturnType<SeedStudioApi['dashboard']>>>('seedStudio.openDashboard', dirs);
    assert.deepEqual([...panel.runs], dirs);
    const report = await panel.whenRendered((r) => dirs.every((dir) => (r.points[dir] ?? 0) > 0), 30_000);
    assert.ok(report, 'the dashboard did not draw both runs');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Evaluate the base, then Train: the train run links that evaluation and pairs it with its own', async () => {
    // Issue 41 item 3: SEED: Train → Evaluate (the walkthrough's "Evaluate the Base Policy"), then SEED: Train, gives
    // a before/after without asking: the launch passes --baseline-eval for the evaluation of the same file and model.
    const dir = path.join(workspaceDir(), 'before-after');
    const model = await tinyPolicy(path.join(dir, 'tiny-policy'));
    const file = writeExperiment(dir, 'before-after', { updates: 2, modelDir: model });
    appendFileSync(file, ['eval:', '  tasks: 4', '  every: 2', '  splits: [valid_seen]', ''].join('\n'));
    const base = await vscode.commands.executeCommand<TrainResult | undefined>('seedStudio.train', { experiment: file, stage: 'eval', split: 'valid_seen' });
    assert.ok(base, 'SEED: Train → Evaluate returned nothing');
    started.push(base.pid);
    assert.ok(await api.services.trainer.waitForEnd(base.runDir, 120_000), 'the base evaluation did not end');
    await waitFor('the base evaluation to be completed', () => api.services.runs.get(base.runDir)?.state === 'completed', 30_000);

    const result = await vscode.commands.executeCommand<TrainResult | undefined>('seedStudio.train', { experiment: file, stage: 'train' });
    assert.ok(result, 'SEED: Train returned nothing');
    started.push(result.pid);
    assert.ok(await api.services.trainer.waitForEnd(result.runDir, 180_000), 'the train run did not end');
    const manifest = JSON.parse(readFileSync(path.join(result.runDir, 'run.json'), 'utf8')) as { status: string; baseline_evals?: Record<string, string> | null };
    assert.equal(manifest.status, 'completed');
    assert.deepEqual(manifest.baseline_evals, { valid_seen: `../${path.basename(base.runDir)}` });
    const entry = await waitFor('the train run to be completed', () => {
      const found = api.services.runs.get(result.runDir);
      return found?.state === 'completed' ? found : undefined;
    }, 30_000);
    const [pair, ...more] = await api.services.runs.core.beforeAfter(entry);
    assert.equal(more.length, 0);
    assert.equal(pair?.split, 'valid_seen');
    assert.equal(pair?.baseRun, base.runDir);
    assert.equal(pair?.problem, undefined);
    assert.equal(pair?.change?.paired, true, 'the same 4 tasks before and after: paired task by task');
    assert.equal(pair?.change?.nAfter, 4);
  });

  test('a trainer that dies is reported as interrupted', async () => {
    const result = await train();
    await waitFor('the run to be running', () => api.services.runs.get(result.runDir)?.state === 'running', 60_000);
    const ended = new Promise<string>((resolve) => {
      const listener = api.services.trainer.onDidEndSession((event) => {
        if (event.session.dir !== result.runDir) return;
        listener.dispose();
        resolve(event.state);
      });
    });
    process.kill(result.pid, 'SIGKILL');
    const state = await Promise.race([ended, new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 20_000))]);
    assert.equal(state, 'interrupted');
    assert.equal(api.services.runs.get(result.runDir)?.state, 'interrupted');
  });

  test('a run whose lifetime the window owns leaves no process behind when the window goes', async () => {
    const result = await train('window');
    await waitFor('the run to be running', () => api.services.runs.get(result.runDir)?.state === 'running', 60_000);
    await api.services.trainer.shutdown(); // what deactivate() does when the window closes or reloads
    await waitFor('the process group to be gone', () => !isProcessGroupAlive(result.pid), 15_000);
  });
});
