// The webview side of the channel: VS Code's API acquired once, typed posting, typed handlers, requests with replies
// in both directions (src/webviewHost/shared/messageEndpoint.ts), and the ready message. Every message to the host is
// a request: `request` resolves with the handler's reply; `post` wants none, but a failed handler is still shown at the
// top of the page (as is a failed request), so a host-side error never passes silently.
import { READY, type MessageMap, type MessageSet, type ReplyOf } from '../../src/webviewHost/shared/protocol';
import { MessageEndpoint, RequestError } from '../../src/webviewHost/shared/messageEndpoint';
import { isolatedText } from '../../src/common/shared/inertText';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** The banner that reports a failed host handler (one at a time; the latest failure wins). */
function showHostError(error: RequestError): void {
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
  banner.textContent = `${error.request} failed: ${isolatedText(error.message)} (click to dismiss)`;
}

export class HostChannel<ToWebview extends MessageMap, ToHost extends MessageMap> {
  private readonly api: VsCodeApi = acquireVsCodeApi();
  private readonly endpoint: MessageEndpoint<ToHost, ToWebview>;

  constructor(messages: MessageSet<ToWebview>) {
    this.endpoint = new MessageEndpoint<ToHost, ToWebview>(messages, {
      post: (message) => this.api.postMessage(message),
      failed: (type, message) => console.error(`${type} failed: ${message}`),
    });
    window.addEventListener('message', (event: MessageEvent<unknown>) => void this.endpoint.receive(event.data));
  }

  /** Handles a message of the host; for a request, the handler's result is the reply. */
  on<K extends keyof ToWebview & string>(type: K, handler: (params: ToWebview[K]) => ReplyOf<ToWebview[K]> | Promise<ReplyOf<ToWebview[K]>>): this {
    this.endpoint.on(type, handler);
    return this;
  }

  /** Tells the host; a failure of its handler is shown at the top of the page. */
  post<K extends keyof ToHost & string>(type: K, params: ToHost[K]): void {
    this.request(type, params).catch(() => undefined);
  }

  /** Asks the host: resolves with its handler's reply; rejects with a RequestError (shown at the top of the page too)
   * when the handler failed or the panel closed first. */
  async request<K extends keyof ToHost & string>(type: K, params: ToHost[K]): Promise<ReplyOf<ToHost[K]>> {
    try {
      return await this.endpoint.request(type, params);
    } catch (error) {
      showHostError(error instanceof RequestError ? error : new RequestError(type, String(error)));
      throw error;
    }
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
