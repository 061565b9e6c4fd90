// What the viewer shows for a run's OPD estimator: the estimator read from run.json's config, g − b per token (½ filled
// for `centred` records without a baseline), the g − b colour scale (diverging around 0) and the words of each estimator.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { decodeTokenArrays, type TokenArrays } from '../../../src/runs/shared/tokenArrays';
import type { RecordedExperiment, Trajectory } from '../../../src/runs/shared/types';
import { ExperimentSchema, type JsonSchema } from '../../../src/experiments/core/experimentSchema';
import { CENTER_BIN, BINS, binOf, describeScale, fittedScale, heatScale } from '../../../src/trajectory/shared/colorScale';
import { OPD_ESTIMATORS, baselineWording, gateMinusBaseline, opdEstimatorOf, subtractsBaseline, withCentredBaseline, type OpdEstimator } from '../../../src/runs/shared/opdEstimator';
import { repoRoot } from '../support/repoPaths';

const arrays = (gate: number[], gateBaseline?: number[]): TokenArrays => ({
  count: gate.length,
  ids: Int32Array.from(gate, (_, i) => i),
  text: gate.map(() => 'x'),
  gate: Float32Array.from(gate),
  ...(gateBaseline ? { gateBaseline: Float32Array.from(gateBaseline) } : {}),
});

/** A recorded config whose `opd.estimator` is `value`, which the type may not list. */
function withEstimator(value: unknown): RecordedExperiment {
  return { opd: { estimator: value } } as RecordedExperiment;
}

test('the estimator comes from config.opd.estimator; none is the trainer default, an unknown one is undefined', () => {
  assert.equal(opdEstimatorOf({ opd: { estimator: 'baseline' } }), 'baseline');
  assert.equal(opdEstimatorOf({ opd: { estimator: 'expected', beta: 5 } }), 'expected');
  assert.equal(opdEstimatorOf({ opd: { beta: 5 } }), 'sample');
  assert.equal(opdEstimatorOf({}), 'sample');
  // What a trainer older or newer than the schema may have recorded (the run schema checks only that config is an object).
  assert.equal(opdEstimatorOf(withEstimator('median')), undefined);
  assert.equal(opdEstimatorOf(withEstimator(3)), undefined);
  assert.equal(opdEstimatorOf(withEstimator('toString')), undefined);
  assert.deepEqual(['sample', 'centred', 'baseline', 'expected', undefined].map((e) => subtractsBaseline(e as never)), [false, true, true, true, false]);
});

interface EstimatorRow {
  name: string;
  subtracts: string;
  keeps: string;
}

/** The trainer's table of estimators as the experiment schema carries it (`x-estimators` on `opd.estimator`). */
function trainerEstimators(): EstimatorRow[] {
  const document = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as JsonSchema;
  const field = new ExperimentSchema(document).schemaAt(['opd', 'estimator']);
  const rows = field?.['x-estimators'] as EstimatorRow[] | undefined;
  assert.ok(rows && field?.enum);
  assert.deepEqual(rows.map((row) => row.name), field.enum, 'x-estimators lists the enum\'s names, in order');
  return rows;
}

test('the viewer\'s estimators are the experiment schema\'s enum, in order, with what each subtracts and its own words', () => {
  const rows = trainerEstimators();
  assert.deepEqual(Object.keys(OPD_ESTIMATORS), rows.map((row) => row.name));
  for (const row of rows) {
    const name = row.name as OpdEstimator;
    assert.equal(OPD_ESTIMATORS[name], row.subtracts, name);
    assert.equal(opdEstimatorOf({ opd: { estimator: name } }), name);
    assert.equal(subtractsBaseline(name), row.subtracts !== 'nothing', name);
    if (row.subtracts === 'nothing') continue;
    // an estimator that subtracts has its own note (not the unknown estimator's), and the weight label says what
    const wording = baselineWording(name);
    assert.ok(wording.note.startsWith(`opd.estimator: ${name} — `), name);
    assert.equal(wording.weight, row.subtracts === 'centre' ? 'g − ½' : 'g − b(s)', name);
    assert.equal(row.keeps === 'soft_targets', /every vocabulary token/.test(wording.note), `${name}: the note says whether it weighs the vocabulary`);
    const sign = row.keeps === 'soft_targets' ? ': its sign' : '';
    assert.equal(wording.weightRow, `${wording.weight} (update weight${sign})`, `${name}: the card says g − b is only the push's sign`);
  }
});

