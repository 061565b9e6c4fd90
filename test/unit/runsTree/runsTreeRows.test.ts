// The text of the Runs tree's run rows and the TRAINER view's rows at the default sidebar width: over the fixture runs
// and the learning benchmark's 19 runs (test/ui/benchmarkRuns.ts), read by the runs layer as the tree reads them, each
// label stays within the budget and says the run's name, stage or algorithm and state; what tells same-named runs
// apart, the numbers and the id are in the description and the tooltip.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { SIDEBAR_LABEL_BUDGET, shortenEnd, shortenMiddle, textLength } from '../../../src/common/core/sidebarText';
import { runTitleParts } from '../../../src/runs/core/runLabel';
import { RunsCore, factsOf } from '../../../src/runs/core/runsCore';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core/schemas';
import { runRow, runRowLabel } from '../../../src/runsTree/core/runRow';
import { describeProbe, type TrainerProbeReport } from '../../../src/training/core/trainerProbe';
import { trainerStatusRow } from '../../../src/training/core/trainerStatusRows';
import { writeBenchmarkRuns } from '../../ui/benchmarkRuns';
import { repoRoot } from '../support/repoPaths';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-runs-tree-rows-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('shortening: the middle or the end gives way to an ellipsis, by code point, within the length asked', () => {
  assert.equal(shortenMiddle('bench-grpo-opsd-s1', 10), 'bench…d-s1');
  assert.equal(shortenMiddle('household-demo', 14), 'household-demo');
  assert.equal(shortenEnd('eval valid_seen, valid_unseen', 12), 'eval valid_…');
  // A character outside the BMP counts once and is never split.
  assert.equal(shortenMiddle('🙂🙂🙂🙂🙂', 4), '🙂🙂…🙂');
  assert.equal(textLength(shortenMiddle('🙂'.repeat(50), 31)), 31);
});

test('a run label: name · stage or algorithm · state (not "completed"), the name shortened first, the state never', () => {
  assert.equal(runRowLabel('household-demo', 'grpo', 'running'), 'household-demo · grpo · running');
  assert.equal(runRowLabel('household-demo', 'seed', 'completed'), 'household-demo · seed');
  assert.equal(runRowLabel('a-very-long-experiment-name-for-a-sweep-07', 'seed', 'stopped'), 'a-very-…eep-07 · seed · stopped');
  assert.equal(runRowLabel('household-demo', 'seed', 'interrupted'), 'house…demo · seed · interrupted');
  assert.equal(runRowLabel('bench-grpo-opsd-s1', 'grpo_opsd', 'interrupted'), 'bench…d-s1 · grp… · interrupted');
  assert.equal(runRowLabel('household-demo', 'eval valid_seen, valid_unseen', 'running'), 'house…demo · eval va… · running');
  // A run without a readable manifest is named by its directory, both ends kept.
  assert.equal(runRowLabel('20260301-120000-train-household-seed-broken', '', 'broken'), '20260301-12…eed-broken · broken');
});

/** Every fixture run (test/fixtures/runs, the broken ones too) and the benchmark's runs, read by the runs layer. */
async function workspaceRuns(): Promise<RunsCore> {
  const fixtures = path.join(repoRoot, 'test', 'fixtures', 'runs');
  const dirs: string[] = [];
  for (const name of readdirSync(fixtures)) {
    if (!statSync(path.join(fixtures, name)).isDirectory()) continue;
    const dir = path.join(scratch, 'runs', `20260301-120000-train-${name}`);
    cpSync(path.join(fixtures, name), dir, { recursive: true });
    dirs.push(dir);
  }
  dirs.push(...writeBenchmarkRuns(scratch, repoRoot).map((run) => run.dir));
  const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
  const core = new RunsCore({ schemas: () => schemas, scan: async () => dirs, warn: () => undefined, live: (m) => m.status as 'running' });
  await core.rescan();
  assert.equal(core.runs().length, dirs.length);
  return core;
}

