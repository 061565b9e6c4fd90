// The runs layer without VS Code: which run.json files are runs (never the repository's test fixtures), titles that
// tell runs apart (stage, algorithm, evaluated split, start time) with their success, and the live state a Stop
// changes at once (the tree used to say "running" until the trainer's next step boundary, 14–20 s later).
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import picomatch from 'picomatch';
import { DEFAULT_DISCOVERY, RunDiscovery, discoveryRules, joinGlobs } from '../../../src/runs/core/discovery';
import { runSuccess, runTitle, titleExtras, type RunFacts } from '../../../src/runs/core/runLabel';
import { RUN_WATCH_GLOBS, RunsCore, isEvalReport, runDirOfFile, runState, type RunChangeEvent } from '../../../src/runs/core/runsCore';
import { describeRun } from '../../../src/dashboard/core/runDescription';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core/schemas';
import type { MetricRow, RunManifest, TrajectoryIndexRow } from '../../../src/runs/shared/types';
import { groupComparePair } from '../../../src/runsTree/core/groupCompare';
import { runEndMessage } from '../../../src/training/core/runEndMessage';
import { repoRoot } from '../support/repoPaths';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-runs-layer-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('discovery: the workspace runs folders are listed; test fixtures, checkpoints and dependencies never are', () => {
  const discovery = new RunDiscovery();
  assert.equal(discovery.matches('runs/20260301-120000-train-demo/run.json'), true);
  assert.equal(discovery.matches('examples/runs/a/run.json'), true);
  assert.equal(discovery.matches('test/fixtures/runs/valid/run.json'), false, 'a repository test fixture is not a run of yours');
  assert.equal(discovery.matches('test/fixtures/runs/torn-last-line/run.json'), false);
  assert.equal(discovery.matches('runs/a/checkpoints/step-000002/run.json'), false);
  assert.equal(discovery.matches('node_modules/x/runs/a/run.json'), false);
  assert.equal(discovery.matches('runs/a/metrics.jsonl'), false);
  const custom = new RunDiscovery(discoveryRules(['out/**/run.json'], []));
  assert.equal(custom.matches('out/exp1/r1/run.json'), true);
  assert.equal(custom.matches('runs/a/run.json'), false);
  assert.deepEqual(discoveryRules('not a list', undefined), DEFAULT_DISCOVERY);
  assert.equal(joinGlobs(['a', 'b']), '{a,b}');
  assert.equal(joinGlobs([]), undefined);
});

test('discovery: the settings declared in package.json default to the rules the core applies', () => {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default: unknown }> } | Array<{ properties: Record<string, { default: unknown }> }> };
  };
  const sections = Array.isArray(manifest.contributes.configuration) ? manifest.contributes.configuration : [manifest.contributes.configuration];
  const properties = Object.assign({}, ...sections.map((s) => s.properties)) as Record<string, { default: unknown }>;
  assert.deepEqual(properties['seedStudio.runs.include']?.default, DEFAULT_DISCOVERY.include);
  assert.deepEqual(properties['seedStudio.runs.exclude']?.default, DEFAULT_DISCOVERY.exclude);
});

function manifest(fields: Partial<RunManifest>): RunManifest {
  return {
    format_version: 1,
    id: 'x',
    name: 'household-demo',
    experiment: { path: 'e.seed.yaml', sha256: '0' },
    config: {},
    stage: 'train',
    algorithm: 'seed',
    status: 'completed',
    pid: 1,
    host: 'h',
    started: '2026-11-30T14:05:09Z',
    versions: { trainer: '0', python: '3' },
    device: { kind: 'cpu', name: 'cpu', count: 0 },
    ...fields,
  };
}

function evalRow(split: string, success: number): MetricRow {
  return { step: 0, time: 't', kind: 'eval', split, 'success/overall': success };
}

