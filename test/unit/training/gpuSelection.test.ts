// GPU selection for "SEED: Train": nvidia-smi's GPU list parsed from its outputs (two H200s, a MIG device without
// memory figures, a name with a comma, no GPU, a driver that does not answer, a missing binary), the memory estimate
// of an experiment (the docs/trainer.md table for a Qwen2.5-0.5B shape; the shipped tiny policy counted from its
// weights), and the warning when the GPUs picked cannot hold it. nvidia-smi is run for real: a script prints each
// output with the exit status nvidia-smi gives it.
import assert from 'node:assert/strict';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseNvidiaSmi, queryGpus } from '../../../src/training/core/gpuQuery';
import { GIB, estimateTrainingMemory, fitWarnings, loraParameters, readModelShape, shardedStateBytes, trainingSettings } from '../../../src/training/core/memoryEstimate';
import { experimentEstimate, launchWarning } from '../../../src/training/core/gpuChoice';
import { repoRoot } from '../support/repoPaths';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'nvidia-smi');
const fixture = (name: string): string => readFileSync(path.join(fixtures, name), 'utf8');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-gpus-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as Record<string, unknown>;
const MIB = 2 ** 20;

/** An executable standing in for nvidia-smi: prints `output` (stdout or stderr) and exits with `code`. */
function fakeNvidiaSmi(name: string, output: string, code: number, stream: 'stdout' | 'stderr' = 'stdout'): string {
  const data = path.join(scratch, `${name}.out`);
  writeFileSync(data, output);
  const script = path.join(scratch, name);
  writeFileSync(script, `#!/bin/sh\ncat '${data}'${stream === 'stderr' ? ' >&2' : ''}\nexit ${code}\n`);
  chmodSync(script, 0o755);
  return script;
}

test('nvidia-smi: two H200s with their free memory', async () => {
  const result = await queryGpus({ binary: fakeNvidiaSmi('two', fixture('two-h200.csv'), 0) });
  assert.ok(result.ok);
  assert.deepEqual(result.gpus, [
    { index: 0, name: 'NVIDIA H200', totalBytes: 143771 * MIB, usedBytes: 612 * MIB, freeBytes: 142567 * MIB },
    { index: 1, name: 'NVIDIA H200', totalBytes: 143771 * MIB, usedBytes: 98304 * MIB, freeBytes: 44875 * MIB },
  ]);
});

test('nvidia-smi: [N/A] memory (MIG) is unknown, not zero; a comma in a name stays in the name', () => {
  assert.deepEqual(parseNvidiaSmi(fixture('mig-na.csv')), [{ index: 0, name: 'NVIDIA A100-SXM4-80GB', totalBytes: 81920 * MIB }]);
  const gpus = parseNvidiaSmi(fixture('comma-name.csv'));
  assert.deepEqual(gpus.map((g) => [g.index, g.name, g.freeBytes]), [
    [0, 'NVIDIA GeForce RTX 4090', 24103 * MIB],
    [1, 'Tesla T4, Custom', 15101 * MIB],
  ]);
});

test('nvidia-smi: an output it does not understand is an error that names the line', () => {
  assert.throws(() => parseNvidiaSmi(fixture('units-not-stripped.csv')), /line 1: memory.total is "143771 MiB", not a number of MiB/);
  assert.throws(() => parseNvidiaSmi('0, H200, 1\n'), /line 1: expected index, name, total, used, free/);
  assert.throws(() => parseNvidiaSmi('\nGPU0, H200, 1, 2, 3\n'), /line 2: the index is "GPU0"/);
});

test('no GPU: "No devices were found" (nvidia-smi exits 6) is an empty list; no nvidia-smi is a reason', async () => {
  const none = await queryGpus({ binary: fakeNvidiaSmi('none', fixture('no-devices.txt'), 6) });
  assert.deepEqual(none, { ok: true, gpus: [] });
  const missing = await queryGpus({ binary: path.join(scratch, 'no-such-nvidia-smi') });
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.reason : '', /not found \(no NVIDIA driver on this machine\)/);
});

