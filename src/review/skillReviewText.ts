// skills.jsonl opened as text: format problems as diagnostics, a CodeLens row per record (Accept · Reject · Edit ·
// Open trajectory), and the review counts of the active skills file (text or review editor) in the status bar.
import path from 'node:path';
import * as vscode from 'vscode';
import type { RunAccess } from '../runs/runAccess';
import { isSkillsDocument } from './reviewDecisions';
import { describeCounts, fieldRange, parseSkillsText, reviewCounts, type ParsedSkills } from './core/skillsDocument';
import { reviewStatusText } from './shared/skillFilters';
import { REVIEW_VIEW_TYPE } from './skillReviewEditor';

export const REVIEW_COMMAND = 'seedStudio.reviewSkill';

const SEVERITY: Record<string, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
};

/** Parses of open skills documents, by URI and version, so diagnostics, lenses and counts share one parse. */
export class SkillsParses {
  private readonly cache = new Map<string, { version: number; parsed: ParsedSkills }>();

  constructor(private readonly access: RunAccess) {}

  get(document: vscode.TextDocument): ParsedSkills {
    const key = document.uri.toString();
    const hit = this.cache.get(key);
    if (hit && hit.version === document.version) return hit.parsed;
    const parsed = parseSkillsText(document.getText(), this.access.schemas());
    this.cache.set(key, { version: document.version, parsed });
    return parsed;
  }

  forget(document: vscode.TextDocument): void {
    this.cache.delete(document.uri.toString());
  }
}

export function registerSkillDiagnostics(parses: SkillsParses): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('seed-skills');
  const update = (document: vscode.TextDocument) => {
    if (!isSkillsDocument(document)) return;
    const diagnostics = parses.get(document).problems.map((problem) => {
      const line = document.lineAt(Math.min(problem.line - 1, document.lineCount - 1));
      const columns = fieldRange(line.text, problem.field);
      const diagnostic = new vscode.Diagnostic(new vscode.Range(line.lineNumber, columns.start, line.lineNumber, columns.end), problem.message, SEVERITY[problem.severity]);
      diagnostic.source = 'SEED skills';
      return diagnostic;
    });
    collection.set(document.uri, diagnostics);
  };
  vscode.workspace.textDocuments.forEach(update);
  return vscode.Disposable.from(
    collection,
    vscode.workspace.onDidOpenTextDocument(update),
    vscode.workspace.onDidChangeTextDocument((event) => update(event.document)),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (!isSkillsDocument(document)) return;
      parses.forget(document);
      // Keep problems of a file on disk visible only while it is open.
      collection.delete(document.uri);
    }),
  );
}

class SkillCodeLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly parses: SkillsParses) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!isSkillsDocument(document)) return [];
    const lenses: vscode.CodeLens[] = [];
    const runDir = path.dirname(document.uri.fsPath);
    for (const { line, record } of this.parses.get(document).lines) {
      if (!record) continue;
      const range = new vscode.Range(line - 1, 0, line - 1, 0);
      const decide = (title: string, state: 'accepted' | 'rejected', tooltip: string) =>
        new vscode.CodeLens(range, { title, tooltip, command: REVIEW_COMMAND, arguments: [{ uri: document.uri, id: record.id, state }] });
      lenses.push(new vscode.CodeLens(range, { title: `${record.review.state}${record.valid ? '' : ' · invalid'} · ${record.success ? 'success' : 'failure'} · ${record.task.type}`, command: '' }));
      if (record.valid) lenses.push(decide('$(check) Accept', 'accepted', 'Train on this skill'));
      lenses.push(decide('$(close) Reject', 'rejected', 'Never train on this record'));
      if (record.valid) {
        lenses.push(new vscode.CodeLens(range, { title: '$(edit) Edit', tooltip: 'Replace the skill with your own text', command: 'seedStudio.editSkill', arguments: [{ uri: document.uri, id: record.id }] }));
      }
      if (record.trajectory) {
        lenses.push(new vscode.CodeLens(range, { title: '$(go-to-file) Open trajectory', command: 'seedStudio.openTrajectory', arguments: [runDir, record.trajectory.id] }));
      }
    }
    return lenses;
  }
}

export function registerSkillCodeLenses(parses: SkillsParses): vscode.Disposable {
  const provider = new SkillCodeLenses(parses);
  return vscode.Disposable.from(
    vscode.languages.registerCodeLensProvider([{ language: 'seed-skills' }, { pattern: '**/skills.jsonl' }], provider),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (isSkillsDocument(event.document)) provider.refresh();
    }),
  );
}

/** The skills document of the active editor: a text editor on it, or the review editor. */
function activeSkillsDocument(): vscode.TextDocument | undefined {
  const editor = vscode.window.activeTextEditor;
  if (isSkillsDocument(editor?.document)) return editor.document;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom && input.viewType === REVIEW_VIEW_TYPE) {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === input.uri.toString());
  }
  return undefined;
}

export function registerReviewStatusBar(parses: SkillsParses): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('seedStudio.skillReview', vscode.StatusBarAlignment.Left, 50);
  item.name = 'SEED skill review';
  const update = () => {
    const document = activeSkillsDocument();
    if (!document) {
      item.hide();
      return;
    }
    const counts = reviewCounts(parses.get(document).records);
    item.text = `$(checklist) ${reviewStatusText(counts)}`;
    item.tooltip = `Skill review of ${vscode.workspace.asRelativePath(document.uri)}: ${describeCounts(counts)}${counts.invalid ? ` · ${counts.invalid} failed format verification` : ''}`;
    item.command = { title: 'Review skills', command: 'vscode.openWith', arguments: [document.uri, REVIEW_VIEW_TYPE] };
    item.show();
  };
  update();
  return vscode.Disposable.from(
    item,
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.window.tabGroups.onDidChangeTabs(update),
    vscode.window.tabGroups.onDidChangeTabGroups(update),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (isSkillsDocument(event.document)) update();
    }),
    vscode.workspace.onDidOpenTextDocument(update),
  );
}
