// Runs inside a real VS Code extension host (code-server or desktop VS Code), with the repository loaded as the
// extension under development. SEED_PYTHON (set by the runner) names the trainer's interpreter.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ProbeResult } from '../../../src/training/core/trainerProbe';

interface Manifest {
  publisher: string;
  name: string;
  contributes?: { commands?: Array<{ command: string }> };
}

// out/test/integration/suite → the repository root, which is the extension under development.
const manifestPath = path.resolve(__dirname, '..', '..', '..', '..', 'package.json');

function readManifest(): Manifest {
  return JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
}

async function activatedExtension(manifest: Manifest): Promise<vscode.Extension<unknown>> {
  const id = `${manifest.publisher}.${manifest.name}`;
  const extension = vscode.extensions.getExtension(id);
  assert.ok(extension, `extension ${id} is not loaded in this VS Code`);
  await extension.activate();
  return extension;
}

suite('SEED Studio in VS Code', () => {
  test('the extension activates', async () => {
    const manifest = readManifest();
    const extension = await activatedExtension(manifest);
    assert.equal(extension.isActive, true);
    assert.equal(path.resolve(extension.extensionPath), path.dirname(manifestPath), 'a different copy of the extension was loaded');
  });

  test('every command contributed in package.json is registered', async () => {
    const manifest = readManifest();
    await activatedExtension(manifest);
    const contributed = (manifest.contributes?.commands ?? []).map((entry) => entry.command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((command) => !registered.has(command));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  test('SEED: Show Trainer Status reports the trainer, torch and CUDA', async () => {
    await activatedExtension(readManifest());
    const result = await vscode.commands.executeCommand<ProbeResult>('seedStudio.showTrainerStatus');
    assert.ok(result, 'the command returned nothing');
    assert.ok(result.ok, `the probe failed for ${result.interpreter}: ${result.ok ? '' : result.error}`);
    if (process.env.SEED_PYTHON) assert.equal(result.interpreter, process.env.SEED_PYTHON, 'SEED_PYTHON was not used');
    const { trainer, torch } = result.report;
    assert.equal(trainer.importable, true, `seed_trainer is not importable: ${trainer.error ?? ''}`);
    assert.equal(torch.importable, true, `torch is not importable: ${torch.error ?? ''}`);
    assert.match(torch.version ?? '', /^\d+\.\d+/, 'torch reported no version');
    const cuda = torch.cuda;
    assert.ok(cuda, 'the probe reported no CUDA section');
    if (cuda.available) {
      assert.ok(cuda.devices.length >= 1, 'CUDA is available but no device was listed');
    } else {
      assert.ok(typeof cuda.reason === 'string' && cuda.reason.trim().length > 0, 'CUDA is unavailable and no reason was given');
    }
  });
});
