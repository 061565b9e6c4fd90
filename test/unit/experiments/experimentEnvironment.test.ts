// The environment picker's vscode-free parts: the catalog the trainer exports into the schema, options described
// like schema fields, the environment of a file located, the trainer's doctor asked for real (with a module hidden as
// the doctor allows for tests), the warnings built from its report, and Set Up Trainer's plan with extras.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { defaultEnvironment, environmentCatalog, environmentInFile, environmentMarkdown, optionInfo } from '../../../src/experiments/core/environmentCatalog';
import { MISSING_EXTRA, environmentProblems, extraOfProblem } from '../../../src/experiments/core/environmentProblems';
import { ExperimentSchema, type JsonSchema } from '../../../src/experiments/core/experimentSchema';
import { planSetup } from '../../../src/training/core/setupPlan';
import { DoctorCache, parseDoctorReport, runDoctor, type DoctorReport, type DoctorResult } from '../../../src/experiments/core/trainerDoctor';
import { repoRoot, trainerPython } from '../support/repoPaths';

const schema = new ExperimentSchema(JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as JsonSchema);
const catalog = environmentCatalog(schema);
const doctorSchema = path.join(repoRoot, 'schemas', 'doctor.schema.json');
const trainerSource = path.join(repoRoot, 'trainer');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-environment-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const HIDE = 'SEED_DOCTOR_HIDE_MODULES';

async function doctorReport(env: Record<string, string>): Promise<DoctorReport> {
  const result = await runDoctor(trainerPython(), { trainerSource, schemaFile: doctorSchema, env: { [HIDE]: '', ALFWORLD_DATA: path.join(scratch, 'none'), ...env } });
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.report;
}

test('the catalog comes from the schema the trainer exports, in the trainer order, with extras, data and options', () => {
  assert.deepEqual([...catalog.keys()], ['household', 'textworld', 'alfworld', 'webshop', 'search_qa', 'env_server']);
  assert.equal(defaultEnvironment(schema), 'household');
  const textworld = catalog.get('textworld')!;
  assert.equal(textworld.install, "pip install 'seed-trainer[textworld]'");
  assert.equal(catalog.get('household')!.extra, undefined);
  assert.equal(catalog.get('alfworld')!.data?.variable, 'ALFWORLD_DATA');
  const kind = optionInfo(schema, textworld, 'kind')!;
  assert.deepEqual(kind.values, ['cooking', 'coin_collector', 'treasure_hunter']);
  assert.equal(kind.default, 'cooking');
  assert.deepEqual(kind.path, ['environment', 'options', 'kind']);
  assert.equal(optionInfo(schema, textworld, 'max_steps')!.typeText, 'integer ≥ 1');
  assert.equal(optionInfo(schema, textworld, 'nope'), undefined);
  const markdown = environmentMarkdown(textworld);
  assert.match(markdown, /^\*\*textworld\*\* — Generated TextWorld games/);
  assert.match(markdown, /`pip install 'seed-trainer\[textworld\]'`/);
  assert.match(markdown, /Options: .*`games_dir`.*`kind`/); // alphabetical: the schema export sorts mappings
  // environment.name's own hover lists them too (experiment/config.py's description)
  const description = schema.fieldInfo(['environment', 'name'])!.description ?? '';
  for (const name of catalog.keys()) assert.ok(description.includes(`\`${name}\``), name);
});

test('a schema without the catalog gives an empty one (an older trainer), not a crash', () => {
  assert.equal(environmentCatalog(new ExperimentSchema({ type: 'object' })).size, 0);
});

test('the environment of a file is found with its place, also while the YAML is being edited', () => {
  const text = 'name: t\nmodel:\n  path: m\nenvironment:\n  name: textworld\n  options:\n    kind: cooking\n    max_steps: 12\n';
  const found = environmentInFile(text);
  assert.equal(found.name?.value, 'textworld');
  assert.deepEqual(found.name?.range, { start: { line: 4, character: 8 }, end: { line: 4, character: 17 } });
  assert.deepEqual([...found.options.keys()], ['kind', 'max_steps']);
  assert.equal(found.options.get('max_steps')?.value, 12);
  const editing = environmentInFile('environment:\n  name: alfworld\n  options:\n    data_dir: [\n');
  assert.equal(editing.name?.value, 'alfworld');
  assert.equal(environmentInFile('name: x\n').name, undefined);
});

