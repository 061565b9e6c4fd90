// The webview side of the channel: VS Code's API acquired once, typed posting, typed handlers, and the ready message.
// Every message posted carries a `seq`; the host answers it when its handler is done (src/webviewHost/shared/protocol.ts). A
// failure is shown at the top of the page (and rejects `request`), so a host-side error never passes silently.
import { READY, isHostReply, isMessage, type HostReply, type Message, type MessageMap, type MessageSet } from '../../src/webviewHost/shared/protocol';
import { isolatedText } from '../../src/common/shared/inertText';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** The banner that reports a failed host handler (one at a time; the latest failure wins). */
function showHostError(reply: HostReply['params']): void {
  let banner = document.getElementById('host-error');
  if (!banner) {
    banner = document.createElement('div');
    banner.id = 'host-error';
    banner.setAttribute('role', 'alert');
    banner.className = 'host-error';
    Object.assign(banner.style, {
      position: 'sticky',
      top: '0',
      zIndex: '50',
      padding: '4px 8px',
      background: 'var(--vscode-inputValidation-errorBackground, #5a1d1d)',
      border: '1px solid var(--vscode-inputValidation-errorBorder, #be1100)',
      color: 'var(--vscode-foreground, inherit)',
    });
    banner.addEventListener('click', () => banner?.remove());
    document.body.prepend(banner);
  }
  banner.textContent = `${reply.request} failed: ${isolatedText(reply.error ?? 'unknown error')} (click to dismiss)`;
}

export class HostChannel<ToWebview extends MessageMap, ToHost extends MessageMap> {
  private readonly api: VsCodeApi = acquireVsCodeApi();
  private readonly handlers = new Map<string, (params: never) => void>();
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private seq = 0;

  constructor(private readonly messages: MessageSet<ToWebview>) {
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (isHostReply(event.data)) return this.settle(event.data.params);
      if (!isMessage<ToWebview>(event.data, this.messages)) return;
      this.handlers.get(event.data.type)?.(event.data.params as never);
    });
  }

  private settle(reply: HostReply['params']): void {
    const waiting = this.pending.get(reply.seq);
    this.pending.delete(reply.seq);
    if (reply.ok) return waiting?.resolve();
    showHostError(reply);
    waiting?.reject(new Error(reply.error ?? `${reply.request} failed`));
  }

  on<K extends keyof ToWebview & string>(type: K, handler: (params: ToWebview[K]) => void): this {
    this.handlers.set(type, handler as (params: never) => void);
    return this;
  }

  post<K extends keyof ToHost & string>(type: K, params: ToHost[K]): void {
    this.seq += 1;
    this.api.postMessage({ type, params, seq: this.seq } as Message<ToHost>);
  }

  /** Posts and resolves when the host's handler is done (rejects with its error). */
  request<K extends keyof ToHost & string>(type: K, params: ToHost[K]): Promise<void> {
    this.seq += 1;
    const seq = this.seq;
    const done = new Promise<void>((resolve, reject) => this.pending.set(seq, { resolve, reject }));
    this.api.postMessage({ type, params, seq } as Message<ToHost>);
    return done;
  }

  /** Call after every handler is registered. */
  ready(): void {
    this.api.postMessage(READY);
  }

  get state(): unknown {
    return this.api.getState();
  }

  set state(value: unknown) {
    this.api.setState(value);
  }
}
