// The host side of a webview's message channel: typed posting, typed handlers, requests with replies in both
// directions (src/webviewHost/shared/messageEndpoint.ts), and messages held back until the webview's `ready` (so
// nothing sent while the page loads is lost). Incoming messages are untrusted and narrowed; so are the page's replies.
// Disposing the channel answers the page's requests still being handled with an error and rejects the host's own.
import * as vscode from 'vscode';
import { MessageEndpoint } from './shared/messageEndpoint';
import { isReady, type Handlers, type MessageMap, type MessageSet, type ReplyOf } from './shared/protocol';

export class WebviewChannel<ToWebview extends MessageMap, ToHost extends MessageMap> implements vscode.Disposable {
  private isReady = false;
  private readonly queue: unknown[] = [];
  private readonly readyListeners: Array<() => void> = [];
  private readonly subscription: vscode.Disposable;
  private readonly endpoint: MessageEndpoint<ToWebview, ToHost>;

  constructor(
    private readonly webview: vscode.Webview,
    hostMessages: MessageSet<ToHost>,
    private readonly log?: vscode.LogOutputChannel,
  ) {
    this.endpoint = new MessageEndpoint<ToWebview, ToHost>(hostMessages, {
      post: (message) => this.send(message),
      failed: (type, message) => this.log?.error(`webview message ${type} failed: ${message}`),
    });
    this.subscription = webview.onDidReceiveMessage((value: unknown) => {
      if (isReady(value)) {
        // A reloaded webview (e.g. after being hidden without retainContextWhenHidden) says ready again: what the
        // old page asked is not answered, and what was asked of it is lost.
        if (this.isReady) this.endpoint.restart();
        this.isReady = true;
        for (const message of this.queue.splice(0)) void this.webview.postMessage(message);
        for (const listener of this.readyListeners) listener();
        return;
      }
      if (!this.endpoint.receive(value)) this.log?.warn(`webview sent an unknown message: ${JSON.stringify(value)?.slice(0, 200)}`);
    });
  }

  /** Handles a message of the page; for a request, the handler's result is the reply (its error, the error reply). */
  on<K extends keyof ToHost & string>(type: K, handler: (params: ToHost[K]) => ReplyOf<ToHost[K]> | Promise<ReplyOf<ToHost[K]>>): this {
    this.endpoint.on(type, handler);
    return this;
  }

  /** Handles several messages at once: a feature's handlers that a panel of another feature serves (What if… in the
   * trajectory viewer). */
  handle(handlers: Partial<Handlers<ToHost>>): this {
    for (const type of Object.keys(handlers) as Array<keyof ToHost & string>) {
      const handler = handlers[type];
      if (handler) this.endpoint.on(type, handler);
    }
    return this;
  }

  onReady(listener: () => void): this {
    this.readyListeners.push(listener);
    return this;
  }

  post<K extends keyof ToWebview & string>(type: K, params: ToWebview[K]): void {
    this.endpoint.post(type, params);
  }

  /** Asks the page; resolves with its reply once `accept` has checked it (the page is not trusted). */
  request<K extends keyof ToWebview & string>(type: K, params: ToWebview[K], accept: (value: unknown) => value is ReplyOf<ToWebview[K]>): Promise<ReplyOf<ToWebview[K]>> {
    return this.endpoint.request(type, params, accept);
  }

  private send(message: unknown): void {
    if (this.isReady) void this.webview.postMessage(message);
    else this.queue.push(message);
  }

  dispose(): void {
    this.subscription.dispose();
    this.endpoint.close();
  }
}