test('the doctor, asked for real, follows its schema and reports a hidden module as missing', async () => {
  const shown = await doctorReport({});
  const hidden = await doctorReport({ [HIDE]: 'textworld' });
  const env = (report: DoctorReport, name: string) => report.environments.find((e) => e.name === name)!;
  assert.equal(env(shown, 'textworld').installed, true, 'npm run setup installs the textworld extra (trainer[test])');
  assert.equal(env(hidden, 'textworld').installed, false);
  assert.equal(env(hidden, 'household').installed, true);
  assert.equal(env(hidden, 'alfworld').data?.found, false);
  assert.deepEqual(hidden.extras.map((e) => e.name).sort(), ['alfworld', 'export', 'tensorboard', 'textworld', 'vllm', 'wandb']);
});

test('a doctor reply that is not a report is refused with the reason', () => {
  assert.throws(() => parseDoctorReport('Traceback (most recent call last):\n', doctorSchema), /printed no JSON report/);
  assert.throws(() => parseDoctorReport('{"python": {"executable": "p", "version": "3"}}\n', doctorSchema), /does not follow doctor.schema.json/);
});

test('a missing interpreter is a failed result, not a throw; failures are asked again, reports are kept until invalidated', async () => {
  const missing = await runDoctor(path.join(scratch, 'no-python'), { trainerSource, schemaFile: doctorSchema });
  assert.equal(missing.ok, false);
  assert.match(missing.ok ? '' : missing.error, /not found/);
  let runs = 0;
  const cache = new DoctorCache(async (python, env): Promise<DoctorResult> => {
    runs += 1;
    return python === 'bad' ? { ok: false, interpreter: python, error: 'x' } : runDoctor(trainerPython(), { trainerSource, schemaFile: doctorSchema, env });
  });
  let told = 0;
  cache.onInvalidate(() => (told += 1));
  await cache.get('good', { [HIDE]: 'textworld' });
  await cache.get('good', { [HIDE]: 'textworld' });
  assert.equal(runs, 1);
  await cache.get('good', { [HIDE]: 'wandb' });
  assert.equal(runs, 2, 'another environment is another question');
  await cache.get('bad');
  await new Promise((resolve) => setImmediate(resolve));
  await cache.get('bad');
  assert.equal(runs, 4, 'a failure is not kept');
  cache.invalidate();
  assert.equal(told, 1);
  await cache.get('good', { [HIDE]: 'textworld' });
  assert.equal(runs, 5);
});

