// The trainer session state machine (src/training/core/sessionMachine.ts): every transition, from the process's events
// (spawned, spawn error, exit) and the run log's (run.json's state and pid, a Stop), including a stop that comes
// during the last update, a failed start, and a resume whose run.json still names the previous trainer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunState } from '../../../src/runs/core/runsCore';
import { failureActions, lastLogLine, runEndMessage } from '../../../src/training/core/runEndMessage';
import {
  isEnded,
  isStaleReading,
  launchedSession,
  nextSession,
  reattachedSession,
  type SessionEvent,
  type SessionState,
} from '../../../src/training/core/sessionMachine';

function run(state: SessionState, ...events: SessionEvent[]): SessionState {
  return events.reduce(nextSession, state);
}

const reading = (state: RunState, pid = 4242, status?: string): SessionEvent => ({ type: 'run', state, pid, ...(status ? { status } : {}) });
const exit = (code: number | null, runDirWritten = true): SessionEvent => ({ type: 'exit', code, signal: null, runDirWritten });

test('launch: idle → starting on spawn → running when run.json says so → completed', () => {
  const idle = launchedSession();
  assert.equal(idle.phase, 'idle');
  assert.equal(idle.origin, 'launched');
  const starting = nextSession(idle, { type: 'spawned', pid: 4242 });
  assert.deepEqual([starting.phase, starting.pid], ['starting', 4242]);
  assert.equal(nextSession(starting, reading('loading')), starting, 'a run not read yet changes nothing');
  const running = nextSession(starting, reading('running'));
  assert.equal(running.phase, 'running');
  assert.equal(nextSession(running, reading('running')), running, 'the same reading again is no transition');
  const done = nextSession(running, reading('completed'));
  assert.deepEqual([done.phase, done.outcome, isEnded(done)], ['ended', 'completed', true]);
  assert.equal(runEndMessage('demo', 'completed', { progress: { step: 5, total: 5, unit: 'update' } }, done.stopRequested), 'SEED: run demo completed at update 5/5.');
});

test('every end state of the run ends the session with that outcome', () => {
  const running = run(launchedSession(), { type: 'spawned', pid: 1 }, reading('running', 1));
  for (const state of ['completed', 'stopped', 'failed', 'interrupted', 'broken'] as const) {
    const after = nextSession(running, reading(state, 1));
    assert.deepEqual([after.phase, after.outcome], ['ended', state], state);
  }
});

test('an ended session is final: later events (a late reading, an exit, a stop) change nothing', () => {
  const done = run(launchedSession(), { type: 'spawned', pid: 1 }, reading('running', 1), reading('stopped', 1));
  for (const event of [reading('running', 1), exit(0), { type: 'stopRequested' } as const, { type: 'spawned', pid: 9 } as const]) {
    assert.equal(nextSession(done, event), done, event.type);
  }
});

test('a failed start: a spawn error, or an exit before the trainer wrote its run directory', () => {
  const refused = nextSession(launchedSession(), { type: 'spawnFailed', error: 'spawn /nope ENOENT' });
  assert.deepEqual([refused.phase, refused.outcome, refused.reason], ['ended', 'not-started', 'spawn /nope ENOENT']);
  const crashed = run(launchedSession(), { type: 'spawned', pid: 7 }, exit(1, false));
  assert.deepEqual([crashed.phase, crashed.outcome, crashed.exit?.code], ['ended', 'not-started', 1]);
  // Events that cannot happen before a spawn are ignored, not misread.
  const idle = launchedSession();
  assert.equal(nextSession(idle, exit(0)), idle);
  assert.equal(nextSession(idle, { type: 'stopRequested' }), idle);
  assert.equal(nextSession(idle, reading('running')), idle);
  // A spawn error after the process exists is not a failed start.
  const starting = nextSession(idle, { type: 'spawned', pid: 3 });
  assert.equal(nextSession(starting, { type: 'spawnFailed', error: 'late' }), starting);
  assert.equal(nextSession(starting, { type: 'spawned', pid: 5 }), starting, 'one process per session');
});

test('an exit after run.json was written waits for the run state (the trainer wrote completed, failed, …)', () => {
  const running = run(launchedSession(), { type: 'spawned', pid: 8 }, reading('running', 8));
  const exited = nextSession(running, exit(1));
  assert.deepEqual([exited.phase, exited.exit], ['running', { code: 1, signal: null }]);
  const failed = nextSession(exited, reading('failed', 8));
  assert.deepEqual([failed.phase, failed.outcome, failed.exit?.code], ['ended', 'failed', 1]);
  const killed = run(running, { type: 'exit', code: null, signal: 'SIGKILL', runDirWritten: true }, reading('interrupted', 8));
  assert.deepEqual([killed.outcome, killed.exit?.signal], ['interrupted', 'SIGKILL']);
});

