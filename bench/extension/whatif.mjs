#!/usr/bin/env node
// What-if rescoring latency in the extension host, printed as one JSON object:
//   a 30-step trajectory rescored under one skill (student and teacher passes: 60 forward passes), then a second skill
//   (the student passes are kept: 30 more), with the tiny household policy's export and, given a path, any other
//   export (bench/extension/qwen_shaped_export.py writes a Qwen2.5-0.5B-shaped one). Baseline in the same process: the same
//   forward passes through onnxruntime-node alone (input ids prepared, no tokenizer, no log-softmax) — the ratio is
//   what our prompt building and log-prob extraction add on top of the model.
//
//   npm run build && node bench/extension/whatif.mjs [--steps 30] [--export DIR …]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { Rescorer } = require(path.join(repoRoot, 'out', 'src', 'whatIf', 'core', 'rescore.js'));
const { PromptEncoder } = require(path.join(repoRoot, 'out', 'src', 'whatIf', 'core', 'promptTokens.js'));
const { loadOnnxExport } = require(path.join(repoRoot, 'out', 'src', 'whatIf', 'core', 'onnxExport.js'));
const ort = require('onnxruntime-node');

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const STEPS = Number(arg('--steps', 30));
const exports = [path.join(repoRoot, 'test', 'fixtures', 'rescore', 'household-tiny-onnx')];
process.argv.forEach((value, i) => value === '--export' && exports.push(process.argv[i + 1]));
const vectors = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'rescore', 'vectors.json'), 'utf8'));
const round = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A trajectory of STEPS steps: the shared vectors' household prompt with the step number in its observation. */
function trajectory() {
  const base = vectors.cases[0].prompt;
  return Array.from({ length: STEPS }, (_, t) => ({
    t,
    prompt: base.replace('In it, you see', `Step ${t}: in it, you see`),
    responseIds: vectors.response_ids,
  }));
}

async function benchExport(dir) {
  const steps = trajectory();
  const bundle = loadOnnxExport(dir);
  const opened = performance.now();
  const rescorer = await Rescorer.open(dir, steps);
  const openMs = performance.now() - opened;
  const first = await rescorer.rescore(vectors.cases[0].teachers[0].skill);
  const second = await rescorer.rescore(vectors.cases[0].teachers[1].skill);
  await rescorer.close();

  // Baseline: the same 60 forward passes, ids prepared beforehand, nothing else.
  const encoder = new PromptEncoder(bundle, bundle.meta.prompt.skill);
  const limit = bundle.meta.prompt.max_prompt_tokens;
  const inputs = steps.flatMap((step) => [encoder.studentIds(step.prompt, limit), encoder.teacherIds(step.prompt, vectors.cases[0].teachers[0].skill, limit)].map((p) => [...p, ...step.responseIds]));
  const session = await ort.InferenceSession.create(bundle.modelPath, { executionProviders: ['cpu'], graphOptimizationLevel: 'all' });
  const started = performance.now();
  for (const ids of inputs) {
    const data = BigInt64Array.from(ids, (id) => BigInt(id));
    const out = await session.run({ input_ids: new ort.Tensor('int64', data, [1, ids.length]), attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]) });
    out.logits.dispose();
  }
  const baselineMs = performance.now() - started;
  await session.release();
  return {
    export: path.basename(dir),
    model_mib: round(bundle.modelBytes / 2 ** 20, 1),
    vocab: bundle.meta.vocab_size,
    steps: STEPS,
    prompt_tokens: round(inputs.reduce((n, ids) => n + ids.length, 0) / inputs.length - vectors.response_ids.length, 0),
    response_tokens: vectors.response_ids.length,
    open_s: round(openMs / 1000),
    first_skill_s: round(first.millis / 1000),
    second_skill_s: round(second.millis / 1000),
    baseline_forward_only_s: round(baselineMs / 1000),
    ratio_first_skill_to_baseline: round(first.millis / baselineMs),
    per_forward_pass_ms: round(first.millis / (2 * STEPS), 1),
  };
}

const results = [];
for (const dir of exports) results.push(await benchExport(dir));
process.stdout.write(`${JSON.stringify({ bench: 'whatif', machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version }, results }, null, 2)}\n`);