test('titles: four runs of one experiment read apart; evaluations name their split and show their success', () => {
  const runs: RunFacts[] = [
    { dir: '/w/runs/a', manifest: manifest({ stage: 'collect', algorithm: 'seed' }), metrics: [] },
    { dir: '/w/runs/b', manifest: manifest({ stage: 'eval' }), metrics: [evalRow('valid_seen', 0.4)] },
    { dir: '/w/runs/c', manifest: manifest({ stage: 'eval' }), metrics: [evalRow('valid_unseen', 0.25)] },
    { dir: '/w/runs/d', manifest: manifest({ stage: 'train', algorithm: 'grpo' }), metrics: [{ step: 1, time: 't', kind: 'update', 'success/overall': 0.125 }] },
    { dir: '/w/runs/e', manifest: manifest({ stage: 'eval', started: '2026-11-30T15:00:00Z' }), metrics: [evalRow('valid_seen', 0.5)] },
  ];
  assert.equal(runTitle(runs[0]!), 'household-demo · collect');
  assert.equal(runTitle(runs[1]!), 'household-demo · eval valid_seen');
  assert.equal(runTitle(runs[3]!), 'household-demo · grpo');
  // The tree, the pickers and the panels show the title followed by its extras (RunsCore.titles).
  const titled = (all: RunFacts[]) => {
    const extras = titleExtras(all);
    return new Map(all.map((facts) => [facts.dir, [runTitle(facts), ...(extras.get(facts.dir) ?? [])]]));
  };
  const titles = titled(runs);
  assert.equal(new Set([...titles.values()].map((parts) => parts.join(' · '))).size, runs.length);
  assert.deepEqual(titles.get('/w/runs/b'), ['household-demo · eval valid_seen', '2026-11-30 14:05:09']);
  assert.deepEqual(titles.get('/w/runs/e'), ['household-demo · eval valid_seen', '2026-11-30 15:00:00']);
  assert.deepEqual(titles.get('/w/runs/c'), ['household-demo · eval valid_unseen']);
  assert.equal(runSuccess(runs[1]!), 'success 40%');
  assert.equal(runSuccess(runs[3]!), 'success 13%');
  assert.equal(runSuccess(runs[0]!), undefined);
  // A finished training run with evaluations shows its end-of-run evaluation per split (issue 41 item 3), not its
  // last training batch; while it trains, the training success; an eval run over two splits lists both.
  const evaluated = [...runs[3]!.metrics, evalRow('valid_unseen', 0.36), evalRow('valid_seen', 0.52)];
  assert.equal(runSuccess({ ...runs[3]!, metrics: evaluated }), 'eval 52% / 36%');
  assert.equal(runSuccess({ ...runs[3]!, manifest: manifest({ stage: 'train', status: 'running' }), metrics: evaluated }), 'success 13%');
  assert.equal(runSuccess({ ...runs[1]!, metrics: [evalRow('valid_seen', 0.4), evalRow('valid_unseen', 0.3)] }), 'success valid_seen 40%, valid_unseen 30%');
  // Same start second too: the directory tells them apart.
  const twins = titled([runs[1]!, { ...runs[1]!, dir: '/w/runs/b2' }]);
  assert.deepEqual([...twins.values()].map((parts) => parts.at(-1)), ['b', 'b2']);
});

test('state: a Stop shows "stopping" at once; the trainer-written status wins afterwards; a dead trainer is interrupted', () => {
  const running = manifest({ status: 'running' });
  assert.equal(runState(running, { live: () => 'running' }), 'running');
  assert.equal(runState(running, { live: () => 'running', stopRequested: true }), 'stopping');
  assert.equal(runState(running, { live: () => 'interrupted', stopRequested: true }), 'interrupted');
  assert.equal(runState(manifest({ status: 'completed' }), { live: (m) => m.status as 'completed', stopRequested: true }), 'completed');
  assert.equal(runState(undefined, { broken: true }), 'broken');
  assert.equal(runState(undefined), 'loading');
});

test('core: scans with the rules, follows a Stop at once, keeps pinned runs and drops runs the rules no longer match', async () => {
  const workspace = path.join(scratch, 'ws');
  const runDir = path.join(workspace, 'runs', 'r1');
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), runDir, { recursive: true });
  rmSync(path.join(runDir, 'control'));
  const data = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as RunManifest;
  writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ ...data, status: 'running', ended: null }));
  const pinned = path.join(scratch, 'elsewhere');
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), pinned, { recursive: true });
  let scanned = [runDir];
  const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
  const core = new RunsCore({ schemas: () => schemas, scan: async () => scanned, warn: () => undefined, live: (m) => m.status as 'running' });
  const states: string[] = [];
  core.onDidChangeRun((event) => states.push(event.entry.state));
  await core.rescan();
  assert.equal(core.get(runDir)?.state, 'running');
  core.noteStopRequested(runDir);
  assert.equal(core.get(runDir)?.state, 'stopping', 'stopping as soon as Stop was asked for');
  assert.equal(states.at(-1), 'stopping');
  await core.add(pinned);
  scanned = [];
  await core.rescan();
  assert.equal(core.get(runDir), undefined, 'a run the rules no longer match is dropped');
  assert.ok(core.get(pinned), 'a run a feature added stays');
  core.dispose();
});

