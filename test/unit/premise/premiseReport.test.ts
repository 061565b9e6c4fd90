// The premise report view's words and numbers (src/premise/shared/premiseView.ts) and the reading of a report
// (src/premise/core/premiseFile.ts: JSON with a located syntax error, the format, schemas/premise.schema.json through the
// run format's validators). Expectations are computed by hand from test/fixtures/premise/report.json.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { jsonErrorOffset, parsePremiseReport, problemOf, readPremiseReport } from '../../../src/premise/core/premiseFile';
import {
  chanceText,
  contrastVerdict,
  count,
  duration,
  examplesTable,
  expertTable,
  gateTable,
  kindTable,
  magnitude,
  missingVerdicts,
  nats,
  percent,
  percentInterval,
  rateText,
  runTable,
  settingsLine,
  signed,
  timingLine,
} from '../../../src/premise/shared/premiseView';
import { RECORD_SCHEMAS, RunFormatError, RunSchemas, findSchemasDir } from '../../../src/runs/core';
import type { ExpertSection, PremiseReport } from '../../../src/runs/shared/generated/premise';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(findSchemasDir({ extensionRoot: repoRoot }));
const fixtures = path.join(repoRoot, 'test', 'fixtures', 'premise');
const fixture = JSON.parse(readFileSync(path.join(fixtures, 'report.json'), 'utf8')) as PremiseReport;
const expert = fixture.expert_vs_mistake as ExpertSection;

test('numbers: signed points with a true minus, percents, intervals, nats, counts, durations', () => {
  assert.equal(signed(10.5263), '+10.5');
  assert.equal(signed(-4.4820), '\u22124.5');
  assert.equal(signed(0.04), '0.0');
  assert.equal(signed(-0.04), '0.0', 'a value that rounds to zero has no sign');
  assert.equal(percent(0.4801980198019802), '48.0 %');
  assert.equal(percent(0.95, 0), '95 %');
  assert.equal(percent(null), '—');
  assert.equal(percentInterval([0.42153219063545155, 0.5588993329290479]), '[42.2, 55.9]');
  assert.equal(percentInterval([null, null]), 'no interval');
  assert.equal(rateText(0.6, [0.532673773364486, 0.6667134831460674]), '60.0 % [53.3, 66.7]');
  assert.equal(rateText(0.5, [null, null]), '50.0 % (no interval)');
  assert.equal(rateText(null, [null, null]), '—');
  assert.equal(nats(-0.0024006154277537127), '\u22120.0024');
  assert.equal(nats(0.019395922670269957), '+0.019');
  assert.equal(nats(-0.0002665670294510691), '\u22120.00027');
  assert.equal(nats(0.12909730275472006), '+0.129');
  assert.equal(nats(0), '0');
  assert.equal(nats(null), '—');
  assert.equal(magnitude(0.08560923633412418), '0.086');
  assert.equal(magnitude(0.0047), '0.0047');
  assert.equal(count(153980), '153,980');
  assert.equal(count(2000), '2,000');
  assert.equal(count(999), '999');
  assert.equal(duration(35.145487432000664), '35.1 s');
  assert.equal(duration(725), '12 min 5 s');
  assert.equal(duration(7380), '2 h 3 min');
});

test('a rate against chance: above, below, or not distinguishable from ½', () => {
  assert.equal(chanceText(0.6, [0.532673773364486, 0.6667134831460674]), 'above chance');
  assert.equal(chanceText(0.45, [0.42, 0.48780975609756094]), 'below chance');
  assert.equal(chanceText(0.48, [0.42153219063545155, 0.5588993329290479]), 'not distinguishable from chance');
  assert.equal(chanceText(0.5, [0.5, 0.5]), 'not distinguishable from chance', 'an interval that touches ½ holds it');
  assert.equal(chanceText(0.5, [null, null]), 'no interval');
});

