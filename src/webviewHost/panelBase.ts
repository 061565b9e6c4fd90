// The host side of every panel (webview panels and the custom editor alike): the webview's options, the page (strict
// CSP, nonce, the panel's bundle and stylesheet), the typed message channel with its ready handshake, and one
// dispose for all of it. A panel subclasses it, registers its handlers on `channel` in its constructor (before the
// page can say ready: messages arrive on a later turn of the event loop) and adds what it owns with `own`.
import * as vscode from 'vscode';
import type { MessageMap, MessageSet } from './shared/protocol';
import { WebviewChannel } from './webviewChannel';
import { localResourceRoots, webviewHtml } from './webviewHtml';

export interface PanelPage<ToHost extends MessageMap> {
  /** The page's title (its HTML <title>; the tab's title is the panel's). */
  title: string;
  /** The view: dist/webview/<bundle>.js and .css, built from webview/<bundle>/main.ts and style.css. */
  bundle: string;
  /** What the page may send (untrusted messages are narrowed with it). */
  fromPage: MessageSet<ToHost>;
  /** The SEED icon on the tab (a custom editor keeps its own). Default true. */
  icon?: boolean;
}

export interface PanelContext {
  extensionUri: vscode.Uri;
  log?: vscode.LogOutputChannel;
}

/** The options every panel is created with: scripts on, resources only from the built bundles and media. */
function panelOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: localResourceRoots(extensionUri) };
}

/** A new webview panel of `viewType` with the options every panel has. */
export function createPanel(
  viewType: string,
  title: string,
  showOptions: vscode.ViewColumn | { viewColumn: vscode.ViewColumn; preserveFocus?: boolean },
  extensionUri: vscode.Uri,
): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(viewType, title, showOptions, panelOptions(extensionUri));
}

export abstract class PanelBase<ToWebview extends MessageMap, ToHost extends MessageMap> implements vscode.Disposable {
  protected readonly channel: WebviewChannel<ToWebview, ToHost>;
  private readonly owned: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    page: PanelPage<ToHost>,
    context: PanelContext,
  ) {
    panel.webview.options = panelOptions(context.extensionUri);
    if (page.icon !== false) panel.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'seed.svg');
    this.channel = new WebviewChannel<ToWebview, ToHost>(panel.webview, page.fromPage, context.log);
    panel.webview.html = webviewHtml(panel.webview, context.extensionUri, { title: page.title, bundle: page.bundle, stylesheet: true });
    this.owned.push(this.channel, panel.onDidDispose(() => this.dispose()));
  }

  /** Disposed with the panel. */
  protected own(...disposables: vscode.Disposable[]): void {
    this.owned.push(...disposables);
  }

  /** Closes the panel (once) and disposes what it owns; runs too when the user closes it. */
  dispose(): void {
    for (const disposable of this.owned.splice(0)) disposable.dispose();
    this.panel.dispose();
  }
}
