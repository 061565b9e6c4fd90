import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { repoRoot } from '../support/repoPaths';

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8'));
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

test('every example experiment is valid against the committed schema', () => {
  const examples = readdirSync(path.join(repoRoot, 'examples')).filter((name) => name.endsWith('.seed.yaml'));
  assert.ok(examples.length > 0);
  for (const name of examples) {
    const data = parse(readFileSync(path.join(repoRoot, 'examples', name), 'utf8'));
    assert.ok(validate(data), `${name}: ${JSON.stringify(validate.errors)}`);
  }
});

test('a misspelt key and a wrong type are rejected with their paths', () => {
  const ok = validate({ name: 'x', model: { path: 'm' }, rollout: { group_sise: 4 }, opd: { beta: 'lots' } });
  assert.equal(ok, false);
  const problems = (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  assert.ok(problems.some((p) => p.startsWith('/rollout') && p.includes('additional properties')), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('/opd/beta') && p.includes('number')), problems.join('\n'));
});

test('the experiment schema carries the paper defaults the editor shows', () => {
  const defs = schema.$defs;
  assert.equal(defs.OpdConfig.properties.lambda.default, 0.01);
  assert.equal(defs.OpdConfig.properties.beta.default, 5.0);
  assert.equal(defs.RolloutConfig.properties.group_size.default, 8);
  assert.match(defs.OpdConfig.properties.beta.description, /σ\(β·Δ\)/);
});
