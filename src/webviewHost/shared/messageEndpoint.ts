// One side of a webview's message channel, the same code on the host (src/webviewHost/webviewChannel.ts) and in the
// page (webview/shared/hostApi.ts), each giving it its way to post: typed messages to the other side, typed handlers
// for what arrives (narrowed first: the other side is not trusted), and requests with replies. A request carries an
// id counted by its sender; the receiver runs its handler and posts back a `reply` with that id, holding the handler's
// result or its error named by the request; the sender's promise settles with it. Each side matches replies only
// against the ids it sent, so two requests in flight never get each other's reply.
// Nothing times out: the slow requests are legitimately slow (What if… rescores for minutes, and an export of a
// checkpoint takes as long). A request ends with its reply, or when its channel closes (the panel was closed: the other side's
// requests still being handled are answered with that error) or restarts (the page reloaded).
import { REPLY, isMessage, isReply, type MessageMap, type MessageSet, type ReplyMessage, type ReplyOf } from './protocol';

/** A request that failed: its handler threw, or it could not be answered. `request` names it. */
export class RequestError extends Error {
  constructor(
    readonly request: string,
    message: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

export interface EndpointTransport {
  /** Posts a message to the other side. */
  post(message: unknown): void;
  /** A handler failed (a request's error is also sent back as its reply). */
  failed?(type: string, message: string): void;
}

interface Waiting {
  request: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  accept?: (value: unknown) => boolean;
}

type Handler = (params: never) => unknown;

export class MessageEndpoint<Out extends MessageMap, In extends MessageMap> {
  private lastId = 0;
  /** My requests waiting for their reply, by id. */
  private readonly waiting = new Map<number, Waiting>();
  private readonly handlers = new Map<string, Handler>();
  /** The other side's requests whose handler is still running; one left out is no longer answered. */
  private readonly answering = new Set<{ id: number; request: string }>();

  constructor(
    private readonly incoming: MessageSet<In>,
    private readonly transport: EndpointTransport,
  ) {}

  /** Handles messages of `type`; a request's reply is what the handler returns. */
  on<K extends keyof In & string>(type: K, handler: (params: In[K]) => ReplyOf<In[K]> | Promise<ReplyOf<In[K]>>): this {
    this.handlers.set(type, handler as Handler);
    return this;
  }

  /** Posts a message that wants no reply. */
  post<K extends keyof Out & string>(type: K, params: Out[K]): void {
    this.transport.post({ type, params });
  }

  /**
   * Posts a request; resolves with the other side's reply, rejects with a RequestError (its handler failed, the
   * channel closed or restarted). `accept` checks a reply that comes from an untrusted side (the page): one it refuses
   * rejects the request.
   */
  request<K extends keyof Out & string>(type: K, params: Out[K], accept?: (value: unknown) => value is ReplyOf<Out[K]>): Promise<ReplyOf<Out[K]>> {
    this.lastId += 1;
    const id = this.lastId;
    const reply = new Promise<ReplyOf<Out[K]>>((resolve, reject) => {
      this.waiting.set(id, { request: type, resolve: resolve as (value: unknown) => void, reject, ...(accept ? { accept } : {}) });
    });
    try {
      this.transport.post({ type, params, id });
    } catch (error) {
      this.waiting.delete(id);
      return Promise.reject(new RequestError(type, `${type} was not sent: ${error instanceof Error ? error.message : String(error)}`));
    }
    return reply;
  }

  /** Takes a value the other side posted: false when it is neither a reply nor a message of the incoming set. */
  receive(value: unknown): boolean {
    if (isReply(value)) {
      this.settle(value.params);
      return true;
    }
    if (!isMessage<In>(value, this.incoming)) return false;
    const { type, params, id } = value;
    const handler = this.handlers.get(type);
    if (id === undefined) {
      if (handler) void this.run(type, () => handler(params as never));
      return true;
    }
    const call = { id, request: type };
    this.answering.add(call);
    void this.run(type, () => {
      if (!handler) throw new Error(`nothing handles ${type}`);
      return handler(params as never);
    }).then((outcome) => {
      if (!this.answering.delete(call)) return; // closed or restarted meanwhile
      this.answer(call, outcome);
    });
    return true;
  }

  /** The panel is closing: my waiting requests reject, and the other side's requests still being handled are answered
   * with an error, so no promise on either side waits forever. */
  close(why = 'the panel was closed'): void {
    for (const call of this.answering) this.answer(call, { error: `${why} before ${call.request} was answered` });
    this.answering.clear();
    this.rejectWaiting(why);
  }

  /** The other side started afresh (a reloaded page): its old requests are not answered, mine reject. */
  restart(why = 'the page was reloaded'): void {
    this.answering.clear();
    this.rejectWaiting(why);
  }

  private rejectWaiting(why: string): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const { request, reject } of waiting) reject(new RequestError(request, `${why} before ${request} was answered`));
  }

  /** Runs a handler; its result, or its error's message (also told to the transport). */
  private async run(type: string, handler: () => unknown): Promise<{ result: unknown } | { error: string }> {
    try {
      return { result: await handler() };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.transport.failed?.(type, message);
      return { error: message };
    }
  }

  private answer(call: { id: number; request: string }, outcome: { result: unknown } | { error: string }): void {
    const params: ReplyMessage['params'] = 'error' in outcome ? { ...call, ok: false, error: outcome.error } : { ...call, ok: true, result: outcome.result };
    try {
      this.transport.post({ type: REPLY, params } satisfies ReplyMessage);
    } catch {
      // The other side is gone (a disposed webview throws): nobody is left to wait for this reply.
    }
  }

  private settle(reply: ReplyMessage['params']): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting || waiting.request !== reply.request) return; // not mine, or answered already
    this.waiting.delete(reply.id);
    if (!reply.ok) waiting.reject(new RequestError(reply.request, reply.error));
    else if (waiting.accept && !waiting.accept(reply.result)) waiting.reject(new RequestError(reply.request, `${reply.request} was answered with an unexpected reply`));
    else waiting.resolve(reply.result);
  }
}
