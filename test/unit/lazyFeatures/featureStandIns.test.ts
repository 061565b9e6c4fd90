// Activation registers stand-ins for the feature bundle (src/lazyFeatures/featureStandIns.ts) and loads nothing of it; the first
// use loads it, and it registers exactly the commands that had stand-ins and provides what the other stand-ins hand
// over to. The extension's own entry point runs here against a recording `vscode` stub (vscodeStub.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, mock, test } from 'node:test';
import { repoRoot } from '../support/repoPaths';
import { extensionContext, installVscodeStub } from '../support/vscodeStub';

const record = installVscodeStub();
// The deferred first scan (and the features' own timers) must not run against the stub.
mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });

const featuresLoaded = () => Object.keys(require.cache).some((file) => file.endsWith(path.join('src', 'features.js')));
const CORE_COMMANDS = ['seedStudio.showTrainerStatus', 'seedStudio.runs.compare'];

// Required after the stub is installed (a static import would be hoisted above it).
const load = createRequire(__filename);

async function activated() {
  const extension = load('../../../src/extension') as typeof import('../../../src/extension');
  const standIns = load('../../../src/lazyFeatures/featureStandIns') as typeof import('../../../src/lazyFeatures/featureStandIns');
  const context = extensionContext(repoRoot);
  const api = extension.activate(context as never);
  after(() => {
    for (const disposable of context.subscriptions) disposable.dispose();
    mock.timers.reset();
  });
  return { api, standIns };
}

const ready = activated();

test('activation registers the core commands and a stand-in for each feature command, panel, editor and scheme; it loads no feature', async () => {
  const { standIns } = await ready;
  assert.equal(featuresLoaded(), false, 'dist/features.js (out/src/features.js) was loaded at activation');
  assert.deepEqual([...record.commands.keys()].sort(), [...CORE_COMMANDS, ...standIns.FEATURE_COMMANDS].sort());
  assert.deepEqual([...record.panelSerializers.keys()].sort(), [...standIns.FEATURE_PANELS].sort());
  assert.deepEqual([...record.customEditors.keys()], standIns.FEATURE_CUSTOM_EDITORS.map((editor) => editor.viewType));
  assert.deepEqual([...record.textContent.keys()], [...standIns.FEATURE_TEXT_SCHEMES]);
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { commands: Array<{ command: string }>; customEditors: Array<{ viewType: string }> } };
  const missing = manifest.contributes.commands.map((c) => c.command).filter((id) => !record.commands.has(id));
  assert.deepEqual(missing, [], 'contributed commands with neither a registration nor a stand-in at activation');
  assert.deepEqual(manifest.contributes.customEditors.map((editor) => editor.viewType), [...record.customEditors.keys()]);
  assert.deepEqual(standIns.unprovided().length, standIns.FEATURE_PANELS.length + standIns.FEATURE_CUSTOM_EDITORS.length + standIns.FEATURE_TEXT_SCHEMES.length);
});

test('a stand-in command loads the features, which register exactly the stand-ins’ commands, and runs the real command', async () => {
  const { standIns } = await ready;
  const before = record.commandCalls.length;
  await record.commands.get('seedStudio.openTrajectoryTable')!();
  assert.equal(featuresLoaded(), true);
  const byFeatures = record.commandCalls.slice(before);
  assert.deepEqual([...byFeatures].sort(), [...standIns.FEATURE_COMMANDS].sort(), 'the features registered other commands than the stand-ins’');
  assert.match(record.messages.at(-1) ?? '', /open the trajectory table from a run or an update/, 'the real command did not run');
  // Serializers, the custom editor and the text documents stay the stand-ins', which now have what they hand over to.
  assert.deepEqual([...record.panelSerializers.keys()].sort(), [...standIns.FEATURE_PANELS].sort());
  assert.deepEqual([...record.textContent.keys()], [...standIns.FEATURE_TEXT_SCHEMES]);
  assert.deepEqual(standIns.unprovided(), []);
});

test('the stand-ins hand over: a trajectory text document, a restored trajectory and diff panel', async () => {
  await ready;
  const uri = { scheme: 'seed-trajectory', path: '/run/x.seedtraj', query: '', fsPath: '/run/x.seedtraj', toString: () => 'seed-trajectory:/run/x.seedtraj' };
  const text = await record.textContent.get('seed-trajectory')!.provideTextDocumentContent(uri, undefined);
  assert.match(String(text), /does not name a run directory and a trajectory id/);
  for (const viewType of ['seedStudio.trajectory', 'seedStudio.trajectoryDiff']) {
    let disposed = false;
    await record.panelSerializers.get(viewType)!.deserializeWebviewPanel({ dispose: () => (disposed = true) }, undefined);
    assert.ok(disposed, `${viewType}: a panel restored without a trajectory in its state is closed by the real serializer`);
  }
});

test('the documents that load the features: experiment files, skills.jsonl, trajectory text', async () => {
  const { standIns } = await ready;
  const served = (p: string, scheme = 'file') => standIns.servedDocument({ path: p, scheme });
  assert.ok(served('/w/exp/grpo.seed.yaml') && served('/w/exp/A.SEED.YML') && served('/w/runs/r1/skills.jsonl') && served('/r/x.seedtraj', 'seed-trajectory'));
  assert.ok(!served('/w/config.yaml') && !served('/w/runs/r1/skills.jsonl.bak') && !served('/w/runs/r1/metrics.jsonl'));
});
