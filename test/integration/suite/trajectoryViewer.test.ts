// The trajectory viewer, the diff, the text renderings and the skill review inside a real VS Code extension host
// (code-server): the viewer's webview reports that it drew the heatmap; the review records a decision in skills.jsonl
// on disk, with diagnostics and CodeLenses on the text, and refuses while a collect stage runs.
import * as assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RenderedReport } from '../../../src/trajectory/shared/protocol';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const fixtureRun = path.join(repoRoot, 'test', 'fixtures', 'runs', 'valid');

interface RenderingPanel<R> {
  panel: vscode.WebviewPanel;
  whenRendered(): Promise<R>;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms))]);
}

async function activate(): Promise<void> {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { publisher: string; name: string };
  await vscode.extensions.getExtension(`${manifest.publisher}.${manifest.name}`)?.activate();
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

suite('Trajectory viewer, diff and skill review', () => {
  let scratch: string;

  suiteSetup(async () => {
    await activate();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'seed-review-'));
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(scratch, { recursive: true, force: true });
  });

  test('SEED: Open Trajectory opens the viewer, which draws the gate heatmap of every token', async () => {
    const viewer = await vscode.commands.executeCommand<RenderingPanel<RenderedReport>>('seedStudio.openTrajectory', fixtureRun, 'it-000001-0001');
    assert.ok(viewer, 'the command returned no panel');
    const report = await within(viewer.whenRendered(), 30_000, 'the viewer webview');
    assert.equal(report.turns, 3);
    assert.equal(report.tokens, 73);
    assert.equal(report.tokensInDom, 73, 'a short trajectory is drawn whole');
    assert.equal(viewer.panel.viewType, 'seedStudio.trajectory');
    // A tree node ({runDir, id}) opens the same panel again.
    const again = await vscode.commands.executeCommand<RenderingPanel<RenderedReport>>('seedStudio.openTrajectory', { kind: 'trajectory', runDir: fixtureRun, id: 'it-000001-0001' });
    assert.equal(again, viewer);
  });

  test('the skill review\'s What if… opens the trajectory\'s viewer and hands it the skill once it is shown', async () => {
    const skill = 'Check the countertop before opening anything.';
    const viewer = await vscode.commands.executeCommand<RenderingPanel<RenderedReport> & { whatIfStarted?: string }>('seedStudio.whatIfTrajectory', fixtureRun, 'it-000001-0002', skill);
    assert.ok(viewer, 'the command returned no panel');
    await within(viewer.whenRendered(), 30_000, 'the viewer webview');
    assert.equal(await waitFor(() => viewer.whatIfStarted, 10_000, 'the skill sent to the viewer'), skill);
    const again = await vscode.commands.executeCommand<{ whatIfStarted?: string }>('seedStudio.whatIfTrajectory', fixtureRun, 'it-000001-0002', 'Another lesson.');
    assert.equal(again, viewer, 'the open viewer is reused');
    assert.equal(viewer.whatIfStarted, 'Another lesson.');
  });

  test('SEED: Compare Trajectories aligns a success and a failure of one task', async () => {
    const diff = await vscode.commands.executeCommand<RenderingPanel<RenderedReport & { rows: number; firstDivergence: number }>>(
      'seedStudio.compareTrajectories',
      { runDir: fixtureRun, id: 'it-000001-0001' },
      { runDir: fixtureRun, id: 'it-000001-0002' },
    );
    const report = await within(diff.whenRendered(), 30_000, 'the diff webview');
    assert.equal(report.firstDivergence, 0);
    assert.equal(report.rows, 4);
  });

  test('text rendering: a read-only seed-trajectory document that folds by turn, and the text diff', async () => {
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>('seedStudio.openTrajectoryAsText', fixtureRun, 'it-000001-0002');
    const document = editor.document;
    assert.equal(document.uri.scheme, 'seed-trajectory');
    assert.equal(document.languageId, 'seed-trajectory');
    assert.equal(document.lineAt(0).text, 'trajectory it-000001-0002');
    const folds = await vscode.commands.executeCommand<vscode.FoldingRange[]>('vscode.executeFoldingRangeProvider', document.uri);
    const turnFolds = folds.filter((f) => document.lineAt(f.start).text.startsWith('turn '));
    assert.equal(turnFolds.length, 4);
    assert.equal(await vscode.commands.executeCommand('seedStudio.openTrajectoryTextDiff', { runDir: fixtureRun, id: 'it-000001-0001' }, { runDir: fixtureRun, id: 'it-000001-0002' }), true);
    const input = await waitFor(() => {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return tab instanceof vscode.TabInputTextDiff ? tab : undefined;
    }, 10_000, 'the diff editor');
    assert.equal(input.original.scheme, 'seed-trajectory');
    assert.match(input.modified.path, /it-000001-0002\.seedtraj$/);
  });

  test('review: accepting a skill rewrites exactly its line of skills.jsonl on disk; diagnostics and CodeLenses on the text', async () => {
    const runDir = path.join(scratch, 'accept');
    cpSync(fixtureRun, runDir, { recursive: true });
    const file = path.join(runDir, 'skills.jsonl');
    const before = readFileSync(file, 'utf8').split('\n');
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'seedStudio.skillReview');
    const applied = await vscode.commands.executeCommand<boolean>('seedStudio.reviewSkill', { uri, id: 'collect-000001-0001', state: 'accepted', save: true });
    assert.equal(applied, true);
    const after = readFileSync(file, 'utf8').split('\n');
    assert.equal(after.length, before.length);
    const record = JSON.parse(after[0]!) as { id: string; review: { state: string; time?: string } };
    assert.equal(record.review.state, 'accepted');
    assert.match(record.review.time ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(after.slice(1), before.slice(1), 'every other line is byte-identical');

    const document = await vscode.workspace.openTextDocument(uri);
    assert.equal(document.isDirty, false);
    const diagnostics = await waitFor(() => {
      const found = vscode.languages.getDiagnostics(uri);
      return found.length > 0 ? found : undefined;
    }, 10_000, 'diagnostics on skills.jsonl');
    assert.ok(diagnostics.some((d) => d.range.start.line === 2 && d.severity === vscode.DiagnosticSeverity.Warning && /format verification failed/.test(d.message)));
    await vscode.window.showTextDocument(document);
    assert.equal(document.languageId, 'seed-skills');
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.ok(titles.includes('$(check) Accept') && titles.includes('$(close) Reject') && titles.includes('$(edit) Edit') && titles.includes('$(go-to-file) Open trajectory'), titles.join(', '));
  });

  test('review: a decision edits the document (undo works) and is refused while a collect stage is running', async () => {
    const runDir = path.join(scratch, 'collecting');
    cpSync(fixtureRun, runDir, { recursive: true });
    const file = path.join(runDir, 'skills.jsonl');
    const uri = vscode.Uri.file(file);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    const original = document.getText();
    assert.equal(await vscode.commands.executeCommand('seedStudio.reviewSkill', { uri, id: 'collect-000001-0002', state: 'edited', text: 'Sink first.' }), true);
    assert.equal(document.isDirty, true);
    assert.match(document.lineAt(1).text, /"review":\{"state":"edited","text":"Sink first\.","time":/);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), original);

    const manifestPath = path.join(runDir, 'run.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, stage: 'collect', status: 'running', ended: null }, null, 2));
    assert.equal(await vscode.commands.executeCommand('seedStudio.reviewSkill', { uri, id: 'collect-000001-0001', state: 'accepted', save: true }), false);
    assert.equal(readFileSync(file, 'utf8'), original, 'nothing written while collecting');
  });
});
