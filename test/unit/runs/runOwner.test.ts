// The run's owner lock as the extension reads it: the trainer's own lock (seed_trainer.runlog.ownership, taken by a
// real Python process) shows as owned, and the run turns `interrupted` the moment that process is killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { runOwnership } from '../../../src/runs/core/runOwner';
import { RunSchemas } from '../../../src/runs/core/schemas';
import { liveStatus } from '../../../src/runs/core/trainerProcess';
import { repoRoot, trainerPython } from '../support/repoPaths';

const scratch = mkdtempSync(path.join(tmpdir(), 'seed-run-owner-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const manifest = { status: 'running' as const, pid: 999999, host: 'elsewhere' };

test('no lock file (a run from before the lock): unknown, and liveness falls back to the pid', () => {
  const run = mkdtempSync(path.join(scratch, 'old-'));
  assert.equal(runOwnership(run), 'unknown');
  assert.equal(liveStatus(manifest, { runDir: run, hostname: 'here', alive: () => false }), 'running'); // another host
});

const HOLDER = [
  'import sys, time',
  'from seed_trainer.runlog.ownership import RunLock',
  'RunLock.acquire(sys.argv[1], command="train")',
  'print("owning", flush=True)',
  'time.sleep(120)',
].join('\n');

test('a run owned by a live trainer process is running; killed (-9), it is interrupted at once', async (t) => {
  if (process.platform !== 'linux') {
    t.skip('the lock is read from /proc/locks, which only Linux has');
    return;
  }
  const run = mkdtempSync(path.join(scratch, 'run-'));
  const holder = spawn(trainerPython(), ['-c', HOLDER, run], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('owning') ? resolve() : undefined));
      holder.once('exit', (code) => reject(new Error(`the lock holder exited (${String(code)})`)));
    });
    assert.equal(runOwnership(run), 'owned');
    // the pid in run.json is dead, yet the lock says the run lives (no pid guessing where the lock can be read)
    assert.equal(liveStatus({ ...manifest, host: 'here' }, { runDir: run, hostname: 'here', alive: () => false }), 'running');
    // The lock file names its owner in the format of schemas/lock.schema.json.
    const owner = JSON.parse(readFileSync(path.join(run, 'lock'), 'utf8')) as { pid?: number };
    assert.equal(owner.pid, holder.pid);
    RunSchemas.load(path.join(repoRoot, 'schemas')).validate('lock', owner, { file: 'lock' });
  } finally {
    holder.kill('SIGKILL');
    await new Promise((resolve) => (holder.exitCode !== null || holder.signalCode !== null ? resolve(null) : holder.once('exit', resolve)));
  }
  assert.equal(runOwnership(run), 'free'); // the kernel dropped the lock with the process: no waiting
  assert.equal(liveStatus({ ...manifest, host: 'here' }, { runDir: run, hostname: 'here', alive: () => true }), 'interrupted');
});

test('the lock table is matched by device and inode only', () => {
  const run = mkdtempSync(path.join(scratch, 'table-'));
  writeFileSync(path.join(run, 'lock'), '');
  assert.equal(runOwnership(run, { procLocks: '1: FLOCK  ADVISORY  WRITE 77 00:00:1 0 EOF\n' }), 'free');
  assert.equal(runOwnership(run, { platform: 'darwin' }), 'unknown');
});
