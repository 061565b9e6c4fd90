// Applying review decisions to an open skills.jsonl document: the document is the model, so a decision is a
// workspace edit of one line (undo/redo, dirty state, save and git diff come from VS Code). Refused, with the reason,
// while the run's collect stage may still append to the file, or when the file has a problem the decision cannot
// pass (a torn tail, a line that is not a valid record).
import path from 'node:path';
import * as vscode from 'vscode';
import { readManifest, type ReviewDecision } from '../runs/core';
import type { RunAccess } from '../runs/runAccess';
import { collectingRefusal, decideInText, decideManyInText } from './core/skillsDocument';

export const SKILLS_FILE = 'skills.jsonl';

export function isSkillsDocument(document: vscode.TextDocument | undefined): document is vscode.TextDocument {
  return document !== undefined && path.basename(document.uri.path) === SKILLS_FILE;
}

/**
 * Why the run next to a skills file may not be reviewed now (an untrusted workspace, a collect stage still writing,
 * an unreadable run.json), or undefined when it may (also when there is no run.json).
 */
export async function reviewRefusal(access: RunAccess, skillsUri: vscode.Uri): Promise<string | undefined> {
  if (!vscode.workspace.isTrusted) return 'this workspace is not trusted: runs are shown read-only';
  if (skillsUri.scheme !== 'file') return undefined;
  const runDir = path.dirname(skillsUri.fsPath);
  try {
    return collectingRefusal(await readManifest(runDir, access.schemas()));
  } catch (error) {
    if ((error as { kind?: string }).kind === 'missing_file') return undefined;
    return `the run's run.json cannot be read: ${(error as Error).message}`;
  }
}

/** Applies one decision to the document (not saved). Shows the reason and returns false when it cannot. */
export async function applyDecision(access: RunAccess, document: vscode.TextDocument, id: string, decision: ReviewDecision): Promise<boolean> {
  const refusal = await reviewRefusal(access, document.uri);
  if (refusal) {
    void vscode.window.showWarningMessage(`SEED: ${refusal}.`);
    return false;
  }
  let change: { line: number; content: string };
  try {
    change = decideInText(document.getText(), id, decision, access.schemas());
  } catch (error) {
    void vscode.window.showErrorMessage(`SEED: cannot record the decision on ${id}: ${(error as Error).message}`);
    return false;
  }
  const line = document.lineAt(change.line);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, line.range, change.content);
  return vscode.workspace.applyEdit(edit);
}

/** Applies one decision to many records as a single edit (one undo step). Throws the reason when it cannot. */
export async function applyDecisions(access: RunAccess, document: vscode.TextDocument, ids: readonly string[], decision: ReviewDecision): Promise<number> {
  const refusal = await reviewRefusal(access, document.uri);
  if (refusal) throw new Error(refusal);
  const changes = decideManyInText(document.getText(), new Map(ids.map((id) => [id, decision])), access.schemas());
  if (changes.length === 0) return 0;
  const edit = new vscode.WorkspaceEdit();
  for (const change of changes) edit.replace(document.uri, document.lineAt(change.line).range, change.content);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the editor refused the edit');
  return changes.length;
}

export interface DecisionArgs {
  uri: vscode.Uri | string;
  id: string;
  state: ReviewDecision['state'];
  text?: string;
  note?: string;
  /** Save the document afterwards (default false: the decision leaves it dirty, like any edit). */
  save?: boolean;
}

function toUri(value: vscode.Uri | string): vscode.Uri {
  return typeof value === 'string' ? (/^[a-z][a-z0-9+.-]*:/i.test(value) && !/^[a-z]:\\/i.test(value) ? vscode.Uri.parse(value) : vscode.Uri.file(value)) : value;
}

/** The command behind the review's buttons and CodeLenses: `seedStudio.reviewSkill({uri, id, state, text?, save?})`. */
export async function decideCommand(access: RunAccess, args: DecisionArgs): Promise<boolean> {
  const document = await vscode.workspace.openTextDocument(toUri(args.uri));
  const decision: ReviewDecision = { state: args.state, ...(args.text !== undefined ? { text: args.text } : {}), ...(args.note ? { note: args.note } : {}) };
  const applied = await applyDecision(access, document, args.id, decision);
  if (applied && args.save) return document.save();
  return applied;
}
