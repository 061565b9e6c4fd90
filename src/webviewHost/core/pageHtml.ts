// The HTML of a webview page from its parts: a strict CSP with a per-load nonce, the bundle, the stylesheet, no inline
// handlers. No `vscode` import: webviewHtml.ts fills in VS Code's URIs, and the Chromium test harness serves the
// same page from a local server, so the tests load exactly what the extension does.
import { randomBytes } from 'node:crypto';

function newNonce(): string {
  return randomBytes(18).toString('base64');
}

export interface PageParts {
  title: string;
  /** Where the page may load from (VS Code: webview.cspSource; the harness: its server's origin). */
  cspSource: string;
  scriptSrc: string;
  styleHref?: string;
  nonce?: string;
}

export function pageHtml(parts: PageParts): string {
  const nonce = parts.nonce ?? newNonce();
  const csp = [
    "default-src 'none'",
    `img-src ${parts.cspSource} data:`,
    `style-src ${parts.cspSource} 'nonce-${nonce}'`,
    `font-src ${parts.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escape(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escape(parts.title)}</title>
${parts.styleHref ? `<link rel="stylesheet" href="${escape(parts.styleHref)}" nonce="${nonce}">` : ''}
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${escape(parts.scriptSrc)}"></script>
</body>
</html>`;
}