test('a failing nvidia-smi (driver not loaded, exit 9) is a reason quoting what it said', async () => {
  const failed = await queryGpus({ binary: fakeNvidiaSmi('driver', fixture('driver-failure.txt'), 9) });
  assert.equal(failed.ok, false);
  assert.match(!failed.ok ? failed.reason : '', /failed: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver/);
  const garbled = await queryGpus({ binary: fakeNvidiaSmi('garbled', fixture('units-not-stripped.csv'), 0) });
  assert.match(!garbled.ok ? garbled.reason : '', /line 1: memory.total/);
  // A hung driver: execFile's timeout kills it and reports an error without output.
  const hung = await queryGpus({ timeoutMs: 1, exec: (_f, _a, _o, callback) => callback(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }), '', '') });
  assert.match(!hung.ok ? hung.reason : '', /failed: timed out/);
});

/** A safetensors file with these tensors (header only matters to the count; the data is zeros). */
function writeSafetensors(file: string, tensors: Record<string, number[]>): void {
  let offset = 0;
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  for (const [name, shape] of Object.entries(tensors)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(json.length));
  const fd = openSync(file, 'w');
  writeSync(fd, size);
  writeSync(fd, json);
  writeSync(fd, Buffer.alloc(1), 0, 1, 8 + json.length + offset - 1); // sparse: the file has its full length
  closeSync(fd);
}

/** Qwen2.5-0.5B's tensor shapes (hidden 896, 24 layers, 14 heads, 2 KV heads, MLP 4864, vocabulary 151 936, tied). */
function qwen05bFolder(): string {
  const dir = path.join(scratch, 'qwen05b');
  rmSync(dir, { recursive: true, force: true });
  const tensors: Record<string, number[]> = { 'model.embed_tokens.weight': [151936, 896], 'model.norm.weight': [896] };
  for (let l = 0; l < 24; l += 1) {
    const p = `model.layers.${l}`;
    Object.assign(tensors, {
      [`${p}.self_attn.q_proj.weight`]: [896, 896], [`${p}.self_attn.q_proj.bias`]: [896],
      [`${p}.self_attn.k_proj.weight`]: [128, 896], [`${p}.self_attn.k_proj.bias`]: [128],
      [`${p}.self_attn.v_proj.weight`]: [128, 896], [`${p}.self_attn.v_proj.bias`]: [128],
      [`${p}.self_attn.o_proj.weight`]: [896, 896],
      [`${p}.mlp.gate_proj.weight`]: [4864, 896], [`${p}.mlp.up_proj.weight`]: [4864, 896], [`${p}.mlp.down_proj.weight`]: [896, 4864],
      [`${p}.input_layernorm.weight`]: [896], [`${p}.post_attention_layernorm.weight`]: [896],
    });
  }
  // Two shards and an index, as large checkpoints come.
  const names = Object.keys(tensors);
  const half = Math.floor(names.length / 2);
  const shards = { 'model-00001-of-00002.safetensors': names.slice(0, half), 'model-00002-of-00002.safetensors': names.slice(half) };
  const weightMap: Record<string, string> = {};
  for (const [file, part] of Object.entries(shards)) {
    for (const name of part) weightMap[name] = file;
    mkdirSync(dir, { recursive: true });
    writeSafetensors(path.join(dir, file), Object.fromEntries(part.map((n) => [n, tensors[n]!])));
  }
  writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ hidden_size: 896, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, vocab_size: 151936, tie_word_embeddings: true }));
  return dir;
}

