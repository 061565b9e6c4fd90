// The quick fix of a misspelt key or enum value in an experiment file: "did you mean `mini_batch_size`?" replaces the
// marked key (or value) with the known one nearest to it (src/experiments/core/schemaErrors.ts, DID_YOU_MEAN).
import * as vscode from 'vscode';
import { DID_YOU_MEAN, suggestionOf } from './core/schemaErrors';

export class DidYouMeanActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    return context.diagnostics.flatMap((diagnostic) => {
      const replacement = diagnostic.code === DID_YOU_MEAN ? suggestionOf(diagnostic.message) : undefined;
      if (!replacement) return [];
      const action = new vscode.CodeAction(`Change to \`${replacement}\``, vscode.CodeActionKind.QuickFix);
      action.edit = new vscode.WorkspaceEdit();
      action.edit.replace(document.uri, diagnostic.range, replacement);
      action.diagnostics = [diagnostic];
      action.isPreferred = true;
      return [action];
    });
  }
}
