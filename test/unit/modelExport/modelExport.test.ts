// SEED: Export Checkpoint… without VS Code: the quick-pick rows of a run's weights and of the formats, the trainer's
// arguments, the reading of its output (the progress bars of the libraries it drives, its `exported` and `error:`
// lines), and one export each way through a stand-in trainer (a shell script that writes what the real one writes):
// exported; refused with its error line; failed for want of the `export` extra; cancelled, with the half-written
// folder it leaves removed. The real trainer is run by test/ui/exportCheckpoint.ts.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { exportArgs, exportDir, findWeights, formatPickItems, partialExportDir, weightsPickItems, type ExportableWeights } from '../../../src/modelExport/core/exportChoices';
import { ExportProgress, exportFailure, parseExportLine } from '../../../src/modelExport/core/exportProgress';
import { runExport } from '../../../src/modelExport/core/exportRun';
import { readRunWeights, startingModel } from '../../../src/modelExport/core/runWeights';
import { LineSplitter } from '../../../src/python/core/trainerCommand';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seed-export-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A folder the trainer's holds_model accepts. */
function modelFolder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'config.json'), '{}');
  return dir;
}

function run(root: string, name: string, config: Record<string, unknown> = {}): string {
  const dir = path.join(root, 'runs', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id: name, experiment: { path: '../../exp.seed.yaml' }, config }));
  return dir;
}

test('a run\'s weights: kept checkpoints newest first (a folder without a model left out), its model/, and the formats exported', (t) => {
  const root = tempDir(t);
  const dir = run(root, 'r1');
  const kept = [1, 2, 10].map((step) => ({ step, dir: modelFolder(path.join(dir, 'checkpoints', `step-${String(step).padStart(6, '0')}`)) }));
  mkdirSync(path.join(dir, 'checkpoints', 'step-000011')); // being written: no config.json yet
  kept.push({ step: 11, dir: path.join(dir, 'checkpoints', 'step-000011') });
  modelFolder(path.join(dir, 'model'));
  mkdirSync(path.join(dir, 'exports', 'step-000002-onnx'), { recursive: true });
  const weights = readRunWeights(dir, kept);
  assert.deepEqual(
    weights.map((w) => [w.name, w.kind, w.step, w.exported]),
    [
      ['checkpoints/step-000010', 'checkpoint', 10, []],
      ['checkpoints/step-000002', 'checkpoint', 2, ['onnx']],
      ['checkpoints/step-000001', 'checkpoint', 1, []],
      ['model', 'model', undefined, []],
    ],
  );
  const items = weightsPickItems(weights);
  assert.deepEqual(
    items.map((item) => [item.label, item.description, item.detail]),
    [
      ['checkpoints/step-000010', 'update 10 · the latest kept', 'Not exported yet.'],
      ['checkpoints/step-000002', 'update 2', 'Exported already as ONNX: exporting again replaces it.'],
      ['checkpoints/step-000001', 'update 1', 'Not exported yet.'],
      ['model', 'the model this run trained', 'Not exported yet.'],
    ],
  );
  assert.equal(items[1]!.weights, weights[1]);
});

test('the starting model is offered only when it is another run\'s output', (t) => {
  const root = tempDir(t);
  const sft = run(root, 'sft');
  modelFolder(path.join(sft, 'model'));
  // Relative to the experiment file's folder (the workspace root here), as the trainer resolves model.path.
  const fromSft = run(root, 'train', { model: { path: 'runs/sft/model' } });
  assert.equal(startingModel(fromSft, { experiment: { path: '../../exp.seed.yaml' }, config: { model: { path: 'runs/sft/model' } } }), path.join(sft, 'model'));
  const weights = readRunWeights(fromSft, [], { experiment: { path: '../../exp.seed.yaml' }, config: { model: { path: 'runs/sft/model' } } });
  assert.deepEqual(weights.map((w) => [w.name, w.kind, w.exportRun]), [['starting model', 'start', sft]]);
  const item = weightsPickItems(weights)[0]!;
  assert.equal(item.description, 'model of run sft');
  assert.match(item.detail, /^The weights this run started from; the export goes to sft\/exports\/\./);
  assert.equal(exportDir(weights[0]!, 'onnx'), path.join(sft, 'exports', 'model-onnx'));

  const plain = modelFolder(path.join(root, 'models', 'base'));
  for (const modelPath of ['builtin:household-tiny', plain, 'org/hub-model', path.join(root, 'missing')]) {
    assert.equal(startingModel(fromSft, { experiment: { path: '../../exp.seed.yaml' }, config: { model: { path: modelPath } } }), undefined, modelPath);
  }
  assert.equal(startingModel(fromSft, undefined), undefined);
});

