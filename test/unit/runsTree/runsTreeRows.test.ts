// The text of the Runs tree's run rows and the TRAINER view's rows at the default sidebar width: over the fixture runs
// and the learning benchmark's 19 runs (test/ui/benchmarkRuns.ts), read by the runs layer as the tree reads them, each
// row's label and description fit the row together (issue 54 item 5: the description, where the result is, was cut);
// the label says the run's name, stage or algorithm and state, the description its progress and success and what
// tells same-named runs apart, the tooltip everything.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { SIDEBAR_LABEL_BUDGET, shortenEnd, shortenMiddle, shortenStart, textLength } from '../../../src/common/core/sidebarText';
import { rowRoom, rowWidth } from '../../../src/common/core/sidebarWidth';
import { compactSuccess, runResult, runTitleParts, successText, type RunResult } from '../../../src/runs/core/runLabel';
import { RunsCore, factsOf } from '../../../src/runs/core/runsCore';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core/schemas';
import type { RunManifest } from '../../../src/runs/shared/types';
import { runRow, runRowLabel } from '../../../src/runsTree/core/runRow';
import { describeProbe, type TrainerProbeReport } from '../../../src/training/core/trainerProbe';
import { trainerStatusRow } from '../../../src/training/core/trainerStatusRows';
import { writeBenchmarkRuns } from '../../ui/benchmarkRuns';
import { repoRoot } from '../support/repoPaths';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-runs-tree-rows-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('shortening: the middle, the end or the start gives way to an ellipsis, by code point, within the length asked', () => {
  assert.equal(shortenMiddle('bench-grpo-opsd-s1', 10), 'bench…d-s1');
  assert.equal(shortenMiddle('household-demo', 14), 'household-demo');
  assert.equal(shortenEnd('eval valid_seen, valid_unseen', 12), 'eval valid_…');
  assert.equal(shortenStart('20260301-120000-train-demo-2', 8), '…-demo-2');
  // A character outside the BMP counts once and is never split.
  assert.equal(shortenMiddle('🙂🙂🙂🙂🙂', 4), '🙂🙂…🙂');
  assert.equal(textLength(shortenMiddle('🙂'.repeat(50), 31)), 31);
});

test('a run label in the room it is given: a state its icon says (running, stopped) gives way first, then the name, then what the run is; failed or interrupted never', () => {
  assert.equal(runRowLabel('household-demo', 'grpo', 'running'), 'household-demo · grpo · running');
  assert.equal(runRowLabel('household-demo', 'seed', 'completed'), 'household-demo · seed');
  assert.equal(runRowLabel('a-very-long-experiment-name-for-a-sweep-07', 'seed', 'stopped'), 'a-very-l…weep-07 · seed · stopped');
  // Less room (a description beside it): the spinning icon says running, the stop icon stopped; the name keeps both ends.
  assert.equal(runRowLabel('household-demo', 'seed', 'running', 160), 'household-demo · seed');
  assert.equal(runRowLabel('household-seed', 'seed', 'stopped', 180), 'household-seed · seed');
  assert.equal(runRowLabel('household-demo', 'seed', 'running', 120), 'hous…emo · seed');
  assert.equal(runRowLabel('household-demo', 'seed', 'interrupted', 150), 'hous…emo · s… · interrupted');
  assert.equal(runRowLabel('bench-grpo-opsd-s1', 'grpo_opsd', 'interrupted', 190), 'benc…-s1 · g… · interrupted');
  assert.equal(runRowLabel('household-demo', 'eval valid_seen, valid_unseen', 'running'), 'hous…emo · eval valid_seen, vali…');
  // A run without a readable manifest is named by its directory, both ends kept.
  assert.equal(runRowLabel('20260301-120000-train-household-seed-broken', '', 'broken'), '20260301-1…eed-broken · broken');
});

function manifest(fields: Partial<RunManifest>): RunManifest {
  return { stage: 'train', algorithm: 'seed', id: 'r', started: '2026-03-01T12:00:00Z', pid: 1, host: 'h', device: { kind: 'cpu', name: 'cpu', count: 0 }, ...fields } as RunManifest;
}

