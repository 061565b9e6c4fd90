// Reattach, phase 1: "SEED: Train" starts a real run; the dashboard is opened on it; the extension host then goes
// away (the runner loads a new window) while the trainer keeps running.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TrainResult } from '../../../src/training/trainCommands';
import { configureTrainerEnv, seedApi, tinyPolicy, waitFor, workspaceDir, writeExperiment } from '../trainFixture';

const STATE_FILE = '.seed-reattach-test.json';

suite('reattach, phase 1 (first extension host)', () => {
  test('SEED: Train starts a detached run and the dashboard shows it', async () => {
    const api = await seedApi();
    await configureTrainerEnv();
    const dir = path.join(workspaceDir(), 'reattach');
    const model = await tinyPolicy(path.join(dir, 'tiny-policy'));
    const experiment = writeExperiment(dir, 'reattach-me', { updates: 100_000, modelDir: model });
    const result = await vscode.commands.executeCommand<TrainResult | undefined>('seedStudio.train', { experiment, stage: 'train' });
    assert.ok(result, 'SEED: Train returned nothing');
    writeFileSync(path.join(workspaceDir(), STATE_FILE), JSON.stringify({ ...result, extensionHostPid: process.pid }));
    await waitFor('metrics', () => (api.services.runs.get(result.runDir)?.index.metrics.length ?? 0) >= 2, 60_000);
    const panel = await vscode.commands.executeCommand<{ whenRendered: (p: (r: { points: Record<string, number> }) => boolean, t: number) => Promise<unknown> }>(
      'seedStudio.openDashboard',
      result.runDir,
    );
    assert.ok(await panel.whenRendered((report) => (report.points[result.runDir] ?? 0) > 0, 30_000), 'the dashboard drew nothing');
  });
});