const checkpoint = (exported: ExportableWeights['exported'] = []): ExportableWeights => ({
  name: 'checkpoints/step-000001',
  dir: path.join('/w', 'runs', 'r', 'checkpoints', 'step-000001'),
  kind: 'checkpoint',
  step: 1,
  exportRun: path.join('/w', 'runs', 'r'),
  exported,
});

test('the formats: ONNX for What if…, a Hugging Face folder; each names the folder it writes', () => {
  const items = formatPickItems(checkpoint(['hf']), (file) => path.relative('/w', file).split(path.sep).join('/'));
  assert.deepEqual(
    items.map((item) => [item.format, item.label, item.description, item.detail]),
    [
      ['onnx', 'ONNX', 'for What if… in the editor (onnxruntime-node, no Python)', 'Writes runs/r/exports/step-000001-onnx'],
      ['hf', 'Hugging Face folder', 'a plain model folder, LoRA adapters merged', 'Writes runs/r/exports/step-000001-hf (replaces the export there)'],
    ],
  );
});

test('the trainer\'s arguments, the output folder (the trainer\'s default) and its temporary folder', () => {
  const weights = checkpoint();
  const out = exportDir(weights, 'onnx');
  assert.equal(out, path.join('/w', 'runs', 'r', 'exports', 'step-000001-onnx'));
  assert.equal(partialExportDir(out), path.join('/w', 'runs', 'r', 'exports', '.tmp-step-000001-onnx'));
  assert.deepEqual(exportArgs(weights.dir, 'onnx', out), ['-m', 'seed_trainer', 'export', '--checkpoint', weights.dir, '--format', 'onnx', '--out', out]);
});

test('the weights a command names: as the pickers name them, with either separator, or by folder; nothing else', () => {
  const runDir = path.join('/w', 'runs', 'r');
  const all = [checkpoint()];
  assert.equal(findWeights(all, runDir, 'checkpoints/step-000001'), all[0]);
  assert.equal(findWeights(all, runDir, 'checkpoints\\step-000001'), all[0]);
  assert.equal(findWeights(all, runDir, path.join(runDir, 'checkpoints', 'step-000001')), all[0]);
  assert.equal(findWeights(all, runDir, 'checkpoints/step-000002'), undefined);
  assert.equal(findWeights(all, runDir, '../other/checkpoints/step-000001'), undefined);
});

