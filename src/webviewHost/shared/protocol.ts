// Typed host↔webview messages. Each panel declares its two message sets once, as values, in its feature's
// src/<feature>/shared/protocol.ts, which both bundles import (webview/ imports src/, never the reverse):
//   export const TO_DASHBOARD = messageSet<{ metrics: { rows: MetricRow[] } }>({ metrics: true });   host → webview
//   export const FROM_DASHBOARD = messageSet<{ overlay: { runs: string[] } }>({ overlay: true });    webview → host
// The value lists every message of its map (the compiler refuses a missing or extra name), and each side narrows
// incoming messages with it. A message is `{ type, params }` with params typed by type; a webview message may carry
// a `seq`, which the host answers with a `hostReply` once its handler is done (ok, or the handler's error), so the
// page learns of a failure. Every webview sends `ready` first; the host queues what it sends until then
// (src/webviewHost/webviewChannel.ts, used by every panel through src/webviewHost/panelBase.ts; webview/shared/hostApi.ts).

export type MessageMap = Record<string, unknown>;

export type Message<M extends MessageMap> = { [K in keyof M & string]: { type: K; params: M[K]; seq?: number } }[keyof M & string];

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

export const HOST_REPLY = 'hostReply';

/** host → webview: the outcome of the webview message numbered `seq`. */
export interface HostReply {
  type: typeof HOST_REPLY;
  params: { seq: number; request: string; ok: boolean; error?: string };
}

export function isHostReply(value: unknown): value is HostReply {
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== HOST_REPLY) return false;
  const params = (value as { params?: unknown }).params;
  return typeof params === 'object' && params !== null && typeof (params as { seq?: unknown }).seq === 'number';
}

/** The first message of every webview: it has loaded and listens. */
export interface ReadyMessage {
  type: 'ready';
  params: Record<string, never>;
}

export const READY: ReadyMessage = { type: 'ready', params: {} };

/** Narrows an unknown posted value to a message of map M whose type is one of `types` (untrusted input). */
export function isMessage<M extends MessageMap>(value: unknown, set: MessageSet<M>): value is Message<M> {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && (set.types as readonly string[]).includes(type) && 'params' in value;
}

export function isReady(value: unknown): value is ReadyMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'ready';
}
