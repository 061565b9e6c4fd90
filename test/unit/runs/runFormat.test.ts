// The run-directory contract from the extension's side: every fixture in test/fixtures/runs/ checked against the
// expectations the trainer's tests read too, trajectory reads through the index, review decisions, stop requests.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkRun } from '../../../src/runs/core/checkRun';
import { gateOfDelta } from '../../../src/runs/shared/gate';
import { requestStop } from '../../../src/runs/core/control';
import { RunFormatError } from '../../../src/runs/core/errors';
import { FORMAT_VERSION } from '../../../src/runs/core/runFiles';
import { RunReader } from '../../../src/runs/core/runReader';
import { RunSchemas, findSchemasDir } from '../../../src/runs/core/schemas';
import { applySkillReviews } from '../../../src/runs/core/skillReview';
import { QUANTILE_KEYS, quantileSummary } from '../../../src/runs/shared/metricQuantiles';
import { quantileOfSorted } from '../../../src/dashboard/shared/robustRange';
import { repoRoot } from '../support/repoPaths';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'runs');

interface ExpectedError {
  kind: string;
  file: string;
  line: number | null;
  field: string | null;
  message_includes?: string;
}

interface Expectation {
  errors: ExpectedError[];
  warnings: { kind: string; file: string; line: number }[];
  counts?: Record<string, unknown>;
  decoded?: {
    trajectory: string;
    step: number;
    count: number;
    text: string[];
    ids_head: number[];
    logp_head: number[];
    teacher_logp_head: number[];
    delta_head: number[];
    gate_head: number[];
    gate_baseline_head?: number[];
    beta?: number;
    estimator?: string;
  };
  review_states?: string[];
  tags?: string[];
  quantiles?: Record<string, Array<{ step: number } & Record<string, number>>>;
  manifest?: Record<string, unknown>;
}

// Read at load time so that one test is declared per fixture.
const expectations = (JSON.parse(readFileSync(path.join(fixtures, 'expectations.json'), 'utf8')) as { runs: Record<string, Expectation> }).runs;

const schemas = RunSchemas.load(path.join(repoRoot, 'schemas'));

describe('run fixtures match expectations.json', () => {
  for (const [name, expected] of Object.entries(expectations)) {
    test(name, async () => {
      const report = await checkRun(path.join(fixtures, name), schemas);
      const got = report.errors.map((e) => ({ kind: e.kind, file: e.file, line: e.line ?? null, field: e.field ?? null }));
      const want = expected.errors.map(({ kind, file, line, field }) => ({ kind, file, line, field }));
      assert.deepEqual(got, want, report.errors.map((e) => e.message).join('\n'));
      report.errors.forEach((error, i) => {
        assert.ok(error.message.includes(error.file), error.message);
        if (error.line !== undefined) assert.ok(error.message.includes(`:${error.line}:`), error.message);
        if (error.field) assert.ok(error.message.includes(error.field), error.message);
        assert.ok(error.message.includes(expected.errors[i]?.message_includes ?? ''), error.message);
      });
      assert.deepEqual(
        report.warnings.map((w) => ({ kind: w.kind, file: w.file, line: w.line })),
        expected.warnings,
      );
      for (const [key, value] of Object.entries(expected.counts ?? {})) {
        assert.deepEqual(report.counts[key as keyof typeof report.counts], value, key);
      }
    });
  }
});

test('the valid fixture decodes to the arrays the trainer wrote', async () => {
  const decoded = expectations.valid?.decoded;
  assert.ok(decoded);
  const reader = new RunReader(path.join(fixtures, 'valid'), schemas);
  const trajectory = await reader.findTrajectory(decoded.trajectory);
  const step = trajectory.steps[decoded.step];
  assert.ok(step);
  const arrays = RunReader.decodeStep(step);
  assert.ok(arrays?.logp && arrays.teacherLogp && arrays.delta && arrays.gate);
  assert.equal(arrays.count, decoded.count);
  assert.deepEqual(arrays.text, decoded.text);
  assert.equal(arrays.text.join(''), step.response);
  assert.deepEqual([...arrays.ids.slice(0, 6)], decoded.ids_head);
  // float32 values widen to exactly the doubles Python printed.
  assert.deepEqual([...arrays.logp.slice(0, 6)], decoded.logp_head);
  assert.deepEqual([...arrays.teacherLogp.slice(0, 6)], decoded.teacher_logp_head);
  assert.deepEqual([...arrays.delta.slice(0, 6)], decoded.delta_head);
  assert.deepEqual([...arrays.gate.slice(0, 6)], decoded.gate_head);
  const beta = decoded.beta ?? NaN;
  arrays.delta.forEach((delta, i) => {
    assert.ok(Math.abs((arrays.gate?.[i] ?? NaN) - gateOfDelta(delta, beta)) < 1e-6);
  });
});

