#!/usr/bin/env node
// `npm test`: sets up what is missing (see setup.mjs; its npm, Python and system parts side by side), builds, then runs
// every suite, two at a time (SEED_TEST_JOBS), and prints a summary:
// typecheck · lint · import cycles · ruff · duplicated blocks · commit subjects · the VSIX · TS unit tests (node:test) ·
// pytest · the extension's integration suite in a real VS Code (code-server; or desktop VS Code via
// @vscode/test-electron when VSCODE_EXECUTABLE_PATH is set) · the UI suites in headless Chromium. A suite that fails
// does not stop the others; the exit code is non-zero if any failed.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { ensurePython, ensureVerlPython, ensureVllmPython, repoRoot, trainerInterpreter } from './setup.mjs';
import { runJobs } from './lib/jobs.mjs';
import { capture, step } from './lib/proc.mjs';

/** Runs a command, streaming its output, and resolves with its exit code and the captured text. */
function runStreaming(command, args, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const forward = (stream, sink) =>
      stream.on('data', (chunk) => {
        text += chunk;
        sink.write(chunk);
      });
    forward(child.stdout, process.stdout);
    forward(child.stderr, process.stderr);
    child.on('error', (error) => resolve({ code: 127, text: `${text}\n${error.message}` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), text }));
  });
}

