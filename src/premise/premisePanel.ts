// SEED: Show Premise Report: a report of `python -m seed_trainer premise --out FILE` (the file the explorer gives, else
// one picked in an open dialog) in a panel (webview/premise): the verdict of each contrast in words, the tables of
// each section, the gate band, the example skills. The file is validated against schemas/premise.schema.json with the
// run format's validators; a file that is not JSON or not a valid report is shown as a located error (file, line or
// field, message) and left as it is. The panel reads the file again when it changes on disk or on Reload.
import path from 'node:path';
import * as vscode from 'vscode';
import { RunFormatError } from '../runs/core/errors';
import type { Services } from '../services';
import { PanelBase, createPanel } from '../webviewHost/panelBase';
import { parsePremiseReport, problemOf } from './core/premiseFile';
import { PREMISE_TO_HOST, type PremiseToHost, type PremiseToWebview } from './shared/protocol';

const PREMISE_VIEW_TYPE = 'seedStudio.premiseReport';

class PremisePanel extends PanelBase<PremiseToWebview, PremiseToHost> {
  static readonly open = new Map<string, PremisePanel>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    private readonly services: Services,
    private readonly uri: vscode.Uri,
    extensionUri: vscode.Uri,
  ) {
    super(panel, { title: 'Premise report', bundle: 'premise', fromPage: PREMISE_TO_HOST }, { extensionUri, log: services.log });
    this.channel
      .onReady(() => void this.send())
      .on('reload', () => this.send())
      .on('openSource', async ({ line }) => {
        const document = await vscode.workspace.openTextDocument(uri);
        const at = typeof line === 'number' && line >= 1 ? new vscode.Position(line - 1, 0) : undefined;
        await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, ...(at ? { selection: new vscode.Range(at, at) } : {}) });
      })
      .on('rendered', () => undefined);
    // A report being rewritten (the trainer writes it at the end of its run) is read again once it settles.
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.joinPath(uri, '..'), path.posix.basename(uri.path)));
    const changed = (): void => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.send();
      }, 300);
    };
    this.own(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed));
  }

  private get filePath(): string {
    return this.uri.scheme === 'file' ? this.uri.fsPath : this.uri.toString();
  }

  async send(): Promise<void> {
    try {
      let data: Uint8Array;
      try {
        data = await vscode.workspace.fs.readFile(this.uri);
      } catch (error) {
        if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') {
          throw new RunFormatError('missing_file', { file: path.posix.basename(this.uri.path), path: this.filePath }, 'file not found');
        }
        throw error;
      }
      const report = parsePremiseReport(data, this.filePath, this.services.runs.schemas);
      this.channel.post('report', { file: this.filePath, report });
    } catch (error) {
      const problem = problemOf(error, this.filePath);
      this.services.log.warn(`premise report: ${problem.file}${problem.line ? `:${problem.line}` : ''}:${problem.field ? ` ${problem.field}:` : ''} ${problem.message}`);
      this.channel.post('error', problem);
    }
  }

  reveal(): void {
    this.panel.reveal();
    void this.send();
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (PremisePanel.open.get(this.uri.toString()) === this) PremisePanel.open.delete(this.uri.toString());
    super.dispose();
  }
}

/** The file to show: the explorer's (a Uri), a path, else one picked in an open dialog. */
async function reportUri(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string' && arg) return vscode.Uri.file(arg);
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
    filters: { 'Premise report (JSON)': ['json'] },
    openLabel: 'Show Premise Report',
    title: 'SEED: the premise report to show (python -m seed_trainer premise --out FILE)',
  });
  return picked?.[0];
}

export function registerPremiseReport(context: vscode.ExtensionContext, services: Services): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('seedStudio.showPremiseReport', async (arg?: unknown) => {
      const uri = await reportUri(arg);
      if (!uri) return undefined;
      const existing = PremisePanel.open.get(uri.toString());
      if (existing) {
        existing.reveal();
        return existing.panel;
      }
      const panel = createPanel(PREMISE_VIEW_TYPE, `Premise · ${path.posix.basename(uri.path)}`, vscode.ViewColumn.Active, context.extensionUri);
      PremisePanel.open.set(uri.toString(), new PremisePanel(panel, services, uri, context.extensionUri));
      return panel;
    }),
    { dispose: () => [...PremisePanel.open.values()].forEach((p) => p.dispose()) },
  );
}
