#!/usr/bin/env node
// Fuzz benchmark of experiment-file validation on both sides: N seeded mutants
// (test/unit/support/experimentMutations.ts) fed to the editor's validator (in a worker thread, so a hang is cut off)
// and to the trainer's entry path (bench/robustness/experiment_fuzz_trainer.py: load_experiment + the run.json config,
// a forked child per file). Prints JSON: per side the crash / hang / memory / accepted / rejected counts, the
// disagreements over the files both judged, and the slowest files. Needs `npm run build` first.
//
//   node bench/robustness/experiment_fuzz.mjs [--count 1000] [--seed 17] [--timeout 20] [--huge]
//        [--editor out/src/experiments/core/experimentSchema.js] [--schema schemas/experiment.schema.json]
//        [--trainer-path trainer] [--keep DIR]
// --editor / --schema / --trainer-path point at another build (e.g. an older checkout) to measure it with the same files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
}
const count = Number(option('count', '1000'));
const seed = Number(option('seed', '17'));
const timeoutSeconds = Number(option('timeout', '20'));
const editorModule = path.resolve(repoRoot, option('editor', 'out/src/experiments/core/experimentSchema.js'));
const trainerPath = path.resolve(repoRoot, option('trainer-path', 'trainer'));
const python = process.env.SEED_PYTHON ?? path.join(repoRoot, '.venv', 'bin', 'python');

const { mutants } = require(path.join(repoRoot, 'out/test/unit/support/experimentMutations.js'));
const files = mutants(repoRoot, seed, count, { huge: process.argv.includes('--huge') });
const keep = option('keep', undefined);
const dir = keep ? path.resolve(keep) : mkdtempSync(path.join(os.tmpdir(), 'seed-fuzz-'));
mkdirSync(dir, { recursive: true });
for (const file of files) writeFileSync(path.join(dir, file.name), file.bytes);

// ---- editor: one worker validates the files in turn; a file past the timeout ends the worker (a hang) --------------
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { ExperimentSchema } = require(workerData.editorModule);
const schema = new ExperimentSchema(JSON.parse(readFileSync(workerData.schemaFile, 'utf8')));
parentPort.on('message', (file) => {
  const bytes = readFileSync(file);
  const started = performance.now();
  try {
    // An older validator has no validateBytes: give it the text as VS Code would decode it.
    const problems = schema.validateBytes ? schema.validateBytes(bytes) : schema.validate(new TextDecoder().decode(bytes));
    const errors = problems.filter((p) => p.severity === 'error');
    parentPort.postMessage({ outcome: errors.length ? 'rejected' : 'accepted', seconds: (performance.now() - started) / 1000,
      detail: errors[0] ? errors[0].message.slice(0, 300) : undefined });
  } catch (error) {
    parentPort.postMessage({ outcome: error instanceof RangeError && /memory|allocation/i.test(error.message) ? 'memory' : 'crash',
      seconds: (performance.now() - started) / 1000, detail: String(error && error.stack || error).split('\\n').slice(0, 2).join(' ').slice(0, 300) });
  }
});`;
const schemaFile = path.resolve(repoRoot, option('schema', 'schemas/experiment.schema.json'));

function editorVerdicts() {
  return new Promise((resolve) => {
    const results = new Map();
    let worker;
    let index = 0;
    let timer;
    const start = () => {
      worker = new Worker(workerSource, { eval: true, workerData: { editorModule, schemaFile }, resourceLimits: { maxOldGenerationSizeMb: 3072 } });
      worker.on('message', (result) => {
        clearTimeout(timer);
        results.set(files[index].name, result);
        index += 1;
        next();
      });
      worker.on('error', (error) => {
        clearTimeout(timer);
        results.set(files[index].name, { outcome: /memory/i.test(String(error)) ? 'memory' : 'crash', detail: String(error).slice(0, 300) });
        index += 1;
        start();
        next();
      });
    };
    const next = () => {
      if (index >= files.length) {
        void worker.terminate();
        resolve(results);
        return;
      }
      const name = files[index].name;
      timer = setTimeout(() => {
        results.set(name, { outcome: 'hang', detail: `> ${timeoutSeconds} s` });
        index += 1;
        worker.removeAllListeners();
        void worker.terminate();
        start();
        next();
      }, timeoutSeconds * 1000);
      worker.postMessage(path.join(dir, name));
    };
    start();
    next();
  });
}

function trainerVerdicts() {
  const run = spawnSync(python, [path.join(repoRoot, 'bench', 'robustness', 'experiment_fuzz_trainer.py'), dir, '--timeout', String(timeoutSeconds)], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: trainerPath, OMP_NUM_THREADS: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`trainer harness failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return new Map(run.stdout.trim().split('\n').filter(Boolean).map((line) => {
    const result = JSON.parse(line);
    return [result.file, result];
  }));
}

/** A failure's detail without the temporary folder the files were written to. */
const local = (text) => (typeof text === 'string' ? text.split(`${dir}${path.sep}`).join('') : text);

function summary(results) {
  const counts = { accepted: 0, rejected: 0, crash: 0, hang: 0, memory: 0 };
  for (const result of results.values()) counts[result.outcome] = (counts[result.outcome] ?? 0) + 1;
  const slowest = [...results.entries()].filter(([, r]) => r.seconds !== undefined).sort((a, b) => b[1].seconds - a[1].seconds).slice(0, 3)
    .map(([file, r]) => ({ file, seconds: Number(r.seconds.toFixed(3)) }));
  const failures = [...results.entries()].filter(([, r]) => ['crash', 'hang', 'memory'].includes(r.outcome)).slice(0, 8)
    .map(([file, r]) => ({ file, outcome: r.outcome, detail: local(r.detail) }));
  return { ...counts, slowest, failures };
}

const editor = await editorVerdicts();
const trainer = trainerVerdicts();
const judged = ['accepted', 'rejected'];
const disagreements = [];
let bothJudged = 0;
for (const file of files) {
  const e = editor.get(file.name);
  const t = trainer.get(file.name);
  if (!e || !t || !judged.includes(e.outcome) || !judged.includes(t.outcome)) continue;
  bothJudged += 1;
  if (e.outcome !== t.outcome) disagreements.push({ file: file.name, recipe: file.recipe.join(' + '), editor: local(e.detail) ?? 'accepted', trainer: local(t.detail) ?? 'accepted' });
}
console.log(JSON.stringify({
  seed, count, timeout_s: timeoutSeconds, editor_module: path.relative(repoRoot, editorModule), trainer_path: path.relative(repoRoot, trainerPath),
  editor: summary(editor), trainer: summary(trainer),
  both_judged: bothJudged, disagreements: disagreements.length, disagreement_examples: disagreements.slice(0, 12),
}, null, 2));
if (!keep) rmSync(dir, { recursive: true, force: true });
