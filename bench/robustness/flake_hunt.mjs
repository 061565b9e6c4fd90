#!/usr/bin/env node
// Flake hunt: npm test's browser and code-server suites, N rounds in a row, each round run by scripts/test.mjs itself
// (SEED_TEST_ONLY), so the suites run as npm test runs them: two at a time, after the build and the VSIX. Prints JSON:
// per suite the rounds, the failed rounds and the failed tests' lines; the 1-minute load average seen every 10 s.
// Start the load yourself (another process keeping the cores busy) and name it with --load: the report carries it.
//
//   node bench/robustness/flake_hunt.mjs [--rounds 5] [--only '\((Chromium|code-server)\)'] [--load "what ran beside"]
//        [--out FILE] [--logs DIR]
// --logs keeps each round's whole output (round-N.log), to trace a failure to its race.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
}
if (process.argv.includes('--help')) {
  console.log('usage: node bench/robustness/flake_hunt.mjs [--rounds 5] [--only REGEX] [--load TEXT] [--out FILE] [--logs DIR]');
  process.exit(0);
}
const rounds = Number(option('rounds', '5'));
const only = option('only', '\\((Chromium|code-server)\\)');
const load = option('load', 'none named');
const out = option('out', undefined);
const logs = option('logs', undefined);
const hunted = new RegExp(only);

/** One round: scripts/test.mjs restricted to the chosen suites; resolves with its output and exit code. */
function round() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/test.mjs'], {
      cwd: repoRoot,
      env: { ...process.env, SEED_TEST_ONLY: only, ONNXRUNTIME_NODE_INSTALL: 'skip' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('close', (code) => resolve({ code, text }));
  });
}

/** The suites of test.mjs's summary: `  ok   <label> <s> s / <budget> s …` or `  FAIL …`, then the failed tests' lines
 * (indented 7 spaces) under a FAIL. */
export function summaryRows(text) {
  const summary = text.slice(text.lastIndexOf('npm test summary'));
  const rows = [];
  for (const line of summary.split('\n')) {
    const suite = /^ {2}(ok {2}|FAIL) (.+?)\s+([\d.]+) s \/\s+(?:\d+|\?) s/.exec(line);
    if (suite) rows.push({ label: suite[2], ok: suite[1] !== 'FAIL', seconds: +suite[3], failures: [] });
    else if (/^ {7}\S/.test(line) && rows.length && !rows.at(-1).ok) rows.at(-1).failures.push(line.trim());
  }
  return rows;
}

async function main() {
  const loads = [];
  const sampler = setInterval(() => loads.push(os.loadavg()[0]), 10_000);
  const suites = new Map();
  const started = Date.now();
  for (let r = 1; r <= rounds; r++) {
    const { code, text } = await round();
    if (logs) {
      mkdirSync(logs, { recursive: true });
      writeFileSync(path.join(logs, `round-${r}.log`), text);
    }
    const rows = summaryRows(text);
    if (!rows.length) {
      console.error(text.slice(-3000));
      throw new Error(`round ${r}: scripts/test.mjs printed no summary (exit ${code})`);
    }
    // the chosen suites only: the setup, the build and the VSIX they wait for are not what is hunted
    for (const row of rows.filter((row) => hunted.test(row.label))) {
      const entry = suites.get(row.label) ?? { rounds: 0, failed_rounds: 0, seconds: [], failures: [] };
      entry.rounds += 1;
      entry.seconds.push(row.seconds);
      if (!row.ok) {
        entry.failed_rounds += 1;
        entry.failures.push(...row.failures.map((line) => `round ${r}: ${line}`));
      }
      suites.set(row.label, entry);
    }
    console.error(`[flake hunt] round ${r}/${rounds}: exit ${code}, ${rows.filter((row) => !row.ok).length} suites failed`);
  }
  clearInterval(sampler);
  const sorted = [...loads].sort((a, b) => a - b);
  const report = {
    rounds,
    only,
    load,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    load_average_1min: sorted.length ? { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted.at(-1) } : null,
    minutes: +((Date.now() - started) / 60_000).toFixed(1),
    suites: Object.fromEntries(suites),
  };
  const json = JSON.stringify(report, null, 2);
  if (out) writeFileSync(out, `${json}\n`);
  console.log(json);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