test('the baseline fixture decodes gate_baseline beside the gate, as the trainer wrote it', async () => {
  const decoded = expectations['valid-baseline']?.decoded;
  assert.ok(decoded?.gate_baseline_head);
  const reader = new RunReader(path.join(fixtures, 'valid-baseline'), schemas);
  const manifest = await reader.readManifest();
  assert.equal((manifest.config.opd as { estimator?: unknown }).estimator, decoded.estimator);
  const step = (await reader.findTrajectory(decoded.trajectory)).steps[decoded.step];
  const arrays = step && RunReader.decodeStep(step);
  assert.ok(arrays?.gate && arrays.gateBaseline);
  assert.equal(arrays.count, decoded.count);
  assert.deepEqual([...arrays.gate.slice(0, 6)], decoded.gate_head);
  assert.deepEqual([...arrays.gateBaseline.slice(0, 6)], decoded.gate_baseline_head);
});

test('the valid fixture reads through the reader', async () => {
  const expected = expectations.valid;
  assert.ok(expected);
  const reader = new RunReader(path.join(fixtures, 'valid'), schemas);
  const manifest = await reader.readManifest();
  for (const [key, value] of Object.entries(expected.manifest ?? {})) {
    assert.deepEqual((manifest as unknown as Record<string, unknown>)[key], value, key);
  }
  assert.equal(manifest.format_version, FORMAT_VERSION);
  const skills = await reader.readSkills();
  assert.deepEqual(skills.records.map((r) => r.value.review.state), expected.review_states);
  const index = (await reader.readTrajectoryIndex()).records.map((r) => r.value);
  for (const row of index) {
    const trajectory = await reader.readTrajectory(row);
    assert.equal(trajectory.id, row.id);
    assert.equal(trajectory.steps.length, row.length);
    const tokens = trajectory.steps.reduce((sum, s) => sum + (s.tokens?.count ?? 0), 0);
    assert.equal(tokens, row.tokens);
    const teacher = trajectory.steps.some((s) => RunReader.decodeStep(s)?.gate !== undefined);
    assert.equal(teacher, row.teacher);
  }
  const metrics = (await reader.readMetrics()).records.map((r) => r.value);
  assert.deepEqual(metrics.map((m) => [m.kind, m.step, m['success/overall']]), [['update', 1, 2 / 3], ['update', 2, 1], ['eval', 2, 1]]);
  assert.equal(metrics[2]?.['success/clean'], null);
  assert.equal((await reader.readEval('test_seen')).overall.success, 1);
  assert.deepEqual((await reader.listCheckpoints()).map((c) => c.step), [2]);
  assert.equal((await reader.readControl())?.request, 'stop');
  assert.deepEqual(await reader.readTags(), expected.tags);
  assert.deepEqual(reader.warnings, []);
});