test('stop: running → stopping at once (before the trainer writes it) → stopped', () => {
  const running = run(launchedSession(), { type: 'spawned', pid: 2 }, reading('running', 2));
  const stopping = nextSession(running, { type: 'stopRequested' });
  assert.deepEqual([stopping.phase, stopping.stopRequested], ['stopping', true]);
  assert.equal(nextSession(stopping, reading('running', 2)).phase, 'stopping', 'a reading from before the stop does not undo it');
  const stopped = nextSession(stopping, reading('stopped', 2));
  assert.deepEqual([stopped.outcome, stopped.stopRequested], ['stopped', true]);
  assert.equal(runEndMessage('demo', 'stopped', { progress: { step: 3, total: 5, unit: 'update' } }, true), 'SEED: run demo stopped at update 3/5.');
  // The trainer's own `stopping` (a stop from elsewhere: another window, the control file by hand).
  const fromElsewhere = nextSession(running, reading('stopping', 2, 'stopping'));
  assert.deepEqual([fromElsewhere.phase, fromElsewhere.stopRequested], ['stopping', true]);
  // A stop while the trainer is still loading its libraries.
  const early = run(launchedSession(), { type: 'spawned', pid: 2 }, { type: 'stopRequested' });
  assert.equal(early.phase, 'stopping');
});

test('a stop during the last update: the run completes, and the session says the stop came too late to shorten it', () => {
  const last = run(launchedSession(), { type: 'spawned', pid: 6 }, reading('running', 6), { type: 'stopRequested' });
  const done = nextSession(last, reading('completed', 6));
  assert.deepEqual([done.phase, done.outcome, done.stopRequested], ['ended', 'completed', true]);
  assert.match(
    runEndMessage('demo', 'completed', { progress: { step: 5, total: 5, unit: 'update' } }, done.stopRequested),
    /^SEED: run demo completed at update 5\/5: the stop came during its last update, which it finished/,
  );
});

test('reattach: a live run found on activation starts running (or stopping) and follows the same transitions', () => {
  const found = reattachedSession(31, 'running');
  assert.deepEqual([found.phase, found.origin, found.pid, found.stopRequested], ['running', 'reattached', 31, false]);
  const stopping = reattachedSession(31, 'stopping');
  assert.deepEqual([stopping.phase, stopping.stopRequested], ['stopping', true]);
  assert.equal(nextSession(found, { type: 'spawned', pid: 1 }), found, 'a reattached session has no process of ours to spawn');
  assert.equal(nextSession(found, reading('interrupted', 31)).outcome, 'interrupted');
});

test('the pid follows run.json (under torchrun the trainer is rank 0, not the launcher we spawned)', () => {
  const running = run(launchedSession(), { type: 'spawned', pid: 100 }, reading('running', 101));
  assert.equal(running.pid, 101);
  assert.equal(nextSession(running, { type: 'run', state: 'running' }).pid, 101, 'a reading without a pid keeps the known one');
});

test('resume: readings that still name the previous trainer are ignored until it rewrites run.json, or exits', () => {
  const resuming = nextSession(launchedSession(55), { type: 'spawned', pid: 77 });
  assert.equal(isStaleReading(resuming, 55), true);
  assert.equal(nextSession(resuming, reading('stopped', 55)), resuming, "the old run's `stopped` is not this session's end");
  const live = nextSession(resuming, reading('running', 77));
  assert.deepEqual([live.phase, live.pid], ['running', 77]);
  // The new trainer died before rewriting run.json: the old state is all there is, and it ends the session.
  const diedEarly = run(resuming, exit(1), reading('stopped', 55));
  assert.deepEqual([diedEarly.phase, diedEarly.outcome], ['ended', 'stopped']);
  assert.equal(isStaleReading(launchedSession(), 55), false);
});

test('a refused launch (no run folder) offers no "Open Run Folder" that would do nothing', () => {
  assert.deepEqual(failureActions(false), ['Show Log']);
  assert.deepEqual(failureActions(true), ['Show Log', 'Open Run Folder']);
});

test('the log line quoted in a failure message ends as a sentence, so what follows it reads as one', () => {
  assert.equal(lastLogLine('loading\nerror: model.path: ./m: no such model directory (/w/m)\n\n'), ' Log: error: model.path: ./m: no such model directory (/w/m).');
  assert.equal(lastLogLine('Killed.\n'), ' Log: Killed.');
  assert.equal(lastLogLine('  \n'), '');
});
