// Reattach, phase 2: a new extension host finds the run still running, follows it (status bar, tree, dashboard),
// and stops it.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TrainResult } from '../../../src/training/trainCommands';
import { isProcessGroupAlive, isTrainerAlive } from '../../../src/runs/core/trainerProcess';
import { seedApi, waitFor, workspaceDir } from '../trainFixture';

suite('reattach, phase 2 (a new extension host)', () => {
  test('the running trainer is reattached: status bar, tree, dashboard; Stop stops it', async () => {
    const started = JSON.parse(readFileSync(path.join(workspaceDir(), '.seed-reattach-test.json'), 'utf8')) as TrainResult & { extensionHostPid: number };
    assert.notEqual(process.pid, started.extensionHostPid, 'phase 2 runs in the same extension host as phase 1');
    assert.ok(isTrainerAlive(started.pid), `the trainer (pid ${started.pid}) did not survive the first extension host`);
    const api = await seedApi();
    const session = await waitFor('the run to be reattached', () => {
      const found = api.services.trainer.sessions.get(started.runDir);
      return found && !found.ended ? found : undefined;
    }, 20_000);
    assert.equal(session.pid, started.pid);
    assert.equal(session.launchedHere, false);
    assert.ok(api.services.trainer.statusBarText?.includes('SEED reattach-me'), api.services.trainer.statusBarText);
    const entry = api.services.runs.get(started.runDir);
    assert.equal(entry?.state, 'running');
    const before = entry?.index.metrics.length ?? 0;
    await waitFor('new metrics after the reattach', () => (api.services.runs.get(started.runDir)?.index.metrics.length ?? 0) > before, 30_000);
    const tree = api.runsTree();
    const node = tree?.getChildren().find((n) => n.dir === started.runDir);
    assert.ok(node && tree, 'the run is not in the tree');
    assert.match(String(tree.getTreeItem(node).contextValue), /\blive\b/);

    // The dashboard panel comes back with the window (its serializer), or opens again on the command.
    const restored = await waitFor('the dashboard panel to be restored', () => api.dashboard(), 10_000).catch(() => undefined);
    const panel =
      restored ??
      (await vscode.commands.executeCommand<NonNullable<ReturnType<typeof api.dashboard>>>('seedStudio.openDashboard', started.runDir));
    console.log(`reattach: dashboard ${restored ? 'restored by its serializer' : 'opened again'}`);
    assert.ok(await panel.whenRendered((report) => (report.points[started.runDir] ?? 0) > 0, 30_000), 'the dashboard drew nothing');

    await vscode.commands.executeCommand('seedStudio.stopRun', started.runDir);
    assert.ok(await api.services.trainer.waitForEnd(started.runDir, 60_000), 'the run did not end after Stop');
    assert.equal((JSON.parse(readFileSync(path.join(started.runDir, 'run.json'), 'utf8')) as { status: string }).status, 'stopped');
    await waitFor('the trainer and its group to be gone', () => !isProcessGroupAlive(started.pid), 15_000);
  });
});
