// The metric names are written once, in schemas/metric.schema.json (docs/run-format.md §6): the dashboard's charts are
// derived from them (every name has a chart or says it has none, and every chart draws listed names only); a name the
// schema does not list still reads (a newer trainer's: a new name keeps the format version) and the checker warns of
// it, while the names older runs wrote read without a warning.
// (trainer/tests/runlog/test_metric_names.py holds the trainer's writing to the same list.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DASHBOARD_CHARTS, chartMetrics, chartOf, metricPoints, seriesLabel } from '../../../src/dashboard/shared/charts';
import { FINAL_METRICS } from '../../../src/dashboard/shared/runComparison';
import { checkRun } from '../../../src/runs/core/checkRun';
import { RunFormatError } from '../../../src/runs/core/errors';
import { unknownMetrics } from '../../../src/runs/core/runConsistency';
import { RunReader } from '../../../src/runs/core/runReader';
import { RunSchemas } from '../../../src/runs/core/schemas';
import { METRIC_NAMES, METRIC_UNITS } from '../../../src/runs/shared/generated/metricNames';
import { metricEntry } from '../../../src/runs/shared/knownMetrics';
import type { MetricRow } from '../../../src/runs/shared/types';
import { repoRoot } from '../support/repoPaths';

const schemas = RunSchemas.load(path.join(repoRoot, 'schemas'));
const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'metric.schema.json'), 'utf8')) as {
  properties: Record<string, unknown>;
  patternProperties: Record<string, { 'x-family'?: string; $ref?: string }>;
};

/** A name of the entry as a row carries it: the name itself, or one of a family's (`success/heat`). */
const sample = (name: string): string => name.replace(/<[^>]+>$/, 'heat');

test('METRIC_NAMES are the names of schemas/metric.schema.json, each with a unit it defines', () => {
  // the one pattern that is no family: any namespaced name, which reads though the schema does not list it
  const families = Object.values(schema.patternProperties).filter((spec) => spec.$ref !== '#/$defs/unlisted_metric');
  assert.equal(families.length, Object.keys(schema.patternProperties).length - 1);
  const listed = [...Object.keys(schema.properties).filter((name) => name.includes('/')), ...families.map((family) => family['x-family'])];
  assert.deepEqual(METRIC_NAMES.map((entry) => entry.name), listed);
  for (const entry of METRIC_NAMES) assert.ok(entry.unit in METRIC_UNITS, entry.name);
  assert.ok(listed.includes('optim/lr') && listed.includes('success/<task_type>'));
});

test('every metric name has a chart or is listed as not charted, and every chart draws listed names only', () => {
  const charted = new Set(DASHBOARD_CHARTS.map((chart) => chart.metricsOf ?? chart.id));
  for (const entry of METRIC_NAMES) {
    const name = sample(entry.name);
    if (entry.chart === false) {
      assert.equal(chartOf(name), undefined, `${entry.name} is not charted: no chart draws it`);
      continue;
    }
    assert.ok(charted.has(entry.chart), `${entry.name}: x-chart ${entry.chart} is no chart of DASHBOARD_CHARTS`);
    const chart = DASHBOARD_CHARTS.find((spec) => spec.id === entry.chart);
    assert.ok(chart?.metrics.includes(entry.name), `${entry.name} is one of chart ${entry.chart}'s metrics`);
    // a strip chart draws its family's median as the line, the other quantiles as its boxes
    const line = chart?.quantiles === undefined || name === `${chart.quantiles}/p50`;
    assert.equal(chartOf(name)?.id, line ? entry.chart : undefined, entry.name);
  }
  for (const chart of DASHBOARD_CHARTS) {
    const metrics = chartMetrics(chart);
    assert.ok(metrics.length > 0, `chart ${chart.id} draws no metric of the schema`);
    assert.deepEqual(chart.metrics, metrics.map((entry) => entry.name));
    assert.deepEqual([...new Set(metrics.map((entry) => entry.unit))], [chart.unit], `chart ${chart.id}: one unit`);
    assert.equal(chart.fraction, chart.unit === 'fraction');
  }
  assert.equal(new Set(DASHBOARD_CHARTS.map((chart) => chart.id)).size, DASHBOARD_CHARTS.length);
  // hand-picked lists elsewhere are typed by the generated names; at run time too they are listed
  for (const [metric] of FINAL_METRICS) assert.ok(metricEntry(metric) && !metricEntry(metric)?.pattern, metric);
});

test('titles carry their unit, legends their labels, from the schema', () => {
  const title = (id: string): string | undefined => DASHBOARD_CHARTS.find((chart) => chart.id === id)?.title;
  assert.equal(title('entropy'), 'Entropy (nats/token)');
  assert.equal(title('time'), 'Phase times (s)');
  assert.equal(title('length'), 'Episode length (steps)');
  assert.equal(title('success'), 'Success rate (training rollouts)'); // a fraction: the axis says it
  assert.equal(seriesLabel('gate/mean'), 'mean g');
  assert.equal(seriesLabel('time/rollout'), 'rollout'); // no label: the part after the slash
});