test('g − b per token, exactly the float32 difference; undefined without a gate or a baseline', () => {
  const step = arrays([0.75, 0.5, 0.125], [0.5, 0.625, 0.125]);
  assert.deepEqual([...gateMinusBaseline(step)!], [0.25, -0.125, 0]);
  assert.equal(gateMinusBaseline(step), gateMinusBaseline(step), 'computed once per decoded step');
  assert.equal(gateMinusBaseline(arrays([0.75])), undefined);
});

test('a centred run without recorded baselines gets b = ½; other estimators get nothing invented', () => {
  const plain = arrays([0.75, 0.25]);
  assert.deepEqual([...withCentredBaseline(plain, 'centred')!.gateBaseline!], [0.5, 0.5]);
  assert.deepEqual([...gateMinusBaseline(withCentredBaseline(plain, 'centred')!)!], [0.25, -0.25]);
  assert.equal(withCentredBaseline(plain, 'baseline'), plain);
  assert.equal(withCentredBaseline(plain, 'sample'), plain);
  const recorded = arrays([0.75], [0.5]);
  assert.equal(withCentredBaseline(recorded, 'centred'), recorded, 'a recorded baseline is kept');
  const noGate: TokenArrays = { count: 1, ids: Int32Array.from([1]), text: ['x'] };
  assert.equal(withCentredBaseline(noGate, 'centred')?.gateBaseline, undefined);
});

test('the g − b scale is diverging around 0 over [−1, 1], fitted spans stay inside it', () => {
  const scale = heatScale('weight');
  assert.deepEqual([scale.kind, scale.low, scale.center, scale.high], ['diverging', -1, 0, 1]);
  assert.equal(binOf(scale, 0), CENTER_BIN);
  assert.equal(binOf(scale, -1), 0);
  assert.equal(binOf(scale, 1), BINS - 1);
  assert.ok(binOf(scale, 0.3) > CENTER_BIN && binOf(scale, -0.3) < CENTER_BIN);
  const fitted = fittedScale('weight', [Float32Array.from([0.02, -0.04, 0.01, 0])]);
  assert.equal(fitted.center, 0);
  // The 98th percentile of |g − b| over 4 values is the third smallest (0.02): the one outlier (0.04) is clamped.
  assert.deepEqual([fitted.low, fitted.high], [-Math.fround(0.02), Math.fround(0.02)]);
  assert.deepEqual(fitted.coverage && [fitted.coverage.coloured, fitted.coverage.total], [3, 4]);
  const wide = fittedScale('weight', [Float32Array.from([-1.5, 1.5])]);
  assert.deepEqual([wide.low, wide.high], [-1, 1], 'never beyond the absolute domain of g − b');
});

test('each estimator names b and g − b, in the legend and for the gate scale', () => {
  assert.equal(baselineWording('centred').weight, 'g − ½');
  assert.equal(baselineWording('baseline').baseline, 'b(s)');
  assert.match(baselineWording('baseline').note, /b\(s\) = Σ_v π_old\(v\|s\)·g\(v\)/);
  assert.match(baselineWording('expected').note, /every vocabulary token/);
  assert.match(baselineWording('expected').lowMeaning, /lowered the sampled token's logit/);
  assert.match(baselineWording(undefined).note, /does not say how it was computed/);
  const weight = describeScale(heatScale('weight'), 'centred', true);
  assert.equal(weight.title, 'update weight g − ½');
  assert.match(weight.note ?? '', /^opd\.estimator: centred/);
  assert.equal(weight.note, baselineWording('centred').note);
  assert.match(describeScale(heatScale('gate'), 'baseline', true).note ?? '', /weighed the sampled tokens by g − b\(s\), not by g/);
  assert.equal(describeScale(heatScale('gate'), 'sample', false).note, undefined, 'the paper\'s estimator weighs by g: nothing to add');
  assert.equal(describeScale(heatScale('gate'), 'baseline', false).note, undefined, 'no baseline recorded: no pointer to a mode that is off');
  assert.equal(describeScale(heatScale('delta'), 'baseline', true), heatScale('delta'));
});

test('the baseline fixture: b(s) lies in [0, 1] and g − b is g minus it on every token', () => {
  const file = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid-baseline', 'trajectories', 'it-000001.jsonl');
  const trajectory = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as Trajectory;
  const step = decodeTokenArrays(trajectory.steps[0]!.tokens!);
  const weight = gateMinusBaseline(step)!;
  assert.equal(weight.length, step.count);
  step.gateBaseline!.forEach((b, i) => {
    assert.ok(b >= 0 && b <= 1, `b of token ${i} is ${b}`);
    assert.equal(weight[i], Math.fround(step.gate![i]! - b));
  });
});
