// The code-server runners' hang guard (test/integration/stallGuard.ts): it counts from the last finished test, so a slow
// suite on a loaded machine passes while a suite where nothing finishes for the limit is ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTestFinishedLine, StallGuard } from '../../integration/stallGuard';

test('the guard counts from the last finished test, not from the start', () => {
  let now = 0;
  const guard = new StallGuard(360_000, () => now);
  // 26 tests of 15 s each: 390 s in all, over the limit as a total, never 360 s without a test finishing
  for (let i = 0; i < 26; i++) {
    now += 15_000;
    assert.equal(guard.stalled(), false, `after test ${i + 1}`);
    guard.progressed();
  }
  assert.equal(now, 390_000);
  now += 360_000;
  assert.equal(guard.stalled(), false, 'exactly the limit is not over it');
  now += 1;
  assert.equal(guard.stalled(), true);
  assert.equal(guard.idleMs(), 360_001);
});

test('start calls onStall once, on the first check that finds the guard stalled', async () => {
  let now = 0;
  const guard = new StallGuard(50, () => now);
  let calls = 0;
  guard.start(() => (calls += 1), 5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(calls, 0, 'no time has passed on the guard clock');
  now = 51;
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(calls, 1);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(calls, 1, 'stopped after it fired');
  guard.stop();
});

test('a finished test in the page console: mocha spec lines, passed or failed', () => {
  assert.equal(isTestFinishedLine('%c INFO color: #33f     ✔ %s (%dms) the dashboard overlays several runs 2725'), true);
  assert.equal(isTestFinishedLine('  3) SEED: Train launches a real run'), true);
  assert.equal(isTestFinishedLine('%c INFO color: #33f     %d) %s'), true);
  assert.equal(isTestFinishedLine('%c INFO color: #33f %s%s    SEED: Open in TensorBoard'), false);
  assert.equal(isTestFinishedLine('Extension host (Remote) is unresponsive.'), false);
});