test('learning rate and gradient norm are drawn in the optimizer charts, from update and SFT rows alike', () => {
  const lr = DASHBOARD_CHARTS.find((chart) => chart.id === 'optim-lr');
  const norm = DASHBOARD_CHARTS.find((chart) => chart.id === 'optim-grad-norm');
  assert.deepEqual([lr?.title, norm?.title], ['Optimizer: learning rate', 'Optimizer: gradient norm before clipping (L2)']);
  assert.deepEqual(lr?.metrics, ['optim/lr']);
  assert.deepEqual(norm?.metrics, ['ppo/grad_norm', 'optim/grad_norm']); // the older name too: older runs show theirs
  const update = { step: 2, time: 't', kind: 'update', 'optim/lr': 1e-6, 'optim/grad_norm': 0.42, 'optim/skipped_steps': 0 } as unknown as MetricRow;
  const sft = { step: 5, time: 't', kind: 'sft', epoch: 0.5, 'loss/sft': 1.2, 'optim/lr': 2e-5, 'optim/grad_norm': null } as unknown as MetricRow;
  assert.deepEqual(metricPoints(update).map((p) => [p.series, p.chart, p.x, p.y]), [
    ['optim/lr', 'optim-lr', 2, 1e-6],
    ['optim/grad_norm', 'optim-grad-norm', 2, 0.42],
  ]);
  assert.deepEqual(metricPoints(sft).map((p) => [p.series, p.chart]), [
    ['loss/sft', 'sft'],
    ['optim/lr', 'optim-lr'],
  ]);
  assert.deepEqual(['optim/lr', 'optim/grad_norm'].map(seriesLabel), ['learning rate', 'grad norm']);
});

// Warning, not error: a new metric name keeps the format version (docs/run-format.md §1), so this Studio must still
// read a newer trainer's run, drawing its unknown name in no chart; the trainer's writer refuses an unlisted name.
test('a metric name the schema does not list reads, drawn in no chart, and the checker warns once at its first line', async () => {
  const row = { step: 3, time: '2026-03-01T12:00:00Z', kind: 'update', 'success/overall': 1, 'success/pick_and_place': 1 };
  const read = schemas.validate('metric', { ...row, 'optim/weight_norm': 3.5 }, { file: 'metrics.jsonl', line: 4 });
  assert.equal(read['optim/weight_norm'], 3.5);
  assert.equal(chartOf('optim/weight_norm'), undefined);
  assert.throws(
    () => schemas.validate('metric', { ...row, 'optim/weight_norm': '3.5' }, { file: 'metrics.jsonl', line: 4 }),
    (error: unknown) => error instanceof RunFormatError && error.field === 'optim/weight_norm' && error.line === 4,
  );
  assert.throws(
    () => schemas.validate('metric', { ...row, lr: 1e-6 }, { file: 'metrics.jsonl', line: 4 }), // not namespaced: no metric name
    (error: unknown) => error instanceof RunFormatError && error.message === 'metrics.jsonl:4: lr: is not a known field',
  );

  const rows = [
    { line: 1, value: { ...row, 'optim/weight_norm': 3.5 } },
    { line: 2, value: { ...row, step: 4, 'x/y': 1, 'optim/weight_norm': 3 } },
  ] as unknown as { line: number; value: MetricRow }[];
  const warnings = unknownMetrics(rows);
  assert.deepEqual(warnings.map((w) => [w.kind, w.file, w.line, w.field]), [
    ['unknown_metric', 'metrics.jsonl', 1, 'optim/weight_norm'],
    ['unknown_metric', 'metrics.jsonl', 2, 'x/y'],
  ]);
  assert.match(warnings[0]?.message ?? '', /^metrics\.jsonl:1: optim\/weight_norm: not a metric name schemas\/metric\.schema\.json lists/);

  const fixture = path.join(repoRoot, 'test', 'fixtures', 'runs', 'unknown-metric');
  const report = await checkRun(fixture, schemas);
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings.map((w) => [w.kind, w.line, 'field' in w ? w.field : undefined]), [['unknown_metric', 2, 'loss/pg_loss']]);
  const metrics = (await new RunReader(fixture, schemas).readMetrics()).records;
  assert.equal(metrics[1]?.value['loss/pg_loss'], -0.0246);

  // the first Stage-2 trainer wrote ppo/grad_norm: it reads, charted, without a warning
  assert.equal(schemas.validate('metric', { ...row, 'ppo/grad_norm': 0.4 }, { file: 'metrics.jsonl' })['ppo/grad_norm'], 0.4);
  assert.equal(metricEntry('ppo/grad_norm')?.deprecated, true);
  assert.deepEqual(unknownMetrics([{ line: 1, value: { ...row, 'ppo/grad_norm': 0.4 } as unknown as MetricRow }]), []);
});
