// Every panel builds on the panel base (src/webviewHost/panelBase.ts; issue 40 item 1, asked again by issue 41 for
// the panels it added): each page under webview/ is served by one class that extends PanelBase, and no other host
// file creates a webview panel or writes a page's HTML, which would skip the base's CSP, options and channel.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repoPaths';

const src = path.join(repoRoot, 'src');
const base = path.join('webviewHost');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return tsFiles(file);
    return name.endsWith('.ts') ? [file] : [];
  });
}

const hostFiles = tsFiles(src).map((file) => ({ rel: path.relative(src, file), text: readFileSync(file, 'utf8') }));
const outsideBase = hostFiles.filter((f) => !f.rel.startsWith(base + path.sep));

test('each webview page is served by a class that extends PanelBase', () => {
  const pages = readdirSync(path.join(repoRoot, 'webview')).filter((name) => {
    const dir = path.join(repoRoot, 'webview', name);
    return statSync(dir).isDirectory() && readdirSync(dir).includes('main.ts');
  });
  assert.ok(pages.length >= 7, `pages: ${pages.join(', ')}`);
  for (const page of pages) {
    const servers = outsideBase.filter((f) => new RegExp(`bundle: '${page}'`).test(f.text));
    assert.equal(servers.length, 1, `webview/${page} is served by ${servers.map((f) => f.rel).join(', ') || 'no host file'}`);
    assert.match(servers[0]!.text, /class \w+ extends PanelBase</, `${servers[0]!.rel} serves webview/${page} without PanelBase`);
  }
});

test('no host file outside the panel base creates a webview panel or sets a page’s HTML', () => {
  const offenders = outsideBase.filter((f) => /\bcreateWebviewPanel\s*\(|\.webview\.html\s*=|\bwebviewHtml\s*\(/.test(f.text)).map((f) => f.rel);
  assert.deepEqual(offenders, []);
});
