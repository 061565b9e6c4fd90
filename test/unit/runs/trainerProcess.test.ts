// The trainer as a process: command lines, run ids, detached launch, liveness, process groups, the setup plan.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { planSetup, venvInterpreter } from '../../../src/training/core/setupPlan';
import {
  isProcessAlive,
  isProcessGroupAlive,
  isTrainerAlive,
  liveStatus,
  newRunId,
  signalProcessGroup,
  slugify,
  spawnDetached,
  tailOfFile,
  trainerCommandLine,
  waitUntilGone,
} from '../../../src/runs/core/trainerProcess';

const scratch = mkdtempSync(path.join(tmpdir(), 'seed-trainer-process-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('command lines: one process, several GPUs under torchrun, resume', () => {
  assert.deepEqual(trainerCommandLine({ python: 'py', command: 'train', experiment: 'e.seed.yaml', runDir: 'runs/r' }), {
    file: 'py',
    args: ['-m', 'seed_trainer', 'train', 'e.seed.yaml', '--run-dir', 'runs/r'],
    env: { PYTHONUNBUFFERED: '1' },
  });
  const one = trainerCommandLine({ python: 'py', command: 'sft', experiment: 'e', runDir: 'r', gpus: [1], env: { HF_HOME: '/h' } });
  assert.deepEqual([one.args.slice(0, 3), one.env.CUDA_VISIBLE_DEVICES, one.env.HF_HOME], [['-m', 'seed_trainer', 'sft'], '1', '/h']);
  const many = trainerCommandLine({ python: 'py', command: 'train', experiment: 'e', runDir: 'r', gpus: [0, 2] });
  assert.deepEqual(many.args.slice(0, 6), ['-m', 'torch.distributed.run', '--standalone', '--nproc_per_node=2', '-m', 'seed_trainer']);
  assert.equal(many.env.CUDA_VISIBLE_DEVICES, '0,2');
  assert.deepEqual(trainerCommandLine({ python: 'py', command: 'resume', runDir: 'runs/r' }).args, ['-m', 'seed_trainer', 'resume', 'runs/r']);
  assert.throws(() => trainerCommandLine({ python: 'py', command: 'eval', runDir: 'r' }), /experiment is required/);
});

test('run ids are the trainer’s: UTC stamp, stage, slug; a taken id gets -2, -3', () => {
  const now = new Date(Date.UTC(2026, 2, 1, 12, 0, 5));
  assert.equal(newRunId('train', 'Household SEED!', now, () => false), '20260301-120005-train-household-seed');
  const taken = new Set(['20260301-120005-sft-x', '20260301-120005-sft-x-2']);
  assert.equal(newRunId('sft', 'x', now, (id) => taken.has(id)), '20260301-120005-sft-x-3');
  assert.equal(slugify('  '), 'run');
  assert.equal(slugify(`${'a'.repeat(39)}-bbb`), 'a'.repeat(39));
});

test('live status: final states as written; a running run with a dead pid is interrupted; other hosts are trusted', () => {
  const base = { pid: 4242, host: 'here' };
  assert.equal(liveStatus({ ...base, status: 'completed' }, { hostname: 'here', alive: () => false }), 'completed');
  assert.equal(liveStatus({ ...base, status: 'running' }, { hostname: 'here', alive: () => true }), 'running');
  assert.equal(liveStatus({ ...base, status: 'stopping' }, { hostname: 'here', alive: () => false }), 'interrupted');
  assert.equal(liveStatus({ ...base, status: 'running' }, { hostname: 'elsewhere', alive: () => false }), 'running');
  assert.equal(isProcessAlive(process.pid), true);
  assert.equal(isProcessAlive(-1), false);
  // This test process is alive but is not a trainer.
  if (existsSync('/proc/self/cmdline')) assert.equal(isTrainerAlive(process.pid), false);
});

test('a detached process writes to its log, survives on its own, and its whole group can be ended', { skip: process.platform === 'win32' }, async () => {
  const logFile = path.join(scratch, 'logs', 'child.log');
  // A parent that starts a grandchild in the same process group, then both sleep: like torchrun and its workers.
  const script = path.join(scratch, 'tree.js');
  writeFileSync(
    script,
    [
      "const { spawn } = require('node:child_process');",
      "console.log('parent started');",
      "spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'inherit' });",
      'setTimeout(() => {}, 60000);',
    ].join('\n'),
  );
  const child = spawnDetached({ file: process.execPath, args: [script], env: { SEED_TEST: '1' } }, { cwd: scratch, logFile });
  await new Promise((resolve) => child.once('spawn', resolve));
  const pid = child.pid ?? 0;
  assert.ok(pid > 0);
  assert.ok(await waitUntilGone(() => !readFileSync(logFile, 'utf8').includes('parent started'), 5_000), 'the log has the output');
  assert.equal(isProcessGroupAlive(pid), true);
  assert.equal(signalProcessGroup(pid, 'SIGTERM'), true);
  assert.equal(await waitUntilGone(() => isProcessGroupAlive(pid), 5_000), true, 'the whole group ended');
  assert.equal(signalProcessGroup(pid, 'SIGTERM'), false);
  assert.match(tailOfFile(logFile, 5), /parent started/);
  assert.equal(tailOfFile(path.join(scratch, 'missing.log')), '');
});

test('set-up plan: a venv when needed, torch only when missing, the trainer always', () => {
  const system = planSetup({
    facts: { executable: '/usr/bin/python3', isVenv: false, torchImportable: true },
    newVenvDir: '/w/.venv',
    trainerSource: '/ext/trainer',
    editable: false,
    torchRequirement: 'torch==2.13.0',
    platform: 'linux',
  });
  assert.equal(system.python, '/w/.venv/bin/python');
  assert.deepEqual(system.steps.map((s) => [s.file, s.args.slice(0, 3).join(' ')]), [
    ['/usr/bin/python3', '-m venv /w/.venv'],
    ['/w/.venv/bin/python', '-m pip install'],
    ['/w/.venv/bin/python', '-m pip install'],
  ]);
  assert.ok(system.steps[1]?.args.includes('torch==2.13.0'));
  const venv = planSetup({
    facts: { executable: '/w/.venv/bin/python', isVenv: true, torchImportable: true },
    newVenvDir: '/unused',
    trainerSource: '/ext/trainer',
    editable: true,
    torchRequirement: 'torch',
  });
  assert.equal(venv.venvDir, undefined);
  assert.deepEqual(venv.steps.map((s) => s.args.slice(-3)), [['--upgrade', '-e', '/ext/trainer']]);
  assert.equal(venvInterpreter('C:\\v', 'win32').endsWith(path.join('Scripts', 'python.exe')), true);
});