test('estimate: the Qwen2.5-0.5B shape gives the docs table (8.3 GiB full; LoRA 1.0 GiB there, with ~1 % adapters) before activations', () => {
  const shape = readModelShape(qwen05bFolder());
  assert.equal(shape.parameters, 494_032_768);
  assert.equal(shape.kvWidth, 128);
  const full = estimateTrainingMemory(shape, trainingSettings(parseYaml('model: {path: x}'), schema));
  assert.equal((full.stateBytes / GIB).toFixed(1), '8.3');
  const loraSettings = trainingSettings(parseYaml('model: {path: x, lora: {r: 16}}'), schema);
  const lora = estimateTrainingMemory(shape, loraSettings);
  // r × (in + out) over every linear layer but the embeddings: 16 × 24 × (1792 + 1024 + 1024 + 1792 + 3 × 5760),
  // 1.8 % of the model (the docs table rounds adapters to ~1 %: 1.0 GiB; counted, the state is 1.05 GiB).
  assert.equal(loraParameters(shape, loraSettings.lora!), 16 * 24 * (1792 + 1024 + 1024 + 1792 + 3 * 5760));
  assert.equal(lora.trainableParameters, 8_798_208);
  assert.equal(lora.stateBytes, shape.parameters * 2 + 8_798_208 * 16);
  assert.equal((lora.stateBytes / GIB).toFixed(2), '1.05');
  const narrow = trainingSettings(parseYaml('model: {path: x, lora: {r: 8, target_modules: [q_proj, v_proj]}}'), schema);
  assert.equal(loraParameters(shape, narrow.lora!), 8 * 24 * (1792 + 1024));
  // Activations: the schema's defaults (micro-batch 8 × (2048 + 512) tokens); less with micro_batch_tokens and checkpointing.
  assert.ok(full.activationBytes! > 10 * GIB, `${full.activationBytes! / GIB} GiB`);
  const lean = estimateTrainingMemory(shape, trainingSettings(parseYaml('model: {path: x, gradient_checkpointing: true}\nrl: {micro_batch_tokens: 4096}'), schema));
  assert.ok(lean.activationBytes! < full.activationBytes! / 4);
  assert.equal(lean.totalBytes, lean.stateBytes + Math.max(lean.activationBytes!, lean.kvCacheBytes!));
  assert.match(full.summary, /^about \d+\.\d GiB per GPU \(an estimate: 8\.3 GiB weights, gradients, optimizer state and reference \(0\.49 B parameters\); .* activations and logits for 20,480 tokens per micro-batch; .* KV cache while generating\)$/);
  const fp32 = estimateTrainingMemory(shape, trainingSettings(parseYaml('model: {path: x, dtype: float32}'), schema));
  assert.equal(fp32.stateBytes, shape.parameters * 20);
});

test('estimate: distributed.strategy fsdp divides the fp32 state by the GPUs, keeps two whole compute-dtype copies and two gathered layers', () => {
  const shape = readModelShape(qwen05bFolder());
  // one decoder layer: q 896·896+896, k and v 128·896+128, o 896·896, MLP 3·896·4864, two norms of 896
  assert.equal(shape.largestLayerParameters, 896 * 896 + 896 + 2 * (128 * 896 + 128) + 896 * 896 + 3 * 896 * 4864 + 2 * 896);
  assert.equal(shape.largestLayerParameters, 14_912_384);
  const fsdp = trainingSettings(parseYaml('model: {path: x}\ndistributed: {strategy: fsdp}'), schema);
  assert.equal(fsdp.strategy, 'fsdp');
  // by hand: 494 032 768 · 16 / 8 + 494 032 768 · 2 · 2 + 2 · 14 912 384 · (2 + 4)
  assert.equal(shardedStateBytes(494_032_768, 14_912_384, 2, 8), 988_065_536 + 1_976_131_072 + 178_948_608);
  const eight = estimateTrainingMemory(shape, fsdp, 8);
  assert.equal(eight.stateBytes, 3_143_145_216);
  assert.equal((eight.stateBytes / GIB).toFixed(2), '2.93');
  assert.ok(eight.sharded && eight.processes === 8);
  assert.match(eight.summary, /2\.9 GiB weights, gradients, optimizer state and reference \(0\.49 B parameters, sharded over 8 GPUs\)/);
  // one process has nothing to shard; replicate keeps a whole replica per GPU; LoRA is never sharded
  const replicated = estimateTrainingMemory(shape, trainingSettings(parseYaml('model: {path: x}'), schema), 8);
  assert.equal(estimateTrainingMemory(shape, fsdp, 1).stateBytes, replicated.stateBytes);
  assert.equal(replicated.stateBytes, 494_032_768 * 18);
  assert.ok(!replicated.sharded);
  const lora = trainingSettings(parseYaml('model: {path: x, lora: {r: 16}}'), schema);
  assert.equal(estimateTrainingMemory(shape, lora, 2).stateBytes, estimateTrainingMemory(shape, lora).stateBytes);
});

