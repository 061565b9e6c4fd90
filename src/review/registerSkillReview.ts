// Inline review of Stage-1 hindsight skills (skills.jsonl): the review editor, the text view's CodeLenses and
// diagnostics, the status-bar counts, and the commands.
//
//   seedStudio.reviewSkills(runDir? | skills.jsonl Uri)   opens a run's skills in the review editor (asks when missing)
//   seedStudio.reviewSkill({uri, id, state, text?, note?, save?})  records one decision (buttons, CodeLenses, tests)
//   seedStudio.editSkill({uri, id})                       asks for the edited skill text, then records `edited`
import path from 'node:path';
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { RunAccess } from '../runs/runAccess';
import { provideCustomEditor } from '../lazyFeatures/featureStandIns';
import { SKILLS_FILE, decideCommand, type DecisionArgs } from './reviewDecisions';
import { REVIEW_VIEW_TYPE, SkillReviewEditorProvider } from './skillReviewEditor';
import { REVIEW_COMMAND, SkillsParses, registerReviewStatusBar, registerSkillCodeLenses, registerSkillDiagnostics } from './skillReviewText';

async function pickSkillsFile(access: RunAccess): Promise<vscode.Uri | undefined> {
  const runs = (await access.runDirs()).filter((dir) => existsSync(path.join(dir, SKILLS_FILE)));
  if (runs.length === 0) {
    void vscode.window.showWarningMessage('SEED: no run in this workspace has a skills.jsonl (Stage-1 collection writes it).');
    return undefined;
  }
  const choice =
    runs.length === 1
      ? { runDir: runs[0]! }
      : await vscode.window.showQuickPick(
          runs.map((runDir) => ({ label: access.runs.title(runDir), description: vscode.workspace.asRelativePath(runDir), runDir })),
          { title: 'Review Hindsight Skills', placeHolder: 'Run' },
        );
  return choice ? vscode.Uri.file(path.join(choice.runDir, SKILLS_FILE)) : undefined;
}

export function registerSkillReview(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, access: RunAccess): vscode.Disposable {
  const provider = new SkillReviewEditorProvider(context.extensionUri, access, log);
  const parses = new SkillsParses(access);
  return vscode.Disposable.from(
    // VS Code holds its stand-in, with the editor's options, from activation on (featureStandIns.ts).
    provideCustomEditor(REVIEW_VIEW_TYPE, provider),
    registerSkillDiagnostics(parses),
    registerSkillCodeLenses(parses),
    registerReviewStatusBar(parses),
    vscode.commands.registerCommand('seedStudio.reviewSkills', async (target?: unknown) => {
      let uri: vscode.Uri | undefined;
      if (target instanceof vscode.Uri) uri = target.path.endsWith(`/${SKILLS_FILE}`) ? target : vscode.Uri.joinPath(target, SKILLS_FILE);
      else if (typeof target === 'string') uri = vscode.Uri.file(target.endsWith(SKILLS_FILE) ? target : path.join(target, SKILLS_FILE));
      else uri = await pickSkillsFile(access);
      if (uri) await vscode.commands.executeCommand('vscode.openWith', uri, REVIEW_VIEW_TYPE);
      return uri;
    }),
    vscode.commands.registerCommand(REVIEW_COMMAND, (args: DecisionArgs) => decideCommand(access, args)),
    vscode.commands.registerCommand('seedStudio.editSkill', async (args: { uri: vscode.Uri; id: string }) => {
      const document = await vscode.workspace.openTextDocument(args.uri);
      const record = parses.get(document).records.find((r) => r.id === args.id);
      if (!record) return false;
      const text = await vscode.window.showInputBox({
        title: `Edit the skill of ${record.id}`,
        value: record.review.state === 'edited' ? (record.review.text ?? '') : (record.skill ?? ''),
        prompt: 'One short, policy-facing rule. Stored as review.text with state "edited"; the original stays in "skill".',
        validateInput: (value) => (value.trim() === '' ? 'An edited skill cannot be empty (reject the record instead).' : undefined),
      });
      if (text === undefined) return false;
      return decideCommand(access, { uri: args.uri, id: args.id, state: 'edited', text });
    }),
  );
}
