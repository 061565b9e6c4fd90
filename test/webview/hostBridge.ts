// A page in Chromium joined to the real host side of its channel (src/webviewHost/webviewChannel.ts) instead of a test
// playing the host: what the page posts reaches the channel as VS Code delivers it, what the channel posts goes into
// the page in order, and reloading the page is what a re-created webview is (a new page that says ready again, while
// the host goes on). Only VS Code's Webview is a stand-in.
import type * as vscode from 'vscode';
import type { Browser } from 'playwright-core';
import { WebviewChannel } from '../../src/webviewHost/webviewChannel';
import type { MessageMap, MessageSet } from '../../src/webviewHost/shared/protocol';
import { openWebview, type PageServer, type WebviewPage } from './harness';

export interface Bridged<ToWebview extends MessageMap, ToHost extends MessageMap> {
  view: WebviewPage;
  channel: WebviewChannel<ToWebview, ToHost>;
  /** Reloads the page (the webview re-created) and waits for its ready. */
  reload(): Promise<void>;
}

export async function openBridged<ToWebview extends MessageMap, ToHost extends MessageMap>(
  browser: Browser,
  server: PageServer,
  bundle: string,
  fromPage: MessageSet<ToHost>,
  serve: (channel: WebviewChannel<ToWebview, ToHost>) => void,
  viewport = { width: 1200, height: 900 },
): Promise<Bridged<ToWebview, ToHost>> {
  const listeners: Array<(message: unknown) => void> = [];
  let opened!: (view: WebviewPage) => void;
  const page = new Promise<WebviewPage>((resolve) => (opened = resolve));
  // Host → page in the order posted, one after the other, as VS Code delivers them (the first ones once the page is
  // open: the channel answers its ready while openWebview still waits for it).
  let delivered: Promise<unknown> = page;
  const webview = {
    onDidReceiveMessage: (listener: (message: unknown) => void) => {
      listeners.push(listener);
      return { dispose: () => listeners.splice(listeners.indexOf(listener), 1) };
    },
    postMessage: (message: unknown) => {
      delivered = delivered.then(async () => (await page).post(message)).catch(() => undefined);
      return Promise.resolve(true);
    },
  };
  const channel = new WebviewChannel<ToWebview, ToHost>(webview as unknown as vscode.Webview, fromPage);
  serve(channel);
  const view = await openWebview(browser, server, bundle, viewport, { toHost: (message) => listeners.forEach((listener) => listener(message)) });
  opened(view);
  return {
    view,
    channel,
    async reload() {
      await view.page.reload();
      await view.waitFor('ready');
    },
  };
}
