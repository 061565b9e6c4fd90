// The host side of a webview's message channel: typed posting, typed handlers, and messages held back until the
// webview's `ready` (so nothing sent while the page loads is lost). Incoming messages are untrusted and narrowed.
// A message with a `seq` is answered when its handler is done: ok, or the handler's error for the page to show.
import * as vscode from 'vscode';
import { HOST_REPLY, isMessage, isReady, type HostReply, type Message, type MessageMap, type MessageSet } from './shared/protocol';

export class WebviewChannel<ToWebview extends MessageMap, ToHost extends MessageMap> implements vscode.Disposable {
  private isReady = false;
  private readonly queue: Message<ToWebview>[] = [];
  private readonly handlers = new Map<string, (params: never) => void | Promise<void>>();
  private readonly readyListeners: Array<() => void> = [];
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly webview: vscode.Webview,
    hostMessages: MessageSet<ToHost>,
    private readonly log?: vscode.LogOutputChannel,
  ) {
    this.subscription = webview.onDidReceiveMessage((value: unknown) => {
      if (isReady(value)) {
        // A reloaded webview (e.g. after being hidden without retainContextWhenHidden) says ready again.
        this.isReady = true;
        for (const message of this.queue.splice(0)) void this.webview.postMessage(message);
        for (const listener of this.readyListeners) listener();
        return;
      }
      if (!isMessage<ToHost>(value, hostMessages)) {
        this.log?.warn(`webview sent an unknown message: ${JSON.stringify(value)?.slice(0, 200)}`);
        return;
      }
      const { type, seq } = value;
      const handler = this.handlers.get(type);
      const reply = (params: Omit<HostReply['params'], 'seq' | 'request'>): void => {
        if (typeof seq === 'number') void this.webview.postMessage({ type: HOST_REPLY, params: { seq, request: type, ...params } } satisfies HostReply);
      };
      Promise.resolve()
        .then(() => handler?.(value.params as never))
        .then(
          () => reply({ ok: true }),
          (error: unknown) => {
            const message = error instanceof Error ? error.message : String(error);
            this.log?.error(`webview message ${type} failed: ${message}`);
            reply({ ok: false, error: message });
          },
        );
    });
  }

  on<K extends keyof ToHost & string>(type: K, handler: (params: ToHost[K]) => void | Promise<void>): this {
    this.handlers.set(type, handler as (params: never) => void | Promise<void>);
    return this;
  }

  onReady(listener: () => void): this {
    this.readyListeners.push(listener);
    return this;
  }

  post<K extends keyof ToWebview & string>(type: K, params: ToWebview[K]): void {
    const message = { type, params } as Message<ToWebview>;
    if (this.isReady) void this.webview.postMessage(message);
    else this.queue.push(message);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