test('before/after: the same promise while a run is unchanged, linked to base evaluations or not', async () => {
  // The runs tree redraws a run when it gets a new promise, and asks again as it redraws: a new one on every call
  // redrew an expanded run without end (its rows' commands dropped under the user's click).
  const plain = path.join(scratch, 'before-after', 'plain');
  const linked = path.join(scratch, 'before-after', 'linked');
  for (const dir of [plain, linked]) cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), dir, { recursive: true });
  const data = JSON.parse(readFileSync(path.join(linked, 'run.json'), 'utf8')) as RunManifest;
  writeFileSync(path.join(linked, 'run.json'), JSON.stringify({ ...data, baseline_evals: { valid_seen: '../no-such-eval' } }));
  const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
  const core = new RunsCore({ schemas: () => schemas, scan: async () => [plain, linked], warn: () => undefined, live: (m) => m.status as 'running' });
  await core.rescan();
  for (const dir of [plain, linked]) {
    const entry = core.get(dir)!;
    assert.equal(core.beforeAfter(entry), core.beforeAfter(entry), `${path.basename(dir)}: a new promise for an unchanged run`);
  }
  assert.deepEqual(await core.beforeAfter(core.get(plain)!), []);
  const [change] = await core.beforeAfter(core.get(linked)!);
  assert.equal(change?.split, 'valid_seen');
  assert.match(change?.problem ?? '', /no-such-eval/);
  core.dispose();
});

test('watched files: the index files and the evaluation reports, each mapped to its run', () => {
  // Issue 54 item 2: a before/after reads eval/<split>.json, which the trainer writes after the evaluation's metrics
  // row; unwatched, a report that landed after that row was read was not shown until the run changed again.
  const watched = picomatch([...RUN_WATCH_GLOBS], { dot: true });
  for (const file of ['run.json', 'events.jsonl', 'metrics.jsonl', 'trajectories/index.jsonl', 'eval/valid_seen.json']) {
    assert.ok(watched(`runs/r1/${file}`), `${file} is watched`);
  }
  for (const file of ['eval/.valid_seen.json.tmp-4242', 'skills.jsonl', 'trajectories/it-000001.jsonl', 'checkpoints/step-000002/manifest.json']) {
    assert.ok(!watched(`runs/r1/${file}`), `${file} is not watched`);
  }
  const run = path.join('/w', 'runs', 'r1');
  assert.equal(isEvalReport(path.join(run, 'eval', 'valid_seen.json')), true);
  assert.equal(isEvalReport(path.join(run, 'eval', '.valid_seen.json.tmp-4242')), false, "a writer's temporary file");
  assert.equal(isEvalReport(path.join('/w', 'runs', 'eval', 'run.json')), false, 'the manifest of a run directory named eval');
  assert.equal(isEvalReport(path.join(run, 'run.json')), false);
  assert.equal(runDirOfFile(path.join(run, 'eval', 'valid_seen.json')), run);
  assert.equal(runDirOfFile(path.join('/w', 'runs', 'eval', 'run.json')), path.join('/w', 'runs', 'eval'));
});

test('before/after: read again when an evaluation report of the run or of its base lands, and the run is told', async () => {
  // The trainer writes the final evaluation's metrics row, then eval/<split>.json (validated and fsynced first): the
  // before/after read after the row, before the report, said "no final evaluation yet" until the run's status or
  // metrics changed again.
  const fixture = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');
  const base = path.join(scratch, 'reports', 'base');
  const train = path.join(scratch, 'reports', 'train');
  cpSync(fixture, base, { recursive: true });
  cpSync(fixture, train, { recursive: true });
  const report = readFileSync(path.join(train, 'eval', 'test_seen.json'), 'utf8');
  rmSync(path.join(train, 'eval'), { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(train, 'run.json'), 'utf8')) as RunManifest;
  writeFileSync(path.join(train, 'run.json'), JSON.stringify({ ...manifest, status: 'running', baseline_evals: { test_seen: '../base' } }));
  const writeReport = (dir: string, text: string): void => {
    mkdirSync(path.join(dir, 'eval'), { recursive: true });
    writeFileSync(path.join(dir, 'eval', '.test_seen.json.tmp-1'), text);
    renameSync(path.join(dir, 'eval', '.test_seen.json.tmp-1'), path.join(dir, 'eval', 'test_seen.json'));
  };
  const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
  const core = new RunsCore({ schemas: () => schemas, scan: async () => [base, train], warn: () => undefined, live: (m) => m.status as 'running' });
  await core.rescan();
  const events: RunChangeEvent[] = [];
  core.onDidChangeRun((event) => events.push(event));
  const entry = core.get(train)!;
  const [pending] = await core.beforeAfter(entry);
  assert.equal(pending?.after, undefined, 'no report yet');

  // The run's own report lands; its next refresh (a file event or the live poll) finds it.
  writeReport(train, report);
  await core.refresh(train);
  assert.deepEqual(events.map((e) => [path.basename(e.entry.dir), e.evalReports]), [['train', true]], 'the run is told, though nothing it indexes changed');
  const [written] = await core.beforeAfter(entry);
  assert.equal(written?.after?.overall.success, 1, 'the report is read');
  assert.ok(written?.change, 'with the change from the base evaluation');
  const settled = core.beforeAfter(entry);
  await core.refresh(train);
  assert.equal(core.beforeAfter(entry), settled, 'not read again while no report changed');

  // The base evaluation's report is replaced: the run that links it is told, and reads it again.
  events.length = 0;
  const failed = JSON.parse(report) as { overall: { success: number }; episodes: { success: boolean }[] };
  failed.overall.success = 0;
  for (const episode of failed.episodes) episode.success = false;
  writeReport(base, JSON.stringify(failed));
  await core.refresh(base);
  assert.deepEqual(events.map((e) => [path.basename(e.entry.dir), e.evalReports]), [['base', true], ['train', true]]);
  const [rebased] = await core.beforeAfter(entry);
  assert.equal(rebased?.before?.overall.success, 0);

  // A base evaluation the model does not list (outside the discovery rules): a file event still tells the runs that
  // link it.
  events.length = 0;
  const unlisted = new RunsCore({ schemas: () => schemas, scan: async () => [train], warn: () => undefined, live: (m) => m.status as 'running' });
  await unlisted.rescan();
  unlisted.onDidChangeRun((event) => events.push(event));
  unlisted.evalReportsChanged(base);
  assert.deepEqual(events.map((e) => [path.basename(e.entry.dir), e.evalReports]), [['train', true]]);
  unlisted.dispose();
  core.dispose();
});

