// The HTML shell of every webview: a strict CSP with a per-load nonce, the panel's bundle and stylesheet from the
// extension's own folders, no inline handlers. Untrusted text is put into the page by the bundle with textContent.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

export interface WebviewPage {
  title: string;
  /** The bundle name: dist/webview/<bundle>.js (and media/<bundle>.css when `stylesheet`). */
  bundle: string;
  stylesheet?: boolean;
}

/** Roots a panel may load from: the built bundles and media (never the workspace). */
export function localResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = newNonce();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${page.bundle}.js`));
  const style = page.stylesheet
    ? webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', `${page.bundle}.css`))
    : undefined;
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const escapedTitle = page.title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapedTitle}</title>
${style ? `<link rel="stylesheet" href="${style.toString()}" nonce="${nonce}">` : ''}
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