test('the demo\'s runs (issue 54 item 5): the success whole beside the name, the words in the tooltip', () => {
  const evaluated: RunResult = { word: 'eval', values: [['valid_seen', 0.57], ['valid_unseen', 0.58]], named: false };
  const stage2 = runRow({ name: 'household-demo-stage2', what: 'seed', state: 'completed', extras: [], manifest: manifest({ progress: { step: 30, total: 30, unit: 'update' } }), result: evaluated, dir: '/w/runs/stage2' });
  assert.deepEqual([stage2.label, stage2.description], ['househol…-stage2 · seed', '57%/58%']);
  assert.ok(stage2.tooltip.includes('update 30/30 · eval 57% / 58%'), stage2.tooltip.join('\n'));
  assert.equal(stage2.tooltip[0], 'household-demo-stage2 · seed');
  const live = runRow({ name: 'household-demo', what: 'seed', state: 'running', extras: [], manifest: manifest({ progress: { step: 3, total: 30, unit: 'update' } }), result: { word: 'success', values: [['', 0.4]], named: false }, dir: '/w/runs/live' });
  assert.deepEqual([live.label, live.description], ['household-demo · seed', '3/30 · 40%']);
  assert.ok(live.tooltip.includes('train · seed · running'), live.tooltip.join('\n'));
  // Two runs of one title: the start time tells them apart, as much of it as fits (the date first gives way).
  const twin = runRow({ name: 'household-demo', what: 'seed', state: 'completed', extras: ['2026-03-01 12:00:09'], manifest: manifest({}), result: evaluated, dir: '/w/runs/twin' });
  assert.deepEqual([twin.label, twin.description], ['hous…demo · seed', '57%/58% · 12:00']);
  assert.equal(twin.tooltip[0], 'household-demo · seed · 2026-03-01 12:00:09');
  // A run stopped at its last update has no progress left to show; its state gives way to its name.
  const stopped = runRow({ name: 'household-seed', what: 'seed', state: 'stopped', extras: [], manifest: manifest({ progress: { step: 2, total: 2, unit: 'update' } }), result: { word: 'eval', values: [['test_seen', 1]], named: false }, dir: '/w/runs/stopped' });
  assert.deepEqual([stopped.label, stopped.description], ['household-seed · seed', '100%'], 'the stop icon says stopped');
  for (const row of [stage2, live, twin, stopped]) assert.ok(rowWidth(row.label, row.description) <= rowRoom(1), `${row.label} | ${row.description}`);
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

test('the fixture and benchmark runs: label and description fit the row; the label says name, stage or algorithm and state, the description the success, the tooltip everything', async () => {
  const core = await workspaceRuns();
  try {
    const seen = new Set<string>();
    const states = new Set<string>();
    for (const entry of core.runs()) {
      const { name, what } = runTitleParts(factsOf(entry));
      const extras = core.titleExtras(entry.dir);
      const result = runResult(factsOf(entry));
      const row = runRow({ name, what, extras, state: entry.state, manifest: entry.index.manifest, result, dir: entry.dir });
      const where = `${path.basename(entry.dir)}: "${row.label}" "${row.description}"`;
      states.add(entry.state);
      assert.ok(rowWidth(row.label, row.description) <= rowRoom(1), `${where} is ${rowWidth(row.label, row.description).toFixed(1)} px wide`);
      // The name whole or shortened in its middle (both ends kept); what the run is; the state unless completed.
      const shownName = row.label.split(' · ')[0]!;
      const [head, tail] = shownName.split('…');
      assert.ok(shownName === name || (tail !== undefined && name.startsWith(head!) && name.endsWith(tail)), `${where} does not name ${name}`);
      if (what) assert.ok(row.label.split(' · ')[1] === what, `${where} lacks ${what}`);
      // A state its icon says plainly (running, stopping, stopped) may give way; failed, interrupted and broken never.
      if (!['completed', 'running', 'stopping', 'stopped'].includes(entry.state)) assert.ok(row.label.endsWith(` · ${entry.state}`), `${where} does not end with its state ${entry.state}`);
      else assert.ok(!row.label.includes('completed'));
      // The success is whole in the description, its words in the tooltip.
      if (result) assert.ok(row.description.includes(compactSuccess(result)), `${where}: the description lacks ${compactSuccess(result)}`);
      if (result) assert.ok(row.tooltip.some((line) => line.includes(successText(result))), `${where}: the tooltip lacks ${successText(result)}`);
      assert.equal(row.tooltip[0], core.title(entry.dir), `${where}: the tooltip's first line is not the whole title`);
      assert.ok(row.tooltip.includes(entry.index.manifest?.id ?? path.basename(entry.dir)), `${where}: the tooltip lacks the run's id`);
      // What tells same-titled runs apart is there: a start time (its time of day at least), else the directory's
      // name (its end at least: the broken fixtures are copies of one run, started in the same second).
      const teller = extras.at(-1);
      const shown = `${row.label} | ${row.description}`;
      if (teller === path.basename(entry.dir)) {
        const end = row.description.split(' · ').at(-1)!;
        assert.ok(end === teller || (end.startsWith('…') && teller.endsWith(end.slice(1))), `${where}: the description does not end with ${teller}`);
      } else {
        const time = teller && /(\d{2}:\d{2})(:\d{2})?$/.exec(teller)?.[1];
        if (teller) assert.ok(time && row.description.includes(time), `${where}: no time of day of ${teller}`);
        assert.ok(!seen.has(shown), `two runs read "${shown}"`);
      }
      seen.add(shown);
    }
    assert.ok(seen.size >= 19 + 10, `${seen.size} runs`);
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
