// "Quick CPU check" out of the box and New Experiment's file name: templates name a policy that exists wherever the
// extension is installed (`builtin:household-tiny`), `model.path` pointing at a missing local folder gets a located
// warning (a hub id does not), and a name typed with its extension is not given the extension twice.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { SHIPPED_MODELS, looksLocal, modelPathProblems } from '../../../src/experiments/core/modelPath';
import { experimentFileName, experimentName, instantiateTemplate, listTemplates } from '../../../src/experiments/core/templates';
import { repoRoot } from '../support/repoPaths';

const workspace = mkdtempSync(path.join(os.tmpdir(), 'seed-model-path-'));
after(() => rmSync(workspace, { recursive: true, force: true }));

test('every template runs as it is: its model.path is a built-in policy or a Stage-1 output, never a missing folder it invents', () => {
  for (const template of listTemplates(path.join(repoRoot, 'resources', 'templates'))) {
    const text = instantiateTemplate(template, 'quick');
    const modelPath = /^ {2}path: (\S+)/m.exec(text)?.[1] ?? '';
    if (['cpu-quick', 'stage1-skill-sft', 'household-tiny', 'household-demo'].includes(template.id)) {
      assert.equal(modelPath, 'builtin:household-tiny', `${template.id} must start from the shipped tiny policy`);
      assert.deepEqual(modelPathProblems(text, workspace), [], template.id);
    }
  }
  for (const name of SHIPPED_MODELS) {
    assert.ok(existsSync(path.join(repoRoot, 'trainer', 'seed_trainer', 'assets', name, 'config.json')), `built-in ${name} is shipped`);
  }
});

test('a local-looking model.path that does not exist is a warning on the value; hub ids and existing folders are not', () => {
  const text = (value: string) => `name: x\nmodel:\n  path: ${value}\n`;
  const [missing] = modelPathProblems(text('./models/tiny'), workspace);
  assert.equal(missing?.severity, 'warning');
  assert.equal(missing?.field, 'model.path');
  assert.match(missing?.message ?? '', /no folder \.\/models\/tiny/);
  assert.deepEqual([missing?.range.start.line, missing?.range.start.character, missing?.range.end.character], [2, 8, 21]);
  assert.deepEqual(modelPathProblems(text('runs/household-sft/model'), workspace).map((p) => p.severity), ['warning']);
  assert.deepEqual(modelPathProblems(text('Qwen/Qwen2.5-3B-Instruct'), workspace), [], 'a hub id is not checked');
  // `models/tiny` reads like a hub id, unless `models/` is a folder beside the experiment.
  assert.equal(looksLocal('models/tiny', workspace), false);
  mkdirSync(path.join(workspace, 'models'));
  assert.equal(looksLocal('models/tiny', workspace), true);
  assert.equal(modelPathProblems(text('models/tiny'), workspace).length, 1);
  mkdirSync(path.join(workspace, 'models', 'tiny'));
  assert.deepEqual(modelPathProblems(text('models/tiny'), workspace), []);
  const [unknown] = modelPathProblems(text('builtin:huge'), workspace);
  assert.equal(unknown?.severity, 'error');
  assert.match(unknown?.message ?? '', /unknown built-in model `huge`/);
});

test('New Experiment: a name typed with its extension gets the extension once', () => {
  assert.equal(experimentFileName('NAME.seed.yaml'), 'NAME.seed.yaml');
  assert.equal(experimentFileName('NAME.seed.yaml.seed.yaml'), 'NAME.seed.yaml');
  assert.equal(experimentFileName('my run.yml'), 'my-run.seed.yaml');
  assert.equal(experimentName('NAME.seed.yml'), 'NAME');
  assert.equal(experimentName('v1.2'), 'v1.2');
});