test('launch: a full fine-tune that needs more than a GPU as a replica fits when sharded over the GPUs picked', () => {
  const dir = qwen05bFolder();
  const text = `model: {path: ${JSON.stringify(dir)}, gradient_checkpointing: true}\nrl: {micro_batch_tokens: 1024}\ndistributed: {strategy: fsdp}`;
  const estimated = experimentEstimate(text, path.join(scratch, 'x.seed.yaml'), repoRoot);
  assert.ok(estimated.ok, estimated.ok ? '' : estimated.reason);
  const one = estimated.forProcesses(1);
  const four = estimated.forProcesses(4);
  assert.equal(one.stateBytes - four.stateBytes, 494_032_768 * 18 - shardedStateBytes(494_032_768, 14_912_384, 2, 4));
  // a GPU with room between the two: warned about one replica, not about a quarter of the state
  const room = (one.totalBytes + four.totalBytes) / 2;
  const gpus = [0, 1, 2, 3].map((index) => ({ index, name: 'G', totalBytes: room, freeBytes: room }));
  assert.match(launchWarning(one, gpus.slice(0, 1)) ?? '', /whole replica/);
  assert.equal(launchWarning(four, gpus), undefined);
  const tight = gpus.map((gpu) => ({ ...gpu, freeBytes: four.totalBytes - 1 }));
  assert.match(launchWarning(four, tight) ?? '', /Each of the 4 GPUs holds 1\/4 of the fp32 training state/);
});

test('estimate: the shipped tiny policy is counted from its weights; a folder without weights is a clear error', () => {
  const shape = readModelShape(path.join(repoRoot, 'trainer', 'seed_trainer', 'assets', 'household-tiny'));
  // Qwen3, hidden 96, 4 layers, MLP 256, 2 KV heads of 24 (no q/k/v biases; per-head q and k norms of 24),
  // vocabulary 4096, tied embeddings.
  const perLayer = 96 * 96 + 2 * (96 * 48) + 96 * 96 + 3 * 96 * 256 + 2 * 96 + 2 * 24;
  assert.equal(shape.parameters, 4096 * 96 + 4 * perLayer + 96);
  assert.throws(() => readModelShape(scratch), /no safetensors weights/);
});

test('fit: a warning for each GPU picked that cannot hold the estimate (free memory, else its total)', () => {
  const gpus = parseNvidiaSmi(fixture('two-h200.csv'));
  assert.deepEqual(fitWarnings({ totalBytes: 40 * GIB }, gpus), []);
  assert.deepEqual(fitWarnings({ totalBytes: 60 * GIB }, gpus), ['cuda:1 (NVIDIA H200) has 43.8 GiB free, the run needs 60.0 GiB']);
  assert.deepEqual(fitWarnings({ totalBytes: 90 * GIB }, parseNvidiaSmi(fixture('mig-na.csv'))), ['cuda:0 (NVIDIA A100-SXM4-80GB) has 80.0 GiB in all, the run needs 90.0 GiB']);
});