test('verdicts: "more" or "less" only when the interval excludes 0, else "not distinguishable"', () => {
  const [oracle, own] = expert.contrasts;
  // own: 0.10526 [0.01694, 0.20834] over 7 tasks → +10.5 points [+1.7, +20.8]
  assert.deepEqual(contrastVerdict(own!, 'expert'), {
    side: 'above',
    text: "The model's own skills move it toward the expert action more than another task's skill: +10.5 points [+1.7, +20.8] over 7 tasks",
  });
  // oracle: 0.02970 [−0.04482, 0.11768] over 8 tasks → +3.0 [−4.5, +11.8], holds 0
  assert.deepEqual(contrastVerdict(oracle!, 'expert'), {
    side: 'holds',
    text: "The oracle analyzer's skills are not distinguishable from another task's skill: +3.0 points [\u22124.5, +11.8] over 8 tasks",
  });
  const below = contrastVerdict({ source: 'own', placebo: 'placebo_own', tasks: 10, difference: -0.12, interval: [-0.2, -0.05] }, 'expert');
  assert.deepEqual(below, { side: 'below', text: "The model's own skills move it toward the expert action less than another task's skill does: \u221212.0 points [\u221220.0, \u22125.0] over 10 tasks" });
  // An interval that ends at 0 holds it.
  assert.equal(contrastVerdict({ source: 'recorded', placebo: 'placebo_recorded', tasks: 12, difference: 0.1, interval: [0, 0.2] }, 'expert').side, 'holds');
  const few = contrastVerdict({ source: 'oracle', placebo: 'placebo_oracle', tasks: 3, difference: 0.2, interval: [0.1, 0.3] }, 'expert');
  assert.equal(few.text, "The oracle analyzer's skills move the model toward the expert action more than another task's skill: +20.0 points [+10.0, +30.0] over 3 tasks (only 3 tasks: an interval over so few is rough)");
  const none = contrastVerdict({ source: 'own', placebo: 'placebo_own', tasks: 2, difference: 0.1, interval: [null, null] }, 'expert');
  assert.deepEqual(none, { side: 'unknown', text: "The model's own skills cannot be compared with another task's skill: +10.0 points over 2 tasks, and no interval could be computed" });
  // runs: the AUC difference −0.01289 [−0.09804, 0.04900] over 16 tasks
  const run = fixture.runs[0]!;
  assert.deepEqual(contrastVerdict(run.contrasts[0]!, 'runs'), {
    side: 'holds',
    text: "The model's own skills are not distinguishable from another task's skill at separating steps of successful and failed episodes: \u22121.3 AUC points [\u22129.8, +4.9] over 16 tasks",
  });
  assert.equal(
    contrastVerdict({ source: 'own', placebo: 'placebo_own', tasks: 16, difference: 0.081, interval: [0.012, 0.15] }, 'runs').text,
    "The model's own skills separate steps of successful episodes from those of failed ones better than another task's skill: +8.1 AUC points [+1.2, +15.0] over 16 tasks",
  );
});

test('what has no verdict: n/a sources with their reason, a scored source without its contrast', () => {
  assert.deepEqual(missingVerdicts(expert.sources, expert.contrasts), []);
  assert.deepEqual(missingVerdicts(fixture.runs[0]!.sources, fixture.runs[0]!.contrasts), ['recorded: n/a — no task with a skill']);
  assert.deepEqual(missingVerdicts(fixture.runs[1]!.sources, fixture.runs[1]!.contrasts), [
    'own: n/a — 0 steps of successful and 54 of failed episodes',
    'placebo of own: n/a — 0 steps of successful and 54 of failed episodes',
  ]);
  const ok = { status: 'ok' as const };
  assert.deepEqual(missingVerdicts({ own: ok, placebo_own: { status: 'n/a', reason: 'the model wrote no parseable skill' } }, []), [
    'placebo of own: n/a — the model wrote no parseable skill',
    'own: no contrast with its placebo (its placebo is n/a)',
  ]);
  assert.deepEqual(missingVerdicts({ recorded: ok }, []), ['recorded: no contrast with its placebo (no placebo was scored)']);
  assert.deepEqual(missingVerdicts({ oracle: ok, placebo_oracle: ok }, []), ['oracle: no contrast with its placebo (fewer than two tasks have both)']);
});

test('header lines: the settings in one line, the timing with the forward passes\' rate', () => {
  assert.equal(settingsLine(fixture.settings), 'history 3 · max_steps 20 · max_prompt_tokens 1024 · analysis_tokens 192 · temperature 1 · β 5 · 200 resamples · 95 % intervals · seed 0 · float32');
  assert.match(settingsLine({ ...fixture.settings, memory: true }), /^history 3 · memory line on · max_steps 20/);
  // 153980 tokens / 27.892 s = 5520.6 tokens/s
  assert.equal(timingLine(fixture.timing), '35.1 s in all; forward passes 27.9 s over 153,980 tokens (5,521 tokens/s)');
});