// Each parser reads the runner's own closing lines; null when the runner printed none (counted as failure).
const countParsers = {
  nodeTest: (text) => {
    const pass = /^# pass (\d+)$/m.exec(text);
    const fail = /^# fail (\d+)$/m.exec(text);
    const skipped = /^# skipped (\d+)$/m.exec(text);
    return pass && fail ? { passed: +pass[1], failed: +fail[1], skipped: skipped ? +skipped[1] : 0 } : null;
  },
  pytest: (text) => {
    // "=== 170 passed, 2 skipped in 9.1s ===" (or the same without the rules under -q)
    const line = [...text.matchAll(/^=*\s*(\d+ (?:passed|failed|errors?|skipped)\b.*) in [\d.]+s\b/gm)].pop()?.[1];
    if (!line) return null;
    const count = (word) => +(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
    return { passed: count('passed'), failed: count('failed') + count('errors?'), skipped: count('skipped'), deselected: count('deselected') };
  },
  // The VS Code runners print "<label>: N passed, M failed" from the suite's own result file.
  passedFailed: (text) => {
    const match = [...text.matchAll(/(\d+) passed, (\d+) failed(?:, (\d+) skipped)?/g)].pop();
    return match ? { passed: +match[1], failed: +match[2], skipped: +(match[3] ?? 0) } : null;
  },
};

// The 10 minutes a fresh clone's `npm test` may take on 2 cores (issue 42), and each suite's share, in seconds: its wall
// time as npm test runs it, beside another suite (so the suites' times add up to more than the total), measured on a
// fresh clone with warm package caches and little else running (about 480 s in all), plus a quarter. The summary
// prints each beside the time and flags one over it; that fails nothing (a loaded machine runs everything slower),
// but a new test is held to its suite's budget.
const TOTAL_BUDGET = 600;
const BUDGETS = {
  // With warm package caches (a machine's first run also downloads, installs Chromium and builds code-server).
  'setup: npm packages': 40,
  'setup: trainer Python': 110,
  'setup: Chromium, code-server': 5,
  build: 5,
  typecheck: 25,
  lint: 20,
  'import cycles': 10,
  'feature import cycles': 10,
  'python lint (ruff)': 5,
  'duplicated blocks (jscpd)': 5,
  'commit subjects': 2,
  'package (vsce)': 20,
  'unit (node:test)': 75,
  // The critical path: it starts once the Python part is done and shares the cores with the suites below.
  'trainer (pytest)': 420,
  'vscode integration': 120,
  'reattach after reload (code-server)': 60,
  'ui smoke (Chromium)': 30,
  'ui train + dashboard (Chromium)': 50,
  'webview (Chromium)': 55,
  'trajectory & review ui (code-server)': 42,
  'dashboard compare & fitted heatmap ui (code-server)': 45,
  'runs table & evaluation samples ui (code-server)': 30,
  'premise report ui (code-server)': 35,
  'what-if ui (code-server)': 50,
  'export checkpoint ui (code-server)': 110,
  'walkthrough ui (code-server)': 35,
  'live before/after ui (code-server)': 30,
};
const budgetOf = (label) => BUDGETS[label] ?? BUDGETS[label.replace(/ \(.*\)$/, '')];

// The trainer tests `npm test` deselects (pytest markers, trainer/pyproject.toml): each needs what a fresh clone lacks or
// minutes of its own, and has a command of its own, which .ci/run runs after npm test. Deselected, not skipped: a skip
// in npm test's tally means something was missing that should not have been (a GPU).
const DESELECTED_SUITES = [
  { marker: 'vllm', what: 'the vLLM rollout engine', command: 'npm run test:vllm' },
  { marker: 'smollm2_heavy', what: 'the heavy SmolLM2-135M paths', command: 'npm run test:smollm2' },
  { marker: 'verl', what: 'export-verl against verl 0.9.1', command: 'npm run test:verl' },
  { marker: 'peer', what: 'the equal-batch check against TRL 1.16', command: 'npm run test:peer' },
];
const DESELECT_EXPRESSION = DESELECTED_SUITES.map((s) => `not ${s.marker}`).join(' and ');

/** The one line that says what the trainer suite left out and which command runs it (pytest counts the deselected
 * tests only when it runs without xdist workers). */
function deselectedLine(count) {
  const suites = DESELECTED_SUITES.map((s) => `${s.what} (${s.command})`).join(', ');
  const tests = count ? `${count} trainer tests deselected` : `trainer tests deselected by marker: -m "${DESELECT_EXPRESSION}"`;
  return `Not run by npm test (${tests}; .ci/run runs them after it): ${suites}.`;
}

/** pytest's arguments for the trainer suite: in parallel over the cores (pytest-xdist, one worker per core, at most
 * 4: past that the longest file bounds the time), a file's tests in one worker (`--dist loadfile`: they share
 * module fixtures, e.g. a trained run), each worker with one torch thread (conftest.py). Serial without xdist. */
function pytestParallelArgs(python) {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const workers = Number(process.env.SEED_PYTEST_WORKERS || Math.min(cores, 4));
  if (workers < 2) return [];
  if (capture(python, ['-c', 'import xdist']) === null) {
    console.log('pytest-xdist is not installed in the trainer interpreter: the trainer tests run serially');
    return [];
  }
  return ['-n', String(workers), '--dist', 'loadfile'];
}

/** The lines that name a failed test (pytest's FAILED/ERROR, node:test's "not ok", our runners' ✗), shortened. */
function failureLines(text, limit = 5) {
  const lines = text.split('\n').filter((l) => /^(FAILED|ERROR) |^not ok \d|✗/.test(l.trim()));
  const shown = lines.slice(0, limit).map((l) => (l.trim().length > 240 ? `${l.trim().slice(0, 240)}…` : l.trim()));
  return lines.length > limit ? [...shown, `… and ${lines.length - limit} more`] : shown;
}

/** node:test skips (TAP `ok N - name # SKIP reason`) whose reason names no device (GPU, CUDA): under CI each fails. */
function skipsWithoutDevice(text) {
  return [...text.matchAll(/^\s*ok \d+ - (.*?) # SKIP\s*(.*)$/gm)]
    .filter(([, , reason]) => !/\b(GPU|CUDA|device)s?\b/i.test(reason) && !/test name does not match pattern/.test(reason))
    .map(([, name, reason]) => `${name}: ${reason || '(no reason given)'}`);
}

/** How many suites run at once (SEED_TEST_JOBS; 1 runs them one after another). Two on any machine: the trainer suite
 * spreads over the cores itself (pytest-xdist), and the others mostly wait on a browser, a subprocess or the disk. */
function parallelJobs() {
  const jobs = Number(process.env.SEED_TEST_JOBS || 2);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`SEED_TEST_JOBS=${process.env.SEED_TEST_JOBS}: expected a whole number ≥ 1`);
  return jobs;
}

// The setup's three parts (setup.mjs --part), each started at once: a suite starts as soon as the parts it needs are
// there (pytest needs only the Python, the static checks only the npm packages).
const SETUP_NPM = 'setup: npm packages';
const SETUP_PYTHON = 'setup: trainer Python';
const SETUP_SYSTEM = 'setup: Chromium, code-server';
const SETUP = [
  { label: SETUP_NPM, part: 'npm' },
  { label: SETUP_PYTHON, part: 'python' },
  { label: SETUP_SYSTEM, part: 'system' },
];

/** SEED_TEST_ONLY, a regular expression on the suites' labels: the matching suites, what they need (`after`, followed
 * through) and the setup parts; every suite without it. The flake hunt (bench/robustness/flake_hunt.mjs) runs the
 * browser suites this way, as npm test runs them. */
function onlySuites(suites, pattern) {
  if (!pattern) return suites;
  const wanted = new RegExp(pattern);
  if (!suites.some((s) => wanted.test(s.label))) throw new Error(`SEED_TEST_ONLY=${pattern}: no suite's label matches`);
  const byLabel = new Map(suites.map((s) => [s.label, s]));
  const kept = new Set();
  const keep = (label) => {
    if (kept.has(label)) return;
    kept.add(label);
    for (const need of byLabel.get(label)?.after ?? []) keep(need);
  };
  for (const suite of suites) if (suite.setup || wanted.test(suite.label)) keep(suite.label);
  return suites.filter((s) => kept.has(s.label));
}

async function main() {
  const started = Date.now();
  const slots = parallelJobs();
  // Known before the setup has made it (the Python part creates .venv), so the suites' commands can name it.
  const python = trainerInterpreter();
  // SEED_STRICT_SKIPS: under CI the trainer suite fails a skip that names no missing device (trainer/tests/conftest.py).
  const env = { ...process.env, SEED_PYTHON: python, ONNXRUNTIME_NODE_INSTALL: 'skip', FORCE_COLOR: '0', SEED_STRICT_SKIPS: process.env.CI ? '1' : '' };
  const npx = (bin, args) => [path.join(repoRoot, 'node_modules', '.bin', bin), args];
  const vscodeRunner = process.env.VSCODE_EXECUTABLE_PATH ? 'runInElectron' : 'runInCodeServer';
  const built = [SETUP_NPM, 'build'];
  const browserSuite = [...built, SETUP_PYTHON, SETUP_SYSTEM];
  // In the summary's order. `first`: started before the others when it may (the longest suite); `after`: what it needs.
  const suites = [
    ...SETUP.map(({ label, part }) => ({ label, cmd: ['node', ['scripts/setup.mjs', '--part', part]], setup: true })),
    { label: 'build', cmd: ['node', ['esbuild.mjs']], after: [SETUP_NPM], first: true },
    { label: 'typecheck', cmd: ['npm', ['run', '--silent', 'typecheck']], after: [SETUP_NPM] },
    { label: 'lint', cmd: npx('eslint', ['.']), after: [SETUP_NPM] },
    // Folder-level import cycles of src/ and webview/ (scripts/cycles.mjs): there must be none.
    { label: 'import cycles', cmd: ['node', ['scripts/cycles.mjs']], after: [SETUP_NPM] },
    // The same with each feature one node (src/<feature>/** with webview/<feature>/**), type imports counted too.
    { label: 'feature import cycles', cmd: ['node', ['scripts/cycles.mjs', '--features', '--types']], after: [SETUP_NPM] },
    // ruff (ruff.toml) over trainer/ and bench/: lint, and the formatting already applied.
    { label: 'python lint (ruff)', cmd: ['node', ['scripts/lintPython.mjs']], after: [SETUP_PYTHON] },
    // Duplicated blocks (.jscpd.json): fails above its threshold, a percentage of all lines.
    { label: 'duplicated blocks (jscpd)', cmd: npx('jscpd', []), after: [SETUP_NPM] },
    // Commit subjects of at most 72 characters (scripts/commitSubjects.mjs).
    { label: 'commit subjects', cmd: ['node', ['scripts/commitSubjects.mjs']] },
    // The VSIX must build: vsce refuses relative links in README.md without a repository URL, among other things.
    // This platform's (scripts/package-vsix.mjs: .vscodeignore plus its onnxruntime-node binary), which the what-if
    // suite below installs rather than packaging it again.
    { label: 'package (vsce)', cmd: ['node', ['scripts/package-vsix.mjs']], after: built },
    // Node 20's --test searches out/test/unit/ recursively: every *.test.js of its feature folders (docs/extension.md).
    { label: 'unit (node:test)', cmd: ['node', ['--test', '--test-reporter=tap', 'out/test/unit/']], counts: 'nodeTest', after: [...built, SETUP_PYTHON] },
    // pytest's arguments are read once the Python part has made the interpreter (whether it has pytest-xdist).
    { label: 'trainer (pytest)', cmd: () => [python, ['-m', 'pytest', 'trainer/tests', '-q', '--color=no', '-p', 'no:cacheprovider', '-m', DESELECT_EXPRESSION, ...pytestParallelArgs(python)]], counts: 'pytest', after: [SETUP_PYTHON], first: true },
    { label: `vscode integration (${vscodeRunner === 'runInElectron' ? 'desktop VS Code' : 'code-server'})`, cmd: ['node', [`out/test/integration/${vscodeRunner}.js`]], counts: 'passedFailed', after: browserSuite },
    { label: 'reattach after reload (code-server)', cmd: ['node', ['out/test/integration/runReattach.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'ui smoke (Chromium)', cmd: ['node', ['out/test/ui/smoke.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'ui train + dashboard (Chromium)', cmd: ['node', ['out/test/ui/trainDashboard.js']], counts: 'passedFailed', after: browserSuite },
    // The webviews alone in Chromium, with a stubbed VS Code API: no trainer, no code-server.
    { label: 'webview (Chromium)', cmd: ['node', ['out/test/webview/run.js']], counts: 'passedFailed', after: [...built, SETUP_SYSTEM] },
    { label: 'trajectory & review ui (code-server)', cmd: ['node', ['out/test/ui/trajectoryReview.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'dashboard compare & fitted heatmap ui (code-server)', cmd: ['node', ['out/test/ui/dashboardCompare.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'runs table & evaluation samples ui (code-server)', cmd: ['node', ['out/test/ui/runsTables.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'premise report ui (code-server)', cmd: ['node', ['out/test/ui/premiseReport.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'what-if ui (code-server)', cmd: ['node', ['out/test/ui/whatIf.js']], counts: 'passedFailed', after: [...browserSuite, 'package (vsce)'] },
    { label: 'export checkpoint ui (code-server)', cmd: ['node', ['out/test/ui/exportCheckpoint.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'walkthrough ui (code-server)', cmd: ['node', ['out/test/ui/walkthrough.js']], counts: 'passedFailed', after: browserSuite },
    { label: 'live before/after ui (code-server)', cmd: ['node', ['out/test/ui/liveBeforeAfter.js']], counts: 'passedFailed', after: browserSuite },
  ];

  const chosen = onlySuites(suites, process.env.SEED_TEST_ONLY);
  const queue = [...chosen.filter((s) => s.setup), ...chosen.filter((s) => s.first), ...chosen.filter((s) => !s.setup && !s.first)];
  // The setup parts run with npm test's own environment: SEED_PYTHON there means an interpreter the user chose.
  const jobs = queue.map((s) => ({ label: s.label, cmd: s.cmd, after: s.after, unslotted: s.setup, env: s.setup ? process.env : env }));
  const results = await runJobs(jobs, { slots, cwd: repoRoot, env });
  const timings = [];
  let failed = false;
  for (const suite of chosen) {
    const { code, text, seconds, startedAt, notRun } = results.get(suite.label);
    const counts = suite.counts && !notRun ? countParsers[suite.counts](text) : undefined;
    // Under CI a node:test skip must name a missing device (the trainer suite checks its own: trainer/tests/conftest.py).
    const refusedSkips = process.env.CI && suite.counts === 'nodeTest' ? skipsWithoutDevice(text) : [];
    const ok = code === 0 && refusedSkips.length === 0 && (counts === undefined || (counts !== null && counts.failed === 0 && counts.passed > 0));
    const failures = ok || notRun ? [] : [...refusedSkips.map((line) => `skip under CI: ${line}`), ...failureLines(text)];
    timings.push({ label: suite.label, seconds, startedAt, ok, code, counts, notRun, failures });
    if (!ok) failed = true;
  }

  const total = { passed: 0, failed: 0, skipped: 0 };
  const wall = (Date.now() - started) / 1000;
  console.log(`\nnpm test summary (time / budget, and when it started; ${slots === 1 ? 'one suite at a time' : `up to ${slots} suites at a time`})`);
  const over = [];
  for (const t of timings) {
    const counts = t.counts ? ` ${t.counts.passed} passed, ${t.counts.failed} failed, ${t.counts.skipped} skipped` : '';
    const budget = budgetOf(t.label);
    const overBudget = budget !== undefined && t.seconds > budget;
    if (overBudget) over.push(t.label);
    const timing = `${t.seconds.toFixed(1).padStart(6)} s / ${budget === undefined ? '   ?' : String(budget).padStart(4)} s`;
    const start = t.startedAt === undefined ? '' : ` (at ${t.startedAt.toFixed(0)} s)`;
    console.log(`  ${t.ok ? 'ok  ' : 'FAIL'} ${t.label.padEnd(36)} ${timing}${start}${overBudget ? ' OVER BUDGET' : ''}${counts}`);
    if (t.counts) for (const key of Object.keys(total)) total[key] += t.counts[key];
    if (t.notRun) console.log(`       (${t.notRun})`);
    if (!t.ok && t.counts === null) console.log('       (the runner printed no result line)');
    // What failed, here at the end too: a CI log is often read from its tail only.
    for (const line of t.failures ?? []) console.log(`       ${line}`);
  }
  const overTotal = wall > TOTAL_BUDGET;
  console.log(`  total ${wall.toFixed(1)} s / ${TOTAL_BUDGET} s${overTotal ? ' OVER BUDGET' : ''}`);
  if (over.length || overTotal) {
    console.log(`  over budget (not a failure; see BUDGETS in scripts/test.mjs): ${[...over, ...(overTotal ? ['total'] : [])].join(', ')}`);
  }
  if (failed && total.failed === 0) total.failed = 1; // a non-test step (build, lint, a runner crash) failed
  console.log(`\ntotal: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  console.log(`\n${deselectedLine(timings.find((t) => t.label === 'trainer (pytest)')?.counts?.deselected)}`);
  process.exit(failed ? 1 : 0);
}

/** `npm run test:smollm2`: the heavy real-model suite (trainer/tests/models/test_smollm2_heavy.py), then the SmolLM2
 * template trained in code-server with an empty conversion cache (test/ui/smollm2Converting.ts: the conversion shown as
 * its own progress step). */
async function testSmolLM2() {
  let python;
  try {
    python = ensurePython();
  } catch (error) {
    console.error(`\nnpm run test:smollm2: setup failed: ${error.message}`);
    process.exit(1);
  }
  step('SmolLM2-135M heavy tests (pytest)');
  const env = { ...process.env, SEED_TEST_SMOLLM2_HEAVY: '1', FORCE_COLOR: '0' };
  const args = ['-m', 'pytest', 'trainer/tests/models/test_smollm2_heavy.py', '-m', 'smollm2_heavy', '-q', '--color=no', '-p', 'no:cacheprovider', '-rs'];
  const { code, text } = await runStreaming(python, args, env);
  const counts = countParsers.pytest(text);
  step('build, then the SmolLM2 template converting in code-server (UI)');
  const build = await runStreaming(process.execPath, ['esbuild.mjs'], process.env);
  const ui = build.code === 0 ? await runStreaming(process.execPath, ['out/test/ui/smollm2Converting.js'], { ...process.env, SEED_PYTHON: python }) : { code: 1, text: '' };
  const uiCounts = countParsers.passedFailed(ui.text);
  const ok = code === 0 && counts !== null && counts.failed === 0 && counts.skipped === 0 && ui.code === 0 && uiCounts !== null && uiCounts.failed === 0;
  const passed = (counts?.passed ?? 0) + (uiCounts?.passed ?? 0);
  const failed = (counts?.failed ?? 1) + (uiCounts?.failed ?? 1);
  console.log(`\ntotal: ${passed} passed, ${failed} failed, ${counts?.skipped ?? 0} skipped`);
  process.exit(ok ? 0 : 1);
}


/**
 * `npm run test:vllm`: makes .venv-vllm when needed, then runs trainer/tests/compute/test_vllm_engine.py with it (and the
 * vLLM-marked check of export-verl's LoRA rank) — its five
 * vLLM checks share one driver process and one engine (vllm_parity_driver.py), none may skip. Prints a summary with
 * the setup's and the tests' times and a closing `total:` line.
 */
async function testVllm() {
  const started = Date.now();
  const seconds = (t0) => ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
  let python, vllmPython;
  const setupStarted = Date.now();
  try {
    python = ensurePython();
    vllmPython = ensureVllmPython();
  } catch (error) {
    console.error(`\nnpm run test:vllm: setup failed: ${error.message}`);
    console.log('\ntotal: 0 passed, 1 failed, 0 skipped');
    process.exit(1);
  }
  const setupSeconds = seconds(setupStarted);
  step('vLLM engine tests (pytest)');
  const env = { ...process.env, SEED_VLLM_PYTHON: vllmPython, FORCE_COLOR: '0' };
  // One pytest process (no xdist workers, whatever the defaults become): the module's one engine is started once.
  const args = ['-m', 'pytest', 'trainer/tests/compute/test_vllm_engine.py', 'trainer/tests/export/test_export_verl.py',
    '-m', 'vllm', '-q', '--color=no', '-ra'];
  args.push('-p', 'no:cacheprovider', '-p', 'no:xdist');
  const testsStarted = Date.now();
  const { code, text } = await runStreaming(python, args, env);
  const counts = countParsers.pytest(text);
  const ok = code === 0 && counts !== null && counts.failed === 0 && counts.skipped === 0 && counts.passed > 0;
  const tally = counts
    ? `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`
    : 'no result line';
  console.log('\nnpm run test:vllm summary');
  console.log(`  ok   ${'setup (.venv, .venv-vllm)'.padEnd(36)} ${setupSeconds} s`);
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${'vLLM engine (pytest)'.padEnd(36)} ${seconds(testsStarted)} s ${tally}`);
  if (counts?.skipped) console.log('       a vLLM test skipped: .venv-vllm is not usable (see the reason above)');
  for (const line of ok ? [] : failureLines(text)) console.log(`       ${line}`);
  console.log(`  total ${seconds(started).trim()} s`);
  const failed = counts ? Math.max(counts.failed, ok ? 0 : 1) : 1;
  console.log(`\ntotal: ${counts?.passed ?? 0} passed, ${failed} failed, ${counts?.skipped ?? 0} skipped`);
  process.exit(ok ? 0 : 1);
}

/** `npm run test:verl`: makes .venv-verl when needed, then runs export-verl's acceptance against verl's own config. */
async function testVerl() {
  let python, verlPython;
  try {
    python = ensurePython();
    verlPython = ensureVerlPython();
  } catch (error) {
    console.error(`\nnpm run test:verl: setup failed: ${error.message}`);
    process.exit(1);
  }
  step('export-verl against verl 0.9.1 (pytest)');
  const env = { ...process.env, SEED_VERL_PYTHON: verlPython, FORCE_COLOR: '0' };
  // -rsP: the reason of any skip, and what each test printed (a check verl could not run without vLLM is named there)
  const args = ['-m', 'pytest', 'trainer/tests/export/test_export_verl.py', '-m', 'verl', '-q', '--color=no',
    '-p', 'no:cacheprovider', '-rsP'];
  const { code, text } = await runStreaming(python, args, env);
  const counts = countParsers.pytest(text);
  const ok = code === 0 && counts !== null && counts.failed === 0 && counts.skipped === 0 && counts.passed > 0;
  console.log(`\ntotal: ${counts?.passed ?? 0} passed, ${counts?.failed ?? 1} failed, ${counts?.skipped ?? 0} skipped`);
  process.exit(ok ? 0 : 1);
}

/** `npm run test:peer`: makes bench/.venv-peer when needed (bench/speed/peer_venv.sh: TRL 1.16 beside the trainer on
 * the CPU torch), then runs the equal-batch check of TRL's GRPO against ours with it; none may skip. */
async function testPeer() {
  step('The peer venv (bash bench/speed/peer_venv.sh)');
  const setup = await runStreaming('bash', ['bench/speed/peer_venv.sh'], process.env);
  if (setup.code !== 0) {
    console.error('\nnpm run test:peer: bench/speed/peer_venv.sh failed');
    console.log('\ntotal: 0 passed, 1 failed, 0 skipped');
    process.exit(1);
  }
  step('TRL against ours on one batch (pytest)');
  const python = path.join(repoRoot, 'bench', '.venv-peer', 'bin', 'python');
  const env = { ...process.env, FORCE_COLOR: '0', TRL_EXPERIMENTAL_SILENCE: '1' };
  const args = ['-m', 'pytest', 'trainer/tests/bench/test_peer_equal_batch.py', '-m', 'peer', '-q', '--color=no',
    '-p', 'no:cacheprovider', '-rsP'];
  const { code, text } = await runStreaming(python, args, env);
  const counts = countParsers.pytest(text);
  const ok = code === 0 && counts !== null && counts.failed === 0 && counts.skipped === 0 && counts.passed > 0;
  console.log(`\ntotal: ${counts?.passed ?? 0} passed, ${ok ? 0 : Math.max(counts?.failed ?? 0, 1)} failed, ${counts?.skipped ?? 0} skipped`);
  process.exit(ok ? 0 : 1);
}

const command = process.argv.includes('--vllm') ? testVllm : process.argv.includes('--verl') ? testVerl
  : process.argv.includes('--smollm2') ? testSmolLM2 : process.argv.includes('--peer') ? testPeer : main;
await command();
