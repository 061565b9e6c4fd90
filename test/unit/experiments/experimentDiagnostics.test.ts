// Experiment files in the editor: diagnostics with exact positions, hover facts and completion contexts, templates.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ExperimentSchema, type ExperimentProblem, type JsonSchema } from '../../../src/experiments/core/experimentSchema';
import { LineMap } from '../../../src/experiments/core/experimentText';
import { closest, suggestionOf } from '../../../src/experiments/core/schemaErrors';
import { ExperimentService } from '../../../src/experiments/core/experimentService';
import { experimentName, instantiateTemplate, listTemplates } from '../../../src/experiments/core/templates';
import { cursorContext, keyAt } from '../../../src/experiments/core/yamlCursor';
import { repoRoot } from '../support/repoPaths';

const schema = new ExperimentSchema(JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as JsonSchema);

/** `[line, character, endLine, endCharacter, message]` of each problem, 0-based as VS Code counts. */
function located(problems: ExperimentProblem[]): Array<[number, number, number, number, string]> {
  return problems.map((p) => [p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character, p.message]);
}

test('a valid experiment has no problems; the examples and every template are valid', () => {
  assert.deepEqual(schema.validate('name: x\nmodel:\n  path: m\n'), []);
  for (const name of ['household-seed.seed.yaml']) {
    assert.deepEqual(schema.validate(readFileSync(path.join(repoRoot, 'examples', name), 'utf8')), [], name);
  }
  const templates = listTemplates(path.join(repoRoot, 'resources', 'templates'));
  assert.ok(templates.length >= 3);
  for (const template of templates) {
    assert.ok(template.label && template.description, `${template.id} has no header line`);
    const text = instantiateTemplate(template, 'my run');
    assert.match(text, /^name: my-run$/m);
    assert.deepEqual(schema.validate(text), [], template.id);
  }
  assert.equal(experimentName('  a b/c  '), 'a-b-c');
});

test('a misspelt key is marked on the key itself, with a suggestion', () => {
  const text = 'name: x\nmodel:\n  path: m\nrollout:\n  group_sise: 4\n';
  assert.deepEqual(located(schema.validate(text)), [[4, 2, 4, 12, 'rollout.group_sise: is not a known field (did you mean `group_size`?)']]);
});

test('a wrong type or an out-of-range value is marked on the value', () => {
  const text = 'name: x\nmodel:\n  path: m\nopd:\n  beta: lots\nrollout:\n  group_size: 0\n';
  assert.deepEqual(located(schema.validate(text)), [
    [4, 8, 4, 12, 'opd.beta: must be a number'],
    [6, 14, 6, 15, 'rollout.group_size: must be >= 1'],
  ]);
});

test('an enum value lists the allowed ones; a missing required key marks its parent (or the first line)', () => {
  const problems = schema.validate('name: x\nalgorithm: ppo\nmodel:\n  dtype: auto\n');
  assert.deepEqual(located(problems), [
    [1, 11, 1, 14, 'algorithm: must be one of "seed", "grpo", "grpo_opsd", "opsd", "sdar" (did you mean `grpo`?)'],
    [2, 0, 2, 5, 'model.path: is required'],
  ]);
  assert.deepEqual(located(schema.validate('name: x\n')), [[0, 0, 0, 7, 'model: is required']]);
});

test('a nullable mapping (anyOf) reports the error inside it, or the alternatives when the kind is wrong', () => {
  const inside = schema.validate('name: x\nmodel:\n  path: m\n  lora:\n    r: many\n');
  assert.deepEqual(located(inside), [[4, 7, 4, 11, 'model.lora.r: must be an integer']]);
  const kind = schema.validate('name: x\nmodel:\n  path: m\n  lora: 3\n');
  assert.equal(kind.length, 1);
  assert.deepEqual(located(kind)[0]?.slice(0, 4), [3, 8, 3, 9]);
  assert.match(kind[0]?.message ?? '', /^model\.lora: must be a mapping or null$/);
});

test('YAML syntax errors come with their position and stop schema checks', () => {
  const problems = schema.validate('name: x\nmodel:\n  path: [m\nseed: 1\n');
  assert.equal(problems.length >= 1, true);
  assert.equal(problems[0]?.source, 'yaml');
  assert.match(problems[0]?.message ?? '', /^not valid YAML: /);
  assert.equal(problems[0]?.range.start.line, 3); // where the parser finds the flow sequence unterminated
  const duplicate = schema.validate('name: x\nname: y\nmodel:\n  path: m\n');
  assert.deepEqual(duplicate.map((p) => [p.source, p.range.start.line]), [['yaml', 1]]);
  assert.deepEqual(located(schema.validate('- a\n- b\n')), [[0, 0, 1, 3, 'the experiment must be a YAML mapping of keys (name, model, …)']]);
});

test('the trainer’s cross-field rule: sdar needs a skill bank', () => {
  assert.deepEqual(located(schema.validate('name: x\nalgorithm: sdar\nmodel:\n  path: m\n')), [
    [1, 11, 1, 15, 'algorithm: `sdar` needs `sdar.skill_bank`: a folder of markdown skill files'],
  ]);
});