test('the trainer\'s output: progress bars redrawn with \\r, warnings, its exported and error lines', () => {
  // As the trainer printed them on this machine (transformers 5, torch 2.13).
  const stderr =
    '\rLoading weights:   0%|          | 0/46 [00:00<?, ?it/s]\rLoading weights: 100%|██████████| 46/46 [00:00<00:00, 6613.58it/s]\n' +
    '/x/transformers/masking_utils.py:229: TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect.\n' +
    '  if (padding_length := kv_length + kv_offset - attention_mask.shape[-1]) > 0:\n';
  const splitter = new LineSplitter();
  const lines = [...splitter.push(stderr.slice(0, 50)), ...splitter.push(stderr.slice(50)), ...splitter.end()];
  const parsed = lines.map((line) => parseExportLine(line, 'stderr'));
  assert.deepEqual(parsed, [
    undefined,
    { kind: 'bar', label: 'Loading weights', done: '0', total: '46', percent: 0 },
    { kind: 'bar', label: 'Loading weights', done: '46', total: '46', percent: 100 },
    { kind: 'warning', category: 'TracerWarning', message: 'Converting a tensor to a Python boolean might cause the trace to be incorrect.' },
    { kind: 'text', text: 'if (padding_length := kv_length + kv_offset - attention_mask.shape[-1]) > 0:' },
  ]);
  assert.deepEqual(parseExportLine('{"type": "exported", "format": "onnx", "path": "/w/runs/r/exports/step-000001-onnx"}', 'stdout'), { kind: 'exported', format: 'onnx', path: '/w/runs/r/exports/step-000001-onnx' });
  assert.deepEqual(parseExportLine('{"type": "progress", "done": 3, "total": 4}', 'stdout'), { kind: 'bar', label: '', done: '3', total: '4', percent: 75 });
  assert.deepEqual(parseExportLine('error: export failed: OSError: disk full', 'stderr'), { kind: 'error', message: 'export failed: OSError: disk full' });
  assert.deepEqual(parseExportLine('Writing model shards: 100%|██████████| 1/1 [00:00<00:00, 51.62it/s]', 'stderr'), { kind: 'bar', label: 'Writing model shards', done: '1', total: '1', percent: 100 });
  assert.deepEqual(parseExportLine(' 50%|█████     | 1.2k/2.4k [00:01<00:01]', 'stderr'), { kind: 'bar', label: '', done: '1.2k', total: '2.4k', percent: 50 });
  assert.deepEqual(parseExportLine('not json', 'stdout'), { kind: 'text', text: 'not json' });
});

test('the notification\'s message: the latest bar, what follows a full one, the seconds so far', () => {
  const progress = new ExportProgress('onnx');
  assert.equal(progress.message(0.4), "starting the trainer's Python · 0 s");
  assert.equal(progress.take(parseExportLine('Loading weights:  50%|█████     | 23/46 [00:00<00:00]', 'stderr')), true);
  assert.equal(progress.message(7.6), 'Loading weights 23/46 (50 %) · 8 s');
  assert.equal(progress.take(parseExportLine('Loading weights:  50%|█████     | 23/46 [00:01<00:00]', 'stderr')), false, 'a redraw with the same counts');
  progress.take(parseExportLine('Loading weights: 100%|██████████| 46/46 [00:00<00:00]', 'stderr'));
  assert.equal(progress.message(12), 'Loading weights 46/46, tracing the model into model.onnx · 12 s');
  assert.equal(progress.take(parseExportLine('/x/y.py:1: UserWarning: w', 'stderr')), false, 'a warning goes to the log only');
  const hf = new ExportProgress('hf');
  hf.take(parseExportLine('Loading weights: 100%|██████████| 46/46 [00:00<00:00]', 'stderr'));
  assert.equal(hf.message(3), 'Loading weights 46/46, writing the folder · 3 s');
  hf.take(parseExportLine('Writing model shards: 100%|██████████| 1/1 [00:00<00:00]', 'stderr'));
  assert.equal(hf.message(4), 'Writing model shards 1/1, finishing · 4 s');
});

