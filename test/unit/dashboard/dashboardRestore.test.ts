// A window reloaded during training (the reattach test's flaky "the dashboard drew nothing"): the restored dashboard
// shows the live run even when its saved state names none, and no caller of the runs layer gets a run whose files
// were not read yet because someone else was adding it at the same moment.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { defaultDashboardRuns, restoredDashboardRuns } from '../../../src/dashboard/core/dashboardRuns';
import { RunsCore, type RunEntry, type RunState } from '../../../src/runs/core/runsCore';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core/schemas';
import type { RunManifest } from '../../../src/runs/shared/types';
import { repoRoot } from '../support/repoPaths';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-dashboard-restore-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const entry = (dir: string, state: RunState): RunEntry => ({ dir, state, index: undefined as unknown as RunEntry['index'] });

test('restore: the runs the saved state names that still exist; else the live runs; else the newest run', () => {
  const runs = [entry('/ws/runs/new', 'completed'), entry('/ws/runs/live', 'running'), entry('/ws/runs/old', 'stopped')];
  const exists = (dir: string): boolean => dir !== '/ws/runs/deleted';
  assert.deepEqual(restoredDashboardRuns({ runs: ['/ws/runs/old', '/ws/runs/old/'] }, runs, exists), ['/ws/runs/old']);
  assert.deepEqual(restoredDashboardRuns({ runs: ['/ws/runs/deleted', '/ws/runs/old'] }, runs, exists), ['/ws/runs/old']);
  // The state was never written (or not flushed before the reload), or everything it named is gone: the live run.
  for (const state of [undefined, null, {}, { runs: [] }, { runs: 'x' }, { runs: [3, 'relative/dir'] }, { runs: ['/ws/runs/deleted'] }]) {
    assert.deepEqual(restoredDashboardRuns(state, runs, exists), ['/ws/runs/live'], JSON.stringify(state));
  }
  assert.deepEqual(defaultDashboardRuns(runs.filter((r) => r.state !== 'running')), ['/ws/runs/new']);
  assert.deepEqual(defaultDashboardRuns([entry('/a', 'running'), entry('/b', 'stopping')]), ['/a', '/b']);
  assert.deepEqual(restoredDashboardRuns(undefined, [], exists), []);
});

test('runs layer: a run added twice at once is read before either caller (the scan, the trainer host) gets it', async () => {
  const runDir = path.join(scratch, 'runs', 'r1');
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), runDir, { recursive: true });
  rmSync(path.join(runDir, 'control')); // no stop asked for: the run reads as running
  const data = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as RunManifest;
  writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ ...data, status: 'running', ended: null }));
  const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
  const core = new RunsCore({ schemas: () => schemas, scan: async () => [runDir], warn: () => undefined, live: (m) => m.status as 'running' });
  // The trainer host adds the run it launched while the first scan (what `ready` waits for) is under way.
  const adding = core.add(runDir);
  await core.rescan();
  const scanned = core.get(runDir);
  assert.equal(scanned?.state, 'running', 'the scan returned before the run was read');
  assert.ok((scanned?.index.metrics.length ?? 0) > 0, 'the scan returned before the run was read');
  assert.equal(await adding, scanned);
  // And the other way round: the scan first, then a second add while it reads.
  const other = path.join(scratch, 'runs', 'r2');
  cpSync(runDir, other, { recursive: true });
  const second = new RunsCore({ schemas: () => schemas, scan: async () => [other], warn: () => undefined, live: (m) => m.status as 'running' });
  const scan = second.rescan();
  while (!second.get(other)) await new Promise((resolve) => setImmediate(resolve));
  const early = await second.add(other);
  assert.ok(early.index.metrics.length > 0 && early.state === 'running', `add returned a run in state ${early.state} with ${early.index.metrics.length} metric rows`);
  await scan;
  core.dispose();
  second.dispose();
});