test('hover facts come from the schema: description, type, default, enum values', () => {
  const beta = schema.fieldInfo(['opd', 'beta']);
  assert.ok(beta);
  assert.match(beta.description ?? '', /σ\(β·Δ\)/);
  assert.equal(beta.default, 5);
  assert.equal(beta.typeText, 'number ≥ 0');
  assert.deepEqual(schema.fieldInfo(['model', 'dtype'])?.values, ['auto', 'float32', 'bfloat16', 'float16']);
  assert.equal(schema.fieldInfo(['model', 'path'])?.required, true);
  assert.equal(schema.fieldInfo(['model', 'lora'])?.isObject, true);
  assert.deepEqual(schema.fieldInfo(['model', 'lora', 'target_modules'])?.values, ['all-linear']);
  assert.equal(schema.fieldInfo(['model', 'gradient_checkpointing'])?.values.includes(true), true);
  assert.equal(schema.fieldInfo(['nope']), undefined);
  assert.ok(Object.keys(schema.objectProperties(['model', 'lora'])).includes('alpha'));
});

test('cursor contexts: keys by indentation, values after a colon, siblings excluded', () => {
  const text = 'name: x\nmodel:\n  path: m\n  dt\nopd:\n  beta: 5\n  \nalgorithm: gr\n';
  assert.deepEqual(cursorContext(text, { line: 3, character: 4 }), {
    kind: 'key',
    parentPath: ['model'],
    prefix: 'dt',
    prefixStart: 2,
    siblings: ['path'],
  });
  const inOpd = cursorContext(text, { line: 6, character: 2 });
  assert.deepEqual([inOpd?.kind, inOpd?.parentPath, inOpd?.siblings], ['key', ['opd'], ['beta']]);
  const root = cursorContext('name: x\n\nmodel:\n  path: m\n', { line: 1, character: 0 });
  assert.deepEqual([root?.parentPath, root?.siblings], [[], ['name', 'model']]);
  assert.deepEqual(cursorContext(text, { line: 7, character: 13 }), {
    kind: 'value',
    parentPath: [],
    key: 'algorithm',
    prefix: 'gr',
    prefixStart: 11,
    siblings: [],
  });
  assert.equal(cursorContext('# name: x\n', { line: 0, character: 5 }), undefined);
  assert.deepEqual(keyAt(text, { line: 5, character: 3 }), { path: ['opd', 'beta'], start: 2, end: 6 });
  assert.equal(keyAt('a: 1 # c\n', { line: 0, character: 7 }), undefined);
});

test('helpers: positions, suggestions, facts of a file', () => {
  const lines = new LineMap('ab\ncd\n');
  assert.deepEqual(lines.position(4), { line: 1, character: 1 });
  assert.equal(lines.offset({ line: 1, character: 1 }), 4);
  assert.equal(closest('group_sise', ['group_size', 'history']), 'group_size');
  assert.equal(closest('zzz', ['group_size']), undefined);
  const facts = ExperimentService.facts('name: demo\nalgorithm: grpo\nruns_dir: out/runs\n', path.join('/x', 'e.seed.yaml'));
  assert.deepEqual(facts, { name: 'demo', algorithm: 'grpo', runsDir: path.resolve('/x/out/runs') });
  assert.equal(ExperimentService.facts(': bad', '/x/e.seed.yaml').runsDir, path.resolve('/x/runs'));
  const stage1 = ExperimentService.facts('name: s\neval:\n  splits: [valid_seen]\nsft:\n  data: runs/collect-1\n', path.join('/x', 'e.seed.yaml'));
  assert.deepEqual([stage1.evalSplits, stage1.sftData, stage1.sftMode], [['valid_seen'], path.resolve('/x/runs/collect-1'), undefined]);
  assert.equal(ExperimentService.facts('name: a\nsft:\n  mode: agent\n', path.join('/x', 'e.seed.yaml')).sftMode, 'agent');
});

test('issue 54 item 8: a misspelt key or enum value carries its quick fix; the integer bound is named, not printed', () => {
  const key = schema.validate('name: x\nmodel:\n  path: m\nrl:\n  mini_bach_size: 8\n');
  assert.deepEqual(key.map((p) => [p.message, p.code, p.replacement]), [['rl.mini_bach_size: is not a known field (did you mean `mini_batch_size`?)', 'did-you-mean', 'mini_batch_size']]);
  const value = schema.validate('name: x\nalgorithm: sead\nmodel:\n  path: m\n');
  assert.deepEqual(located(value), [[1, 11, 1, 15, 'algorithm: must be one of "seed", "grpo", "grpo_opsd", "opsd", "sdar" (did you mean `seed`?)']]);
  assert.deepEqual([value[0]?.code, value[0]?.replacement], ['did-you-mean', 'seed']);
  assert.equal(suggestionOf(value[0]!.message), 'seed');
  // far from every allowed value: no suggestion, no quick fix
  const far = schema.validate('name: x\nalgorithm: reinforce\nmodel:\n  path: m\n');
  assert.deepEqual([far[0]?.code, far[0]?.replacement], [undefined, undefined]);
  // a float literal past the bound every integer has (ajv said "must be <= 9007199254740991")
  assert.deepEqual(schema.validate('name: x\nmodel:\n  path: m\nupdates: 1.0e16\n').map((p) => p.message), ['updates: is out of range: integers here must lie within ±2^53 − 1 (about ±9.0e15)']);
});