test('an index row whose trajectory file is missing is the reader’s located error, not a raw ENOENT', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'seed-missing-trajectory-'));
  try {
    await cp(path.join(fixtures, 'valid'), dir, { recursive: true });
    const reader = new RunReader(dir, schemas);
    const row = (await reader.readTrajectoryIndex()).records[0]?.value;
    assert.ok(row);
    await rm(path.join(dir, 'trajectories', row.file));
    await assert.rejects(reader.readTrajectory(row), (error: unknown) => {
      assert.ok(error instanceof RunFormatError, `not the reader's error: ${String(error)}`);
      assert.equal(error.kind, 'index');
      assert.equal(error.file, `trajectories/${row.file}`);
      assert.match(error.message, new RegExp(`trajectories/index\\.jsonl names this file for trajectory "${row.id}"; it does not exist`));
      return true;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the valid fixture’s quantiles of g and Δ are those of its distilled tokens', async () => {
  const expected = expectations.valid?.quantiles;
  assert.ok(expected);
  const reader = new RunReader(path.join(fixtures, 'valid'), schemas);
  const rows = (await reader.readMetrics()).records.map((r) => r.value).filter((row) => row.kind === 'update');
  // The tokens each update distilled, decoded from its trajectories.
  const distilled = new Map<number, { gate: number[]; delta: number[] }>();
  for (const { value: row } of (await reader.readTrajectoryIndex()).records) {
    if (row.phase !== 'train' || typeof row.update !== 'number') continue;
    for (const step of (await reader.readTrajectory(row)).steps) {
      const arrays = RunReader.decodeStep(step);
      if (!arrays?.gate || !arrays.delta) continue;
      const values = distilled.get(row.update) ?? { gate: [], delta: [] };
      values.gate.push(...arrays.gate);
      values.delta.push(...arrays.delta);
      distilled.set(row.update, values);
    }
  }
  for (const family of ['gate', 'delta'] as const) {
    const summaries = rows.map((row) => ({ step: row.step, ...quantileSummary(row, family) }));
    assert.deepEqual(summaries, expected[family]);
    for (const summary of summaries) {
      const sorted = Float64Array.from(distilled.get(summary.step)?.[family] ?? []).sort();
      assert.equal(summary.count, sorted.length);
      const levels = { min: 0, p05: 0.05, p25: 0.25, p50: 0.5, p75: 0.75, p95: 0.95, max: 1 };
      for (const key of QUANTILE_KEYS) assert.ok(Math.abs((summary[key] ?? NaN) - quantileOfSorted(sorted, levels[key])) < 1e-12, `${family}/${key}`);
    }
  }
  assert.equal(quantileSummary({ step: 1, time: '2026-03-01T12:00:00Z', kind: 'update', 'gate/count': 0 }, 'gate'), undefined);
});

test('an unknown format_version is refused with a message naming both versions', async () => {
  const reader = new RunReader(path.join(fixtures, 'unknown-format-version'), schemas);
  await assert.rejects(reader.readManifest(), (error: unknown) => {
    assert.ok(error instanceof RunFormatError);
    assert.equal(error.kind, 'unsupported_version');
    assert.match(error.message, /format_version 2 is not supported .*reads format_version 1/);
    return true;
  });
});

test('a torn last line is skipped and reported', async () => {
  const reader = new RunReader(path.join(fixtures, 'torn-last-line'), schemas);
  const metrics = await reader.readMetrics();
  assert.deepEqual(metrics.records.map((r) => r.value.step), [1, 2]);
  assert.equal(metrics.torn?.line, 3);
  assert.match(reader.warnings[0]?.message ?? '', /metrics\.jsonl:3: torn last line/);
});

test('schemas are found from the compiled module and from an extension root', () => {
  assert.equal(findSchemasDir(), path.join(repoRoot, 'schemas'));
  assert.equal(findSchemasDir({ extensionRoot: repoRoot }), path.join(repoRoot, 'schemas'));
  assert.throws(() => findSchemasDir({ extensionRoot: path.join(repoRoot, 'docs') }), /no run-format schemas/);
  assert.throws(() => findSchemasDir({ start: tmpdir() }), /no run-format schemas/);
});

test('every fixture run (a directory holding a run.json) has its expectation above', () => {
  const dirs = readdirSync(fixtures).filter((name) => existsSync(path.join(fixtures, name, 'run.json')));
  assert.deepEqual(dirs.sort(), Object.keys(expectations).sort());
});

describe('writes the extension makes', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'seed-run-'));
    await cp(path.join(fixtures, 'valid'), path.join(dir, 'valid'), { recursive: true });
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('requestStop writes a control file the reader accepts', async () => {
    const runDir = path.join(dir, 'valid');
    await requestStop(runDir, 'vscode', new Date(Date.UTC(2026, 2, 1, 13, 0, 0)));
    const control = await new RunReader(runDir, schemas).readControl();
    assert.deepEqual(control, { request: 'stop', time: '2026-03-01T13:00:00.000Z', source: 'vscode' });
  });

  test('review decisions change only the decided lines, and the reader accepts the result', async () => {
    const runDir = path.join(dir, 'valid');
    const skillsPath = path.join(runDir, 'skills.jsonl');
    const data = await readFile(skillsPath);
    const beforeLines = data.toString('utf8').split('\n');
    const now = new Date(Date.UTC(2026, 2, 2));
    const decisions = new Map([
      ['collect-000001-0001', { state: 'edited' as const, text: 'Look on countertops first.' }],
      ['collect-000001-0004', { state: 'rejected' as const, note: 'too vague' }],
    ]);
    // As the skill review's document save does: the decided text written back whole.
    await writeFile(skillsPath, applySkillReviews(data, decisions, schemas, now));
    const afterLines = (await readFile(skillsPath, 'utf8')).split('\n');
    assert.equal(afterLines.length, beforeLines.length);
    assert.deepEqual([afterLines[1], afterLines[2], afterLines[4]], [beforeLines[1], beforeLines[2], beforeLines[4]]);
    const skills = (await new RunReader(runDir, schemas).readSkills()).records.map((r) => r.value);
    assert.deepEqual(skills[0]?.review, { state: 'edited', text: 'Look on countertops first.', time: now.toISOString() });
    assert.deepEqual(skills[3]?.review, { state: 'rejected', time: now.toISOString(), note: 'too vague' });
    assert.equal(skills[0]?.skill, beforeLines[0] && JSON.parse(beforeLines[0]).skill);
  });

  test('review decisions the schema refuses, unknown ids and torn files change nothing', async () => {
    const data = await readFile(path.join(fixtures, 'valid', 'skills.jsonl'));
    assert.throws(
      () => applySkillReviews(data, new Map([['collect-000001-0002', { state: 'edited', text: '  ' }]]), schemas),
      (error: unknown) => error instanceof RunFormatError && error.line === 2 && error.field === 'review.text',
    );
    assert.throws(() => applySkillReviews(data, new Map([['nope', { state: 'accepted' }]]), schemas), /no record with id "nope"/);
    const torn = Buffer.concat([data, Buffer.from('{"id":')]);
    assert.throws(() => applySkillReviews(torn, new Map(), schemas), /skills\.jsonl:5: torn last line/);
  });
});
