// Typed host↔webview messages. Each panel declares its two message sets once, as values, in its feature's
// src/<feature>/shared/protocol.ts, which both bundles import (webview/ imports src/, never the reverse):
//   export const TO_DASHBOARD = messageSet<{ metrics: { rows: MetricRow[] } }>({ metrics: true });   host → webview
//   export const FROM_DASHBOARD = messageSet<{ overlay: { runs: string[] } }>({ overlay: true });    webview → host
// The value lists every message of its map (the compiler refuses a missing or extra name), and each side narrows
// incoming messages with it. A message is `{ type, params }` with params typed by type. A message that is answered
// is declared with its reply's type, `whatIf: Request<{ skill: string }, WhatIfReply>`: the sender's
// `await request('whatIf', params)` is typed with the reply, and the receiver's handler must return it. Such a message
// carries an `id`, and the other side posts back a `reply` with that id: the handler's result, or its error named by
// the request (src/webviewHost/shared/messageEndpoint.ts does this for both sides). Every webview sends `ready` first;
// the host queues what it sends until then (src/webviewHost/webviewChannel.ts, used by every panel through
// src/webviewHost/panelBase.ts; webview/shared/hostApi.ts). `ready` and `reply` are not message names of a map.

export type MessageMap = Record<string, unknown>;

/** Never a value: the key under which a message's params type carries its reply's type. */
declare const replyType: unique symbol;

/** A message answered with a reply of type R; its params are P. */
export type Request<P, R> = P & { readonly [replyType]?: R };

/** The reply's type of a message: R for a Request<P, R>, void for a message that is only posted. */
export type ReplyOf<T> = typeof replyType extends keyof T ? (T extends { readonly [replyType]?: infer R } ? R : never) : void;

/** A handler for each message of map M: a request's returns its reply. */
export type Handlers<M extends MessageMap> = { [K in keyof M & string]: (params: M[K]) => ReplyOf<M[K]> | Promise<ReplyOf<M[K]>> };

/** A message of map M; `id` when it is a request (its reply carries the same id). */
export type Message<M extends MessageMap> = { [K in keyof M & string]: { type: K; params: M[K]; id?: number } }[keyof M & string];

/** The messages of one direction of one panel, declared once as a value. */
export interface MessageSet<M extends MessageMap> {
  readonly types: ReadonlyArray<keyof M & string>;
  /** Never set: carries the map's type. */
  readonly map?: M;
}

/** A message set whose names are exactly the keys of M. */
export function messageSet<M extends MessageMap>(names: { readonly [K in keyof M & string]-?: true }): MessageSet<M> {
  return { types: Object.keys(names) as Array<keyof M & string> };
}

export const REPLY = 'reply';

/** Either direction: the answer to the request numbered `id` of the other side, named `request`. */
export interface ReplyMessage {
  type: typeof REPLY;
  params: { id: number; request: string } & ({ ok: true; result?: unknown } | { ok: false; error: string });
}

export function isReply(value: unknown): value is ReplyMessage {
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== REPLY) return false;
  const params = (value as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return false;
  const { id, request, ok, error } = params as { id?: unknown; request?: unknown; ok?: unknown; error?: unknown };
  return Number.isSafeInteger(id) && typeof request === 'string' && (ok === true || (ok === false && typeof error === 'string'));
}

/** The first message of every webview: it has loaded and listens. */
export interface ReadyMessage {
  type: 'ready';
  params: Record<string, never>;
}

export const READY: ReadyMessage = { type: 'ready', params: {} };

/** Narrows an unknown posted value to a message of map M whose type is one of `types` (untrusted input); an `id`, when
 * present, is a whole number. */
export function isMessage<M extends MessageMap>(value: unknown, set: MessageSet<M>): value is Message<M> {
  if (typeof value !== 'object' || value === null) return false;
  const { type, id } = value as { type?: unknown; id?: unknown };
  return typeof type === 'string' && (set.types as readonly string[]).includes(type) && 'params' in value && (id === undefined || Number.isSafeInteger(id));
}

export function isReady(value: unknown): value is ReadyMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'ready';
}