test('the expert table: each source beside its placebo, win rates with intervals, chance, mean Δ', () => {
  const table = expertTable(expert, 0.95);
  assert.deepEqual(table.headers, ['source', 'with a skill', 'pairs', 'tasks', 'P(Δ(a*) > Δ(m)) [95 %]', 'against chance', 'whole response [95 %]', 'mean Δ(a*)', 'mean Δ(m)']);
  assert.deepEqual(table.rows.map((r) => [r.key, r.label]), [['oracle', 'oracle'], ['placebo_oracle', 'placebo of oracle'], ['own', 'own'], ['placebo_own', 'placebo of own']]);
  assert.deepEqual(table.rows[2]!.cells, ['7 of 8', '95', '7', '60.0 % [53.3, 66.7]', 'above chance', '86.3 % [76.9, 92.8]', '\u22120.00027', '\u22120.0076']);
  assert.equal(table.rows[1]!.cells[4], 'below chance');
  const na = expertTable({ ...expert, sources: { ...expert.sources, own: { status: 'n/a', reason: 'the model wrote no parseable skill' } } }, 0.9);
  const own = na.rows.find((r) => r.key === 'own')!;
  assert.deepEqual([own.cells, own.na], [['7 of 8'], 'the model wrote no parseable skill']);
  assert.equal(na.headers[4], 'P(Δ(a*) > Δ(m)) [90 %]');
});

test('the mistake kinds × sources, the examples as given, the runs, the gate band', () => {
  const kinds = kindTable(expert, 0.95);
  assert.deepEqual(kinds.headers, ['mistake kind', 'oracle [95 %]', 'placebo of oracle [95 %]', 'own [95 %]', 'placebo of own [95 %]']);
  assert.deepEqual(kinds.rows.map((r) => r.key), ['invalid', 'revisit', 'skip_open', 'skip_transform', 'wrong_object']);
  assert.equal(kinds.rows[4]!.cells[2], '75.0 % [60.0, 100.0]\n4 pairs, 3 tasks');
  assert.equal(kinds.rows[0]!.cells[0], '45.8 % [36.5, 57.0]\n72 pairs, 8 tasks');

  const examples = examplesTable(expert);
  assert.deepEqual(examples.headers, ['task', 'attempt A', 'oracle skill', 'own skill']);
  assert.equal(examples.rows[1]!.cells[2], '<img src=x onerror=alert(1)>', 'a skill is text, kept as written');
  assert.deepEqual(examples.rows[2]!.cells.map((c, i) => (i === 1 ? c.slice(0, 12) : c)), ['failed', 'To cool a br', '— (none: the reply did not parse)']);

  const run = runTable(fixture.runs[0]!, 0.95);
  assert.deepEqual(run.rows.map((r) => r.key), ['own', 'placebo_own', 'recorded']);
  // AUC 0.46138 [0.39496, 0.52104]
  assert.deepEqual(run.rows[0]!.cells, ['16 of 16', '16', '16', '95 / 160', '46.1 % [39.5, 52.1]', 'not distinguishable from chance']);
  assert.deepEqual([run.rows[2]!.cells, run.rows[2]!.na], [['0 of 16'], 'no task with a skill']);

  const gate = gateTable(fixture.gate_band);
  assert.deepEqual(gate.headers, ['source', 'action: outside the band', 'action: mean |Δ|', 'think: outside the band', 'think: mean |Δ|', 'format: outside the band', 'format: mean |Δ|']);
  // oracle: action 20 of 60, think 119 of 351, format 293 of 808
  assert.deepEqual(gate.rows[0]!.cells, ['33.3 % (20 of 60)', '0.129', '33.9 % (119 of 351)', '0.086', '36.3 % (293 of 808)', '0.123']);
});

test('the TS and the trainer check reports against the one list of record schemas, premise included', () => {
  const python = readFileSync(path.join(repoRoot, 'trainer', 'seed_trainer', 'runlog', 'schemas.py'), 'utf8');
  const tuple = /^RECORD_SCHEMAS = \(([^)]*)\)/m.exec(python)?.[1] ?? '';
  assert.deepEqual([...tuple.matchAll(/"([^"]+)"/g)].map((m) => m[1]), [...RECORD_SCHEMAS]);
  assert.ok(RECORD_SCHEMAS.includes('premise'));
});