test('a stop that came during the last update: the run completed, and the message says why', () => {
  const progress = { progress: { step: 5, total: 5, unit: 'update' } };
  assert.equal(runEndMessage('demo', 'completed', progress, false), 'SEED: run demo completed at update 5/5.');
  assert.match(runEndMessage('demo', 'completed', progress, true), /^SEED: run demo completed at update 5\/5: the stop came during its last update/);
  assert.equal(runEndMessage('demo', 'stopped', { progress: { step: 3, total: 5, unit: 'update' } }, true), 'SEED: run demo stopped at update 3/5.');
});

test('group compare: a failure and a success that both have gates; a group without such a pair is refused with why', () => {
  const row = (id: string, success: boolean, teacher: boolean): TrajectoryIndexRow => ({
    id, file: 'it-000001.jsonl', line: 1, offset: 0, size: 1, phase: 'train', update: 1, task: { id: 't', type: 'heat' }, success, reward: success ? 1 : 0, length: 3, tokens: 10, teacher,
  });
  const chosen = groupComparePair([row('f0', false, false), row('f1', false, true), row('s0', true, false), row('s1', true, true)]);
  assert.ok('pair' in chosen && chosen.pair[0].id === 'f1' && chosen.pair[1].id === 's1', JSON.stringify(chosen));
  const noGates = groupComparePair([row('f0', false, false), row('s0', true, false)]);
  assert.ok('refusal' in noGates && /neither its failures nor its successes have gate data/.test(noGates.refusal), JSON.stringify(noGates));
  const halfGates = groupComparePair([row('f0', false, true), row('s0', true, false)]);
  assert.ok('refusal' in halfGates && /its successes have no gate data/.test(halfGates.refusal));
  const allFailed = groupComparePair([row('f0', false, true), row('f1', false, true)]);
  assert.ok('refusal' in allFailed && /no success/.test(allFailed.refusal));
});

test('file events map to their run; the dashboard is told a failed run\'s error and its config', async () => {
  assert.equal(runDirOfFile(path.join('/w', 'runs', 'r1', 'trajectories', 'index.jsonl')), path.join('/w', 'runs', 'r1'));
  assert.equal(runDirOfFile(path.join('/w', 'runs', 'r1', 'metrics.jsonl')), path.join('/w', 'runs', 'r1'));
  const runDir = path.join(scratch, 'failed');
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid'), runDir, { recursive: true });
  const data = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as RunManifest;
  writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ ...data, status: 'failed', error: 'model.path: no folder models/tiny' }));
  const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
  const core = new RunsCore({ schemas: () => schemas, scan: async () => [runDir], warn: () => undefined });
  await core.rescan();
  const described = describeRun(core.get(runDir)!, core.title(runDir));
  assert.equal(described.status, 'failed');
  assert.equal(described.error, 'model.path: no folder models/tiny');
  assert.equal(described.name, 'household-seed · seed');
  assert.ok(described.config && typeof described.config === 'object');
  core.dispose();
});