test('the fixture and benchmark runs: labels within the budget say name, stage or algorithm and state; the rest is in the description and tooltip', async () => {
  const core = await workspaceRuns();
  try {
    const seen = new Set<string>();
    const states = new Set<string>();
    for (const entry of core.runs()) {
      const { name, what } = runTitleParts(factsOf(entry));
      const extras = core.titleExtras(entry.dir);
      const row = runRow({ name, what, extras, state: entry.state, manifest: entry.index.manifest, success: core.success(entry), dir: entry.dir });
      const where = `${path.basename(entry.dir)}: "${row.label}"`;
      states.add(entry.state);
      assert.ok(textLength(row.label) <= SIDEBAR_LABEL_BUDGET, `${where} is ${textLength(row.label)} characters`);
      // Every experiment's name here fits whole beside its stage or algorithm and state; a broken run's directory
      // name keeps both ends.
      const shownName = entry.index.manifest ? name : shortenMiddle(name, SIDEBAR_LABEL_BUDGET - ` · ${entry.state}`.length);
      assert.ok(row.label.startsWith(shownName), `${where} does not start with ${shownName}`);
      if (what) assert.ok(row.label.includes(` · ${what}`), `${where} lacks ${what}`);
      if (entry.state !== 'completed') assert.ok(row.label.endsWith(entry.state), `${where} does not end with its state ${entry.state}`);
      else assert.ok(!row.label.includes('completed'));
      // The numbers and what tells same-named runs apart are in the description, everything in the tooltip.
      const teller = extras.at(-1);
      if (teller) assert.ok(row.description.startsWith(teller), `${where}: the description "${row.description}" does not start with ${teller}`);
      const success = core.success(entry);
      if (success) assert.ok(row.description.includes(success), `${where}: the description lacks ${success}`);
      assert.equal(row.tooltip[0], core.title(entry.dir), `${where}: the tooltip's first line is not the whole title`);
      assert.ok(row.tooltip.includes(entry.index.manifest?.id ?? path.basename(entry.dir)), `${where}: the tooltip lacks the run's id`);
      const shown = `${row.label} | ${row.description}`;
      assert.ok(!seen.has(shown), `two runs read "${shown}"`);
      seen.add(shown);
    }
    assert.ok(seen.size >= 19 + 20, `${seen.size} runs`);
    assert.deepEqual([...states].sort(), ['broken', 'completed', 'running', 'stopped']);
  } finally {
    core.dispose();
  }
});

test('the TRAINER view: a short label says what each line is about; the value is the description', () => {
  const report: TrainerProbeReport = {
    python: { executable: '/home/someone/projects/seed/.venv/bin/python', version: '3.11.9' },
    trainer: { importable: false, error: "No module named 'seed_trainer'" },
    torch: {
      importable: true,
      version: '2.13.0',
      cuda: { built_with: '12.8', available: true, devices: [{ index: 0, name: 'NVIDIA H200', total_memory_bytes: 150e9, free_memory_bytes: 149e9, capability: '9.0' }] },
    },
  };
  const lines = describeProbe({ ok: true, interpreter: '/p', report });
  const rows = lines.map(trainerStatusRow);
  assert.deepEqual(rows.map((row) => row.label), ['Interpreter:', 'Trainer:', 'PyTorch:', 'cuda:0']);
  assert.match(rows[3]!.description ?? '', /^NVIDIA H200 \(/);
  assert.match(rows[1]!.description ?? '', /^not importable — /);
  const failed = describeProbe({ ok: false, interpreter: '/p', error: 'spawn /p ENOENT' }).map(trainerStatusRow);
  assert.deepEqual(failed.map((row) => [row.label, row.description]), [['Interpreter:', '/p'], ['Probe failed:', 'spawn /p ENOENT']]);
  for (const row of [...rows, ...failed]) assert.ok(textLength(row.label) <= SIDEBAR_LABEL_BUDGET, row.label);
  assert.deepEqual(trainerStatusRow('x'.repeat(60)), { label: `${'x'.repeat(SIDEBAR_LABEL_BUDGET - 1)}…`, description: undefined });
});
