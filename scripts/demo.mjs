#!/usr/bin/env node
// `npm run demo`: the embedded default end to end on CPU — the built-in household environment and the tiny policy
// bootstrapped for it (trainer/seed_trainer/assets/household-tiny; `--bootstrap` rebuilds it first) →
// evaluation of the base policy → Stage 1 (collect with the oracle analyzer, SFT on the analyses) → Stage 2 SEED for a
// short budget with a final evaluation on valid_seen and valid_unseen → a one-screen summary. The runs land in
// runs/household-demo-* (an earlier demo's runs of the same names are replaced), where the extension's Runs view
// finds them. Experiments: examples/household-demo.seed.yaml (base, Stage 1) and household-demo-stage2.seed.yaml.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureNodeModules, ensurePython, repoRoot } from './setup.mjs';
import { againstGrpoLines, weightsFingerprint } from './lib/againstGrpo.mjs';
import { step } from './lib/proc.mjs';
import { SPLITS, demoRuns, demoSteps } from './lib/demoSteps.mjs';

const MODEL = 'trainer/seed_trainer/assets/household-tiny';
const PREFIX = 'runs/household-demo';
const BENCHMARK = 'bench/results/learning.json';
const tty = process.stderr.isTTY;

function bar(label, done, total, extra, started) {
  const width = 28;
  const elapsed = ((Date.now() - started) / 1000).toFixed(0);
  let body;
  if (total) {
    const filled = Math.min(width, Math.round((width * done) / total));
    body = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
  } else {
    const at = Math.floor(Date.now() / 250) % width; // indeterminate: a moving marker
    body = `[${'.'.repeat(at)}#${'.'.repeat(width - at - 1)}]`;
  }
  const line = `  ${label.padEnd(20)} ${body} ${extra ?? ''} ${elapsed}s`;
  if (tty) {
    const room = (process.stderr.columns || 120) - 1; // never wrap: a wrapped line breaks the \r redraw
    process.stderr.write(`\r${line.slice(0, room).padEnd(Math.min(110, room))}`);
  }
  return line;
}

/** Runs `python -m seed_trainer ARGS`, drawing a progress bar from its JSON events; resolves with the events. */
function trainer(python, label, args, { env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(python, ['-m', 'seed_trainer', ...args], {
      cwd: repoRoot,
      env: { ...process.env, TQDM_DISABLE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const events = [];
    const successes = [];
    let state = { done: 0, total: 0, extra: '' };
    let buffer = '';
    let stderr = '';
    let last = '';
    const draw = () => (last = bar(label, state.done, state.total, state.extra, started));
    const timer = setInterval(draw, 250);
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let event;
        try {
          event = JSON.parse(line);
        } catch {
          continue;
        }
        events.push(event);
        if (event.type === 'iteration' && event.total) {
          // success of the last batch or update, and the mean so far (one batch alone says little)
          if (event.success !== undefined) successes.push(Number(event.success));
          const mean = successes.reduce((a, b) => a + b, 0) / Math.max(successes.length, 1);
          state = { done: event.step, total: event.total, extra: successes.length ? `success ${successes.at(-1).toFixed(2)} (mean ${mean.toFixed(2)})` : '' };
        } else if (event.type === 'progress' && event.total > 1) {
          state = { done: event.done ?? event.step ?? 0, total: event.total, extra: event.phase ?? '' };
        } else if (event.type === 'eval') {
          state.extra = `${event.split} ${Number(event.success).toFixed(2)}`;
        }
        draw();
      }
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.length > 20000) stderr = stderr.slice(-20000);
    });
    child.on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearInterval(timer);
      if (state.total) state.done = state.total;
      draw();
      if (tty) process.stderr.write('\n');
      else process.stdout.write(`${last}\n`);
      if (code !== 0) {
        const errors = events.filter((e) => e.type === 'error').map((e) => e.message);
        reject(new Error(`${label}: python -m seed_trainer ${args.join(' ')} exited with ${code}\n${errors.join('\n')}\n${stderr.split('\n').slice(-15).join('\n')}`));
      } else resolve(events);
    });
  });
}

function readJson(file) {
  return JSON.parse(readFileSync(path.join(repoRoot, file), 'utf8'));
}

function pct(x) {
  return x === undefined || x === null ? '   -' : `${(100 * x).toFixed(0).padStart(3)}%`;
}

