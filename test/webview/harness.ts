// Webviews outside VS Code: a local HTTP server serves the extension's own page (src/webviewHost/core/pageHtml.ts: the same strict
// CSP with a nonce, the built bundle from dist/webview/, the stylesheet beside it), and headless Chromium opens it
// with a stub of VS Code's webview API injected before any script runs. Tests post the host's messages into the page
// and read what the webview posted back. Shared by test/webview/run.ts and bench/extension/trajectory-render.mjs.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { pageHtml } from '../../src/webviewHost/core/pageHtml';

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'seed-studio') return dir;
    if (path.dirname(dir) === dir) throw new Error(`no seed-studio package.json above ${start}`);
  }
}

export const repoRoot = findRepoRoot(__dirname);
export const resultsDir = path.join(repoRoot, 'test-results');

/** The page of a webview bundle: the extension's own page HTML (src/webviewHost/core/pageHtml.ts) with this server as the source. */
function bundlePage(bundle: string, origin: string): string {
  return pageHtml({ title: bundle, cspSource: origin, scriptSrc: `${origin}/dist/webview/${bundle}.js`, styleHref: `${origin}/dist/webview/${bundle}.css` });
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

export class PageServer {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<PageServer> {
    let origin = '';
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', origin);
      if (url.pathname === '/favicon.ico') {
        response.writeHead(204).end();
        return;
      }
      const bundle = /^\/page\/([a-zA-Z]+)$/.exec(url.pathname)?.[1];
      if (bundle) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(bundlePage(bundle, origin));
        return;
      }
      const file = /^\/(dist\/webview|media)\/[a-zA-Z]+\.(js|css|js\.map)$/.test(url.pathname) ? path.join(repoRoot, url.pathname) : undefined;
      if (!file || !existsSync(file)) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      response.end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return new PageServer(server, origin);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: install Debian's chromium, or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
}

/** Runs in the page before its scripts: VS Code's webview API, recording what the webview posts. */
const STUB = `(() => {
  window.__posted = [];
  // VS Code keeps a webview's state across reloads of its page: so does the tab's sessionStorage.
  window.__state = JSON.parse(sessionStorage.getItem('vscodeState') ?? 'null') ?? undefined;
  window.__violations = [];
  window.__alerts = 0;
  window.alert = window.confirm = window.prompt = () => { window.__alerts += 1; };
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi called twice');
    acquired = true;
    return {
      postMessage: (message) => {
        const copy = JSON.parse(JSON.stringify(message));
        window.__posted.push({ time: performance.now(), message: copy });
        if (window.__toHost) void window.__toHost(copy);
      },
      getState: () => window.__state,
      setState: (state) => { window.__state = state; sessionStorage.setItem('vscodeState', JSON.stringify(state ?? null)); },
    };
  };
})();`;

export interface Posted {
  time: number;
  message: { type: string; params: unknown; id?: number };
}

export interface WebviewPage {
  page: Page;
  errors: string[];
  /** Posts a host → webview message, as WebviewChannel.post does. */
  send(type: string, params: unknown): Promise<void>;
  /** Posts a value into the page as it is (a request with its id, a reply). */
  post(message: unknown): Promise<void>;
  /** Everything the webview has posted so far. */
  posted(): Promise<Posted[]>;
  /** Waits for the n-th (1-based) message of a type from the webview and returns its params. */
  waitFor<T>(type: string, nth?: number, timeoutMs?: number): Promise<T>;
  /** Answers the n-th request of a type from the webview (waiting for it first), as the host's handler would: with its
   * result, or with `{ error }` as a failed handler. */
  reply(type: string, nth: number, outcome: { result: unknown } | { error: string }): Promise<void>;
  /** Sends a host → webview request and resolves with the webview's reply (`{ result }` or `{ error }`). */
  request(type: string, params: unknown): Promise<{ result?: unknown; error?: string }>;
  violations(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Delays every host → page message by `delay` ms inside the page (its `message` listeners run that much later), as a
 * slow or loaded machine may: a test that reads the page right after a `send` instead of waiting for what it asserts
 * then fails (issue 52). Set for a whole run with SEED_WEBVIEW_MESSAGE_DELAY_MS, or per page (`messageDelayMs`).
 */
function delayMessages(delay: number): void {
  const add = window.addEventListener.bind(window);
  window.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions) => {
    if (type !== 'message') return add(type, listener, options);
    const call = (event: Event) => (typeof listener === 'function' ? listener(event) : listener.handleEvent(event));
    return add(type, (event: Event) => void setTimeout(() => call(event), delay), options);
  }) as typeof window.addEventListener;
}

/** `toHost`: also hands every message the page posts to this function (a real host side: test/webview/hostBridge.ts). */
export async function openWebview(browser: Browser, server: PageServer, bundle: string, viewport = { width: 1200, height: 800 }, options: { messageDelayMs?: number; toHost?: (message: unknown) => void } = {}): Promise<WebviewPage> {
  const page = await browser.newPage({ viewport });
  if (options.toHost) await page.exposeFunction('__toHost', options.toHost);
  const delay = options.messageDelayMs ?? Number(process.env.SEED_WEBVIEW_MESSAGE_DELAY_MS ?? 0);
  if (delay > 0) await page.addInitScript(`(${delayMessages.toString()})(${delay});`);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.stack ?? error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.addInitScript(STUB);
  await page.goto(`${server.origin}/page/${bundle}`);
  let hostRequests = 0;
  const webview: WebviewPage = {
    page,
    errors,
    async send(type, params) {
      await page.evaluate(([t, p]) => window.postMessage({ type: t, params: p }, '*'), [type, params] as const);
    },
    async post(message) {
      await page.evaluate((m) => window.postMessage(m, '*'), message);
    },
    posted: () => page.evaluate(() => (window as unknown as { __posted: Posted[] }).__posted),
    async waitFor<T>(type: string, nth = 1, timeoutMs = 10_000): Promise<T> {
      await page.waitForFunction(
        ([t, n]) => (window as unknown as { __posted: Posted[] }).__posted.filter((p) => p.message.type === t).length >= n,
        [type, nth] as const,
        { timeout: timeoutMs },
      );
      const all = await webview.posted();
      return all.filter((p) => p.message.type === type)[nth - 1]!.message.params as T;
    },
    async reply(type, nth, outcome) {
      await webview.waitFor(type, nth);
      const asked = (await webview.posted()).filter((p) => p.message.type === type)[nth - 1]!.message;
      if (typeof asked.id !== 'number') throw new Error(`the webview's ${type} #${nth} is not a request (no id)`);
      const params = 'error' in outcome ? { id: asked.id, request: type, ok: false, error: outcome.error } : { id: asked.id, request: type, ok: true, result: outcome.result };
      await webview.send('reply', params);
    },
    async request(type, params) {
      hostRequests += 1;
      const id = hostRequests;
      await page.evaluate(([t, p, i]) => window.postMessage({ type: t, params: p, id: i }, '*'), [type, params, id] as const);
      const handle = await page.waitForFunction(
        ([t, i]) => (window as unknown as { __posted: Posted[] }).__posted.find((p) => p.message.type === 'reply' && (p.message.params as { id: number; request: string }).id === i && (p.message.params as { request: string }).request === t)?.message.params,
        [type, id] as const,
        { timeout: 10_000 },
      );
      const reply = (await handle.jsonValue()) as { ok: boolean; result?: unknown; error?: string };
      return reply.ok ? { result: reply.result } : { error: reply.error! };
    },
    violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
    close: () => page.close(),
  };
  await webview.waitFor('ready');
  return webview;
}