test('a missing extra is a warning on environment.name naming the pip command; installed, custom or unknown names differ', async () => {
  const hidden = await doctorReport({ [HIDE]: 'textworld' });
  const shown = await doctorReport({});
  const check = { catalog, defaultName: 'household' };
  const text = 'name: t\nmodel:\n  path: m\nenvironment:\n  name: textworld\n';
  const [problem, ...rest] = environmentProblems(text, { ...check, report: hidden });
  assert.deepEqual(rest, []);
  assert.equal(problem?.severity, 'warning');
  assert.equal(problem?.code, MISSING_EXTRA);
  assert.equal(problem?.field, 'environment.name');
  assert.match(problem?.message ?? '', /^environment\.name: `textworld` needs the `textworld` extra, which the trainer's Python \(.+\) does not have: pip install 'seed-trainer\[textworld\]'$/);
  assert.deepEqual(problem?.range, { start: { line: 4, character: 8 }, end: { line: 4, character: 17 } });
  assert.equal(extraOfProblem(problem?.message ?? ''), 'textworld');
  assert.deepEqual(environmentProblems(text, { ...check, report: shown }), [], 'installed');
  assert.deepEqual(environmentProblems(text, check), [], 'no report (untrusted workspace, or the doctor failed): nothing claimed');
  assert.deepEqual(environmentProblems('name: t\nmodel:\n  path: m\n', { ...check, report: hidden }), [], 'the default household needs nothing');
  assert.deepEqual(environmentProblems('environment:\n  name: my_envs.kitchen:Tasks\n', { ...check, report: hidden }), []);
  const [unknown] = environmentProblems('environment:\n  name: houshold\n', { ...check, report: hidden });
  assert.match(unknown?.message ?? '', /^environment\.name: unknown environment `houshold` \(did you mean `household`\?\); the trainer will refuse it\. Built in: household, textworld/);
  assert.equal(unknown?.range.start.line, 1);
});

test("ALFWorld's data: missing where ALFWORLD_DATA points, or under an absolute data_dir, is a warning saying how to get it", async () => {
  const report = await doctorReport({ ALFWORLD_DATA: path.join(scratch, 'empty') });
  const check = { catalog, defaultName: 'household', report };
  const plain = environmentProblems('environment:\n  name: alfworld\n', check).filter((p) => !p.code).map((p) => p.message);
  assert.equal(plain.length, 1, plain.join('\n'));
  assert.match(plain[0] ?? '', /`alfworld` has no data: no json_2\.1\.1\/ under .*empty \(\$ALFWORLD_DATA\): run `alfworld-download`/);
  const data = path.join(scratch, 'alfworld-data');
  const text = `environment:\n  name: alfworld\n  options:\n    data_dir: ${data}\n`;
  const [onOption] = environmentProblems(text, check).filter((p) => p.field === 'environment.options.data_dir');
  assert.match(onOption?.message ?? '', /^environment\.options\.data_dir: no json_2\.1\.1\/ under .*alfworld-data: run `alfworld-download`/);
  assert.equal(onOption?.range.start.line, 3);
  mkdirSync(path.join(data, 'json_2.1.1'), { recursive: true });
  assert.deepEqual(environmentProblems(text, check).filter((p) => !p.code).map((p) => p.message), [], 'data found');
  assert.deepEqual( // a relative data_dir is resolved against the trainer's working folder: not checked here
    environmentProblems('environment:\n  name: alfworld\n  options:\n    data_dir: rel/data\n', check).filter((p) => !p.code),
    [],
  );
});

test('Set Up Trainer installs the chosen extras with the trainer and keeps the torch that is there', () => {
  const facts = { executable: '/w/.venv/bin/python', isVenv: true, torchImportable: true, torchVersion: '2.13.0+cu128' };
  const plan = planSetup({ facts, newVenvDir: '/unused', trainerSource: '/ext/trainer', editable: true, torchRequirement: 'torch', extras: ['textworld', 'alfworld', 'textworld'] });
  assert.deepEqual(plan.steps.map((s) => s.args.slice(4)), [['--upgrade', '-e', '/ext/trainer[alfworld,textworld]', 'torch==2.13.0+cu128']]);
  assert.match(plan.steps[0]?.title ?? '', /with alfworld, textworld/);
  const fresh = planSetup({ facts: { ...facts, executable: '/usr/bin/python3', isVenv: false }, newVenvDir: '/w/.venv', trainerSource: '/ext/trainer', editable: false, torchRequirement: 'torch', extras: ['wandb'] });
  assert.deepEqual(fresh.steps.at(-1)?.args.slice(4), ['--upgrade', '/ext/trainer[wandb]'], 'a new venv gets its own torch first: nothing to pin');
  assert.deepEqual(planSetup({ facts, newVenvDir: '/u', trainerSource: '/ext/trainer', editable: false, torchRequirement: 'torch' }).steps[0]?.args.slice(4), ['--upgrade', '/ext/trainer', 'torch==2.13.0+cu128']);
  assert.throws(() => planSetup({ facts, newVenvDir: '/u', trainerSource: '/t', editable: false, torchRequirement: 'torch', extras: ['x]; rm -rf /'] }), /not an extra of seed-trainer/);
});