test('reading: the fixture is valid; a schema failure names the field under a oneOf, not the n/a branch', async () => {
  const report = await readPremiseReport(path.join(fixtures, 'report.json'), schemas);
  assert.equal(report.model, 'builtin:household-tiny');
  const invalid = path.join(fixtures, 'invalid.json');
  await assert.rejects(readPremiseReport(invalid, schemas), (error: unknown) => {
    assert.ok(error instanceof RunFormatError);
    assert.deepEqual([error.kind, error.field, error.detail], ['schema', 'expert_vs_mistake.sources.own.win_rate', 'must be <= 1']);
    assert.deepEqual(problemOf(error, invalid), { file: invalid, kind: 'schema', field: 'expert_vs_mistake.sources.own.win_rate', message: 'must be <= 1' });
    return true;
  });
  const check = (change: (r: Record<string, unknown>) => void): RunFormatError => {
    const value = structuredClone(fixture) as unknown as Record<string, unknown>;
    change(value);
    try {
      parsePremiseReport(new TextEncoder().encode(JSON.stringify(value)), '/reports/premise.json', schemas);
    } catch (error) {
      assert.ok(error instanceof RunFormatError);
      return error;
    }
    assert.fail('accepted');
  };
  const expertOf = (r: Record<string, unknown>) => r.expert_vs_mistake as Record<string, unknown>;
  assert.deepEqual(
    [check((r) => delete expertOf(r).split)].map((e) => [e.field, e.detail, e.message]),
    [['expert_vs_mistake.split', 'is required', '/reports/premise.json: expert_vs_mistake.split: is required']],
  );
  assert.equal(check((r) => (r.expert_vs_mistake = { status: 'n/a' })).field, 'expert_vs_mistake.reason');
  const status = check((r) => (expertOf(r).status = 'maybe'));
  assert.deepEqual([status.field, status.detail], ['expert_vs_mistake.status', 'must be "ok"']);
  assert.equal(check((r) => ((r.runs as Array<{ sources: Record<string, unknown> }>)[0]!.sources.own = { status: 'n/a', reason: '' })).field, 'runs[0].sources.own.reason');
  const old = check((r) => {
    delete r.format;
    r.kind = 'premise';
    r.version = 1;
  });
  assert.deepEqual([old.kind, old.field], ['unsupported_version', 'format']);
  assert.match(old.detail, /an earlier format of the premise report .*python -m seed_trainer premise/);
  const future = check((r) => (r.format = 2));
  assert.deepEqual([future.kind, future.detail], ['unsupported_version', 'format 2 is not supported; this view reads format 1']);
});

test('reading: JSON syntax errors name the line and column; other bytes and missing files are named too', async () => {
  const parse = (text: string | Uint8Array): RunFormatError => {
    try {
      parsePremiseReport(typeof text === 'string' ? new TextEncoder().encode(text) : text, '/reports/premise.json', schemas);
    } catch (error) {
      assert.ok(error instanceof RunFormatError);
      return error;
    }
    assert.fail('accepted');
  };
  // "  \"model\": x": the x is the 12th character of line 3.
  const token = parse('{\n  "format": 1,\n  "model": x\n}');
  assert.deepEqual([token.kind, token.line, token.detail], ['invalid_json', 3, "not valid JSON: Unexpected token 'x' (column 12)"]);
  assert.equal(token.message, "/reports/premise.json:3: not valid JSON: Unexpected token 'x' (column 12)");
  const comma = parse('{"a": 1,}');
  assert.deepEqual([comma.line, comma.detail], [1, 'not valid JSON: Expected double-quoted property name (column 9)']);
  const empty = parse('');
  assert.deepEqual([empty.line, empty.detail], [1, 'not valid JSON: Unexpected end of JSON input (column 1)']);
  assert.equal(parse(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])).detail, 'not UTF-8 text');
  assert.equal(jsonErrorOffset(readFileSync(path.join(fixtures, 'report.json'), 'utf8')), undefined, 'valid JSON has no error offset');
  assert.equal(jsonErrorOffset('[1, 2]]'), 6);
  assert.equal(jsonErrorOffset('{"a": "\\q"}'), 8);
  assert.equal(jsonErrorOffset('-01'), 2);
  await assert.rejects(readPremiseReport(path.join(fixtures, 'no-such-report.json'), schemas), (error: unknown) => error instanceof RunFormatError && error.kind === 'missing_file');
});
