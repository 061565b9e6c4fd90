// The HTML shell of every webview (pageHtml.ts) with the panel's bundle and stylesheet from the extension's own
// folders. Untrusted text is put into the page by the bundle with textContent.
import * as vscode from 'vscode';
import { pageHtml } from './core/pageHtml';

export interface WebviewPage {
  title: string;
  /** The bundle name: dist/webview/<bundle>.js (and dist/webview/<bundle>.css, from webview/<bundle>/style.css, when `stylesheet`). */
  bundle: string;
  stylesheet?: boolean;
}

/** Roots a panel may load from: the built bundles and media (never the workspace). */
export function localResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${page.bundle}.js`));
  const style = page.stylesheet ? webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${page.bundle}.css`)) : undefined;
  return pageHtml({ title: page.title, cspSource: webview.cspSource, scriptSrc: script.toString(), ...(style ? { styleHref: style.toString() } : {}) });
}
