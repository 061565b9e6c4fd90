// The Stage-2 algorithms the trainer exports into the experiment schema (`x-algorithms`, from algo/variants.py), and
// the Train picker's stages built from them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { algorithmCatalog, defaultAlgorithm } from '../../../src/experiments/core/algorithmCatalog';
import { ExperimentSchema, type JsonSchema } from '../../../src/experiments/core/experimentSchema';
import { stageChoices } from '../../../src/runs/core/trainerProcess';
import { repoRoot } from '../support/repoPaths';

const document = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as JsonSchema;
const schema = new ExperimentSchema(document);

/** The committed schema with `algorithm` replaced by `change` of it. */
function withAlgorithm(change: (field: JsonSchema) => JsonSchema): ExperimentSchema {
  const copy = structuredClone(document);
  copy.properties!.algorithm = change(copy.properties!.algorithm!);
  return new ExperimentSchema(copy);
}

test('the catalog is the schema’s algorithms in the trainer’s order, with what each runs', () => {
  const catalog = algorithmCatalog(schema);
  assert.deepEqual(
    catalog.map((a) => a.name),
    schema.schemaAt(['algorithm'])?.enum,
  );
  const byName = new Map(catalog.map((a) => [a.name, a]));
  assert.deepEqual(byName.get('seed'), {
    name: 'seed',
    label: 'SEED',
    summary: 'GRPO + gated on-policy distillation from self-written skills',
    pgCoef: 1,
    teacher: true,
    gated: true,
    skills: 'self',
  });
  assert.equal(byName.get('grpo')?.teacher, false);
  assert.equal(byName.get('grpo')?.skills, null);
  assert.equal(byName.get('grpo_opsd')?.gated, false);
  assert.equal(byName.get('grpo_opsd')?.label, 'GRPO+OPSD');
  assert.equal(byName.get('opsd')?.pgCoef, 0);
  assert.equal(byName.get('sdar')?.skills, 'static');
  assert.equal(defaultAlgorithm(schema), 'seed');
});

test('entries of another shape, or names the schema does not accept, are left out', () => {
  const odd = withAlgorithm((field) => ({
    ...field,
    'x-algorithms': [
      ...(field['x-algorithms'] as unknown[]).slice(0, 1),
      { name: 'seed_v2', label: 'SEED v2', summary: 'not in the enum', pg_coef: 1, teacher: true, gated: true, skills: 'self' },
      { name: 'grpo', label: 'GRPO', summary: 'no pg_coef', teacher: false, gated: true, skills: null },
      { name: 'opsd', label: 'OPSD', summary: 'unknown skill source', pg_coef: 0, teacher: true, gated: true, skills: 'oracle' },
      'sdar',
    ],
  }));
  assert.deepEqual(
    algorithmCatalog(odd).map((a) => a.name),
    ['seed'],
  );
  assert.deepEqual(algorithmCatalog(withAlgorithm(({ 'x-algorithms': _, ...field }) => field)), []);
});

test('the Train picker offers Stage 1, one Stage-2 choice per algorithm of the schema, and evaluation', () => {
  const choices = stageChoices(algorithmCatalog(schema));
  assert.deepEqual(
    choices.map((c) => c.id),
    ['collect', 'sft', 'train:seed', 'train:grpo', 'train:grpo_opsd', 'train:opsd', 'train:sdar', 'eval'],
  );
  const grpoOpsd = choices.find((c) => c.id === 'train:grpo_opsd');
  assert.deepEqual(grpoOpsd, { id: 'train:grpo_opsd', command: 'train', algorithm: 'grpo_opsd', label: 'Stage 2 · GRPO+OPSD', detail: 'Baseline: β = 0, every gate is 0.5' });
  assert.deepEqual(
    stageChoices([{ name: 'mine', label: 'Mine', summary: 'a new one' }]).map((c) => [c.id, c.label, c.detail]).slice(2, 3),
    [['train:mine', 'Stage 2 · Mine', 'A new one']],
  );
});