async function summary(runs, seconds) {
  // Loaded here, after ensureNodeModules: it compiles src/runs/shared/pairedChange.ts with esbuild (a dev dependency).
  const { changeLine } = await import('./lib/demoChange.mjs');
  const before = Object.fromEntries(SPLITS.map((s) => [s, readJson(`${runs[`base-${s}`]}/eval/${s}.json`)]));
  const after = Object.fromEntries(SPLITS.map((s) => [s, readJson(`${runs.train}/eval/${s}.json`)]));
  const types = [...new Set(SPLITS.flatMap((s) => Object.keys(before[s].by_task_type)))].sort();
  const rows = [['task type', 'seen before', 'seen after', 'unseen before', 'unseen after']];
  const cell = (report, type) => (type ? report.by_task_type[type]?.success : report.overall.success);
  for (const type of [...types, null]) {
    rows.push([
      type ?? 'overall',
      ...SPLITS.flatMap((s) => [pct(cell(before[s], type)), pct(cell(after[s], type))]),
    ]);
  }
  const n = SPLITS.map((s) => `${s} n=${after[s].overall.n}`).join(', ');
  const metrics = readFileSync(path.join(repoRoot, runs.train, 'metrics.jsonl'), 'utf8')
    .split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.kind === 'update');
  const mean = (name) => {
    const values = metrics.map((r) => r[name]).filter((v) => typeof v === 'number');
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  };
  const lines = [];
  lines.push('');
  lines.push(`SEED demo: household environment, tiny policy on CPU — ${(seconds / 60).toFixed(1)} min`);
  lines.push(`Held-out success (plain prompt, ${n}; before = bootstrapped base policy, after = Stage 1 + ${metrics.length} SEED updates)`);
  for (const row of rows) lines.push(`  ${row[0].padEnd(32)}${row.slice(1).map((c) => c.padStart(15)).join('')}`);
  lines.push('Change in overall success (after − before):');
  for (const s of SPLITS) lines.push(changeLine(s, after[s], before[s]));
  const fmt = (v, d = 2) => (v === null ? '-' : v.toFixed(d));
  lines.push(`Stage 2: skill parse rate ${fmt(mean('skill/parse_rate'))}, gate mean ${fmt(mean('gate/mean'))}, ` +
    `g > 0.5 ${fmt(mean('gate/frac_gt_half'))}, OPD-active tokens ${fmt(mean('opd/active_ratio'))}, ` +
    `valid actions ${fmt(mean('episode/valid_action_ratio'))}`);
  let benchmark;
  try {
    benchmark = readJson(BENCHMARK);
  } catch {
    benchmark = undefined; // missing or unreadable: the line says there is nothing to compare
  }
  lines.push(...againstGrpoLines(benchmark, BENCHMARK, weightsFingerprint(path.join(repoRoot, MODEL))));
  lines.push('Runs (open them in VS Code: SEED view → Runs):');
  for (const [name, dir] of Object.entries(runs)) lines.push(`  ${name.padEnd(18)} ${dir}`);
  return lines.join('\n');
}

async function main() {
  const started = Date.now();
  ensureNodeModules();
  const python = ensurePython();
  const rebuild = process.argv.includes('--bootstrap');
  if (rebuild || !existsSync(path.join(repoRoot, MODEL, 'model.safetensors'))) {
    step(`Bootstrapping the tiny policy into ${MODEL} (python -m seed_trainer.bootstrap)`);
    const done = await new Promise((resolve) => {
      const child = spawn(python, ['-m', 'seed_trainer.bootstrap', MODEL], { cwd: repoRoot, stdio: 'inherit' });
      child.on('close', resolve);
    });
    if (done !== 0) throw new Error('bootstrap failed');
  }
  const runs = demoRuns(PREFIX);
  for (const dir of Object.values(runs)) {
    if (existsSync(path.join(repoRoot, dir))) rmSync(path.join(repoRoot, dir), { recursive: true, force: true });
  }
  for (const { heading, label, args } of demoSteps(runs)) {
    if (heading) step(heading);
    await trainer(python, label, args);
  }
  console.log(await summary(runs, (Date.now() - started) / 1000));
}

main().catch((error) => {
  if (tty) process.stderr.write('\n');
  console.error(`\nnpm run demo failed: ${error.message}`);
  process.exit(1);
});
