// The skill review as a custom text editor on skills.jsonl: the text document is the model (undo/redo, dirty state,
// save and git diff work as for any file); the webview shows the records as cards with Accept · Reject · Edit · Open
// trajectory and filters, turns clicks into one-line workspace edits, and is redrawn from the document on change.
import path from 'node:path';
import * as vscode from 'vscode';
import { PanelBase, type PanelContext } from '../webviewHost/panelBase';
import { REVIEW_TO_HOST, type ReviewToHost, type ReviewToWebview } from './shared/protocol';
import type { RunAccess } from '../runs/runAccess';
import { applyDecision, applyDecisions, reviewRefusal } from './reviewDecisions';
import { effectiveSkill } from './shared/skillFilters';
import { parseSkillsText } from './core/skillsDocument';

export const REVIEW_VIEW_TYPE = 'seedStudio.skillReview';

/** One review editor: a skills.jsonl document shown as cards. */
class SkillReviewPanel extends PanelBase<ReviewToWebview, ReviewToHost> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly runDir: string;

  constructor(
    private readonly document: vscode.TextDocument,
    panel: vscode.WebviewPanel,
    private readonly access: RunAccess,
    rendered: Map<string, ReviewToHost['rendered']>,
    context: PanelContext,
  ) {
    // A custom editor's tab keeps the editor's own icon.
    super(panel, { title: 'Skill review', bundle: 'review', fromPage: REVIEW_TO_HOST, icon: false }, context);
    this.runDir = path.dirname(document.uri.fsPath);
    const runDir = this.runDir;
    const changes = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document.uri.toString() !== document.uri.toString() || event.contentChanges.length === 0) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.send(), 30);
    });
    this.channel
      .onReady(() => void this.send())
      .on('decide', async ({ id, state, text, note }) => {
        await applyDecision(this.access, document, id, { state, ...(text !== undefined ? { text } : {}), ...(note ? { note } : {}) });
      })
      .on('decideMany', async ({ ids, state }) => {
        await applyDecisions(this.access, document, ids, { state });
      })
      .on('openTrajectory', async ({ id }) => {
        const record = parseSkillsText(document.getText(), this.access.schemas()).records.find((r) => r.id === id);
        if (!record?.trajectory) {
          void vscode.window.showInformationMessage(`SEED: the trajectory of ${id} was not kept.`);
          return;
        }
        await vscode.commands.executeCommand('seedStudio.openTrajectory', runDir, record.trajectory.id);
      })
      .on('whatIf', async ({ id }) => {
        const record = parseSkillsText(document.getText(), this.access.schemas()).records.find((r) => r.id === id);
        if (!record?.trajectory) {
          void vscode.window.showInformationMessage(`SEED: the trajectory of ${id} was not kept: there is nothing to rescore.`);
          return;
        }
        await vscode.commands.executeCommand('seedStudio.whatIfTrajectory', runDir, record.trajectory.id, effectiveSkill(record) ?? record.skill ?? '');
      })
      .on('openAsText', async () => {
        await vscode.commands.executeCommand('vscode.openWith', document.uri, 'default');
      })
      .on('rendered', (report) => {
        rendered.set(document.uri.toString(), report);
      });
    this.own(changes, { dispose: () => clearTimeout(this.timer) }, { dispose: () => rendered.delete(document.uri.toString()) });
  }

  private async send(): Promise<void> {
    try {
      const parsed = parseSkillsText(this.document.getText(), this.access.schemas());
      const readOnly = (await reviewRefusal(this.access, this.document.uri)) ?? null;
      this.channel.post('records', {
        file: vscode.workspace.asRelativePath(this.document.uri),
        run: await this.access.runName(this.runDir),
        runDir: this.runDir,
        lines: parsed.lines,
        problems: parsed.problems,
        readOnly,
      });
    } catch (error) {
      this.channel.post('error', { message: (error as Error).message });
    }
  }
}

export class SkillReviewEditorProvider implements vscode.CustomTextEditorProvider {
  /** The last report of each open review (tests read it), by document URI. */
  readonly rendered = new Map<string, ReviewToHost['rendered']>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly access: RunAccess,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): Promise<void> {
    new SkillReviewPanel(document, panel, this.access, this.rendered, { extensionUri: this.extensionUri, log: this.log });
  }
}
