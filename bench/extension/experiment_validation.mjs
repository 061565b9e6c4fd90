#!/usr/bin/env node
// Experiment-file validation in the editor: is it linear in the file, and how long does it stop the extension host?
// Needs `npm run build` first. Prints JSON.
//
//   node bench/extension/experiment_validation.mjs [--runs 3] [--before path/to/old/experimentSchema.js]
//
// Inputs: a committed example plus N unknown top-level keys (one problem each: the case that used to be quadratic),
// at about 64 KB, 256 KB and 1 MB (the size limit is 1 MiB).
// - linearity: milliseconds per 100 KB at each size, and the 1 MB time over the 256 KB time (4 is linear, 16 quadratic);
//   `--before` measures an older validator (e.g. the previous commit's, bundled) on the same inputs.
// - host stop: the longest gap between 1 ms timer ticks while ExperimentService validates the 1 MB text (in its worker
//   thread), against the same gap when the text is validated on the calling thread (the baseline, same process).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const runs = Number(option('runs', '3'));
const before = option('before', undefined);

const { ExperimentSchema } = require(path.join(repoRoot, 'out/src/experiments/core/experimentSchema.js'));
const { ExperimentService } = require(path.join(repoRoot, 'out/src/experiments/core/experimentService.js'));
const schemaJson = JSON.parse(readFileSync(path.join(repoRoot, 'schemas/experiment.schema.json'), 'utf8'));
const base = readFileSync(path.join(repoRoot, 'examples/household-seed.seed.yaml'), 'utf8');

function withUnknownKeys(targetBytes) {
  const rows = [];
  let size = base.length;
  for (let i = 0; size < targetBytes; i += 1) {
    const row = `unknown_key_${i}: ${i}`;
    rows.push(row);
    size += row.length + 1;
  }
  return { text: `${base}\n${rows.join('\n')}\n`, keys: rows.length };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function timeSync(validate, text) {
  const times = [];
  let problems = 0;
  for (let r = 0; r < runs; r += 1) {
    const t0 = performance.now();
    problems = validate(text).length;
    times.push(performance.now() - t0);
  }
  return { ms: median(times), problems };
}

/** The longest gap between 1 ms ticks while `work()` runs (its own time included when it blocks). */
async function longestStop(work) {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  last = performance.now();
  const t0 = performance.now();
  await work();
  const total = performance.now() - t0;
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(timer);
  return { longest_stop_ms: Number(longest.toFixed(1)), total_ms: Number(total.toFixed(1)) };
}

const sizes = [64_000, 256_000, 1_000_000];
const inputs = sizes.map((bytes) => ({ bytes, ...withUnknownKeys(bytes) }));
const schema = new ExperimentSchema(schemaJson);
const report = { runs, inputs: inputs.map(({ bytes, keys }) => ({ bytes, unknown_keys: keys })) };

function linearity(validate) {
  validate(inputs[0].text); // warm-up: the first call compiles the code paths, which is not what is measured
  const rows = inputs.map(({ bytes, text }) => ({ bytes, ...timeSync(validate, text) }));
  return {
    rows: rows.map((r) => ({ bytes: r.bytes, ms: Number(r.ms.toFixed(1)), ms_per_100kb: Number(((r.ms / r.bytes) * 100_000).toFixed(2)), problems: r.problems })),
    ratio_1mb_over_256kb: Number((rows[2].ms / rows[1].ms).toFixed(2)),
  };
}

report.linearity = linearity((text) => schema.validate(text));
if (before) {
  const old = new (require(path.resolve(before)).ExperimentSchema)(schemaJson);
  report.linearity_before = linearity((text) => old.validate(text));
}

const big = inputs[2].text;
const service = new ExperimentService(repoRoot);
const document = (version) => ({ uri: { toString: () => `bench:${version}` }, version, getText: () => big });
// Warm the worker (start + schema compile) outside the measurement, as the extension's first validation would.
await service.problemsAsync(document(0));
const worker = [];
const sync = [];
for (let r = 1; r <= runs; r += 1) {
  worker.push(await longestStop(() => service.problemsAsync(document(r))));
  sync.push(await longestStop(async () => schema.validate(big)));
}
service.dispose();
const workerStop = median(worker.map((w) => w.longest_stop_ms));
const syncStop = median(sync.map((w) => w.longest_stop_ms));
report.host_stop_1mb = {
  worker: { longest_stop_ms: workerStop, total_ms: median(worker.map((w) => w.total_ms)) },
  baseline_same_thread: { longest_stop_ms: syncStop, total_ms: median(sync.map((w) => w.total_ms)) },
  ratio: Number((workerStop / syncStop).toFixed(3)),
};
console.log(JSON.stringify(report, null, 2));