test('why an export failed: the exit, the trainer\'s error line, the missing export extra named', () => {
  assert.deepEqual(exportFailure(2, null, 'error: --checkpoint /x: not a model directory (no config.json or adapter_config.json)\n'), {
    reason: 'refused: --checkpoint /x: not a model directory (no config.json or adapter_config.json)',
  });
  const noOnnx = exportFailure(1, null, "Loading weights: 100%|█| 1/1\nerror: export failed: ModuleNotFoundError: No module named 'onnx'\n");
  assert.equal(noOnnx.missingExtra, 'export');
  assert.match(noOnnx.reason, /^failed \(exit 1\): export failed: ModuleNotFoundError: No module named 'onnx'\. The ONNX export needs the trainer's `export` extra \(the onnx package\)/);
  assert.deepEqual(exportFailure(null, 'SIGKILL', 'Killed\n'), { reason: 'ended by SIGKILL: Killed' });
  assert.match(exportFailure(1, null, "/usr/bin/python3: No module named seed_trainer\n").reason, /the trainer is not installed in this Python/);
});

/**
 * A stand-in for the trainer's Python: a shell script that reads `--out` and does what the real export does — writes
 * into `.tmp-<name>`, prints tqdm bars on stderr, renames and prints the exported line — or, by STANDIN_MODE, refuses,
 * fails without the onnx package, or stops half-way (until it is killed).
 */
function standInPython(dir: string): string {
  const file = path.join(dir, 'python');
  writeFileSync(
    file,
    `#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in --out) out="$2"; shift;; esac; shift; done
parent=$(dirname "$out"); tmp="$parent/.tmp-$(basename "$out")"
case "$STANDIN_MODE" in
  refuse) echo "error: --checkpoint x: not a model directory (no config.json or adapter_config.json)" >&2; exit 2;;
  noonnx) echo "error: export failed: ModuleNotFoundError: No module named 'onnx'" >&2; exit 1;;
esac
mkdir -p "$tmp"; echo '{}' > "$tmp/export.json"
printf '\\rLoading weights:   0%%|          | 0/2 [00:00<?, ?it/s]\\rLoading weights: 100%%|##########| 2/2 [00:00<00:00]\\n' >&2
if [ "$STANDIN_MODE" = hang ]; then touch "$parent/.started"; exec sleep 60; fi
mv "$tmp" "$out"
echo "{\\"type\\": \\"exported\\", \\"format\\": \\"onnx\\", \\"path\\": \\"$out\\"}"
`,
  );
  chmodSync(file, 0o755);
  return file;
}

const posix = process.platform !== 'win32';

test('an export through the stand-in trainer: the lines as they come, then the folder', { skip: !posix && 'a POSIX shell stands in for the trainer' }, async (t) => {
  const root = tempDir(t);
  const python = standInPython(root);
  const out = path.join(root, 'runs', 'r', 'exports', 'step-000001-onnx');
  const seen: string[] = [];
  const outcome = await runExport({ python, weightsDir: path.join(root, 'ckpt'), format: 'onnx', out, onLine: (line) => line && seen.push(line.kind) });
  assert.equal(outcome.status, 'exported');
  assert.equal(outcome.status === 'exported' && outcome.dir, out);
  assert.deepEqual(seen.sort(), ['bar', 'bar', 'exported'], 'two redraws of the bar (stderr) and the exported line (stdout), in either order');
  assert.ok(existsSync(path.join(out, 'export.json')));
  assert.ok(!existsSync(partialExportDir(out)));
});

test('a refusal and a missing extra come back with the trainer\'s reason; nothing is written', { skip: !posix && 'a POSIX shell stands in for the trainer' }, async (t) => {
  const root = tempDir(t);
  const python = standInPython(root);
  const out = path.join(root, 'exports', 'step-000001-onnx');
  const refused = await runExport({ python, env: { STANDIN_MODE: 'refuse' }, weightsDir: root, format: 'onnx', out });
  assert.deepEqual(refused, { status: 'failed', reason: 'refused: --checkpoint x: not a model directory (no config.json or adapter_config.json)' });
  const noOnnx = await runExport({ python, env: { STANDIN_MODE: 'noonnx' }, weightsDir: root, format: 'onnx', out });
  assert.equal(noOnnx.status === 'failed' && noOnnx.missingExtra, 'export');
  assert.ok(!existsSync(out));
});

test('a cancel ends the trainer and removes the half-written folder (and the exports/ it made)', { skip: !posix && 'a POSIX shell stands in for the trainer' }, async (t) => {
  const root = tempDir(t);
  const python = standInPython(root);
  const runDir = path.join(root, 'runs', 'r');
  mkdirSync(runDir, { recursive: true });
  const out = path.join(runDir, 'exports', 'step-000001-onnx');
  const controller = new AbortController();
  const started = path.join(runDir, 'exports', '.started');
  const watcher = setInterval(() => {
    if (!existsSync(started)) return;
    rmSync(started);
    controller.abort();
  }, 50);
  t.after(() => clearInterval(watcher));
  const began = Date.now();
  const outcome = await runExport({ python, env: { STANDIN_MODE: 'hang' }, weightsDir: root, format: 'onnx', out, signal: controller.signal });
  assert.ok(Date.now() - began < 20_000, 'the trainer was ended, not waited for');
  assert.deepEqual(outcome, { status: 'cancelled', removed: [partialExportDir(out), path.dirname(out)] });
  assert.deepEqual(readdirSync(runDir), []);
});
