// Issue 51 item 3: requests with replies between a panel's host and its page (src/webviewHost/shared/messageEndpoint.ts,
// the code both sides run). Two endpoints joined by a stand-in of postMessage (asynchronous, structured-cloned like
// the real one): a request resolves with its handler's result, an error reply rejects it naming the request, closing
// rejects every promise still waiting on either side, and replies never go to another request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageEndpoint, RequestError } from '../../../src/webviewHost/shared/messageEndpoint';
import { messageSet, type Request } from '../../../src/webviewHost/shared/protocol';

type ToHost = {
  square: Request<{ n: number }, number>;
  slow: Request<{ label: string }, string>;
  log: { text: string };
};
type ToPage = {
  ask: Request<{ question: string }, 'yes' | 'no'>;
  show: { text: string };
};
const TO_HOST = messageSet<ToHost>({ square: true, slow: true, log: true });
const TO_PAGE = messageSet<ToPage>({ ask: true, show: true });

/** A deferred value: settled by the test, so it decides the order in which handlers finish. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A host and a page endpoint joined like a webview: each post arrives on a later turn, as a copy. Every message on
 * the wire is kept, with its direction. */
function joined() {
  const wire: Array<{ to: 'host' | 'page'; message: { type: string; params: Record<string, unknown>; id?: number } }> = [];
  const failures: string[] = [];
  let hostOpen = true;
  const deliver = (to: 'host' | 'page', message: unknown) => {
    const copy = structuredClone(message) as (typeof wire)[number]['message'];
    wire.push({ to, message: copy });
    setImmediate(() => {
      if (to === 'page') page.receive(copy);
      else if (hostOpen) host.receive(copy);
    });
  };
  const host: MessageEndpoint<ToPage, ToHost> = new MessageEndpoint<ToPage, ToHost>(TO_HOST, {
    post: (message) => deliver('page', message),
    failed: (type, message) => failures.push(`host ${type}: ${message}`),
  });
  const page: MessageEndpoint<ToHost, ToPage> = new MessageEndpoint<ToHost, ToPage>(TO_PAGE, {
    post: (message) => deliver('host', message),
    failed: (type, message) => failures.push(`page ${type}: ${message}`),
  });
  /** Closes the host as a disposed panel does: it answers what it can, then hears nothing more. */
  const closeHost = () => {
    host.close();
    hostOpen = false;
  };
  return { host, page, wire, failures, closeHost };
}

/** One turn of the event loop: whatever was already delivered and its promises have run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Waits, turn by turn, for what an assertion needs (never for a fixed time: a loaded machine is slower). */
async function until(what: string, condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 1000) assert.fail(`never: ${what}`);
    await turn();
  }
}

test('a request resolves with the reply its handler returned; the reply carries the request’s id and name', async () => {
  const { host, page, wire } = joined();
  host.on('square', ({ n }) => n * n);
  assert.equal(await page.request('square', { n: 7 }), 49);
  const [sent, reply] = wire;
  assert.deepEqual(sent, { to: 'host', message: { type: 'square', params: { n: 7 }, id: 1 } });
  assert.deepEqual(reply, { to: 'page', message: { type: 'reply', params: { id: 1, request: 'square', ok: true, result: 49 } } });
});

test('an error reply rejects the request with the handler’s message, named by the request', async () => {
  const { host, page, failures, wire } = joined();
  host.on('square', async ({ n }) => {
    if (n < 0) throw new Error(`${n} is negative`);
    return n * n;
  });
  const error = await page.request('square', { n: -2 }).then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof RequestError);
  assert.equal(error.request, 'square');
  assert.equal(error.message, '-2 is negative');
  assert.deepEqual(failures, ['host square: -2 is negative']);
  assert.deepEqual(wire.at(-1)?.message.params, { id: 1, request: 'square', ok: false, error: '-2 is negative' });
  // A request nothing handles is answered too, with an error that says so.
  await assert.rejects(page.request('slow', { label: 'x' }), { name: 'RequestError', message: 'nothing handles slow' });
});

test('two requests in flight each get their own reply, whichever finishes first, in both directions at once', async () => {
  const { host, page, wire } = joined();
  const gates = new Map([
    ['first', deferred<void>()],
    ['second', deferred<void>()],
  ]);
  host.on('slow', async ({ label }) => {
    await gates.get(label)!.promise;
    return `${label} done`;
  });
  page.on('ask', ({ question }) => (question === 'ok?' ? 'yes' : 'no'));
  const first = page.request('slow', { label: 'first' });
  const second = page.request('slow', { label: 'second' });
  // The host asks the page meanwhile: its id 1 is its own, not the page's first request's.
  const asked = host.request('ask', { question: 'ok?' }, (v): v is 'yes' | 'no' => v === 'yes' || v === 'no');
  assert.equal(await asked, 'yes');
  gates.get('second')!.resolve();
  assert.equal(await second, 'second done');
  // While `first` (id 1) still waits, replies that are not its own are ignored: an id the page never sent, its id 1
  // under another request's name (the host's `ask` was id 1 too), and `second`'s again (answered already).
  page.receive({ type: 'reply', params: { id: 99, request: 'slow', ok: true, result: 'unknown id' } });
  page.receive({ type: 'reply', params: { id: 1, request: 'ask', ok: true, result: 'another request' } });
  page.receive({ type: 'reply', params: { id: 2, request: 'slow', ok: false, error: 'late' } });
  gates.get('first')!.resolve();
  assert.equal(await first, 'first done');
  assert.equal(await second, 'second done');
  const ids = wire.filter((w) => w.message.type !== 'reply').map((w) => `${w.to}:${w.message.type}#${w.message.id}`);
  assert.deepEqual(ids, ['host:slow#1', 'host:slow#2', 'page:ask#1']);
});

test('closing the panel rejects every pending promise with a clear message, on both sides', async () => {
  const { host, page, wire, closeHost } = joined();
  const never = deferred<string>();
  const running = new Set<string>();
  host.on('slow', () => {
    running.add('slow');
    return never.promise;
  });
  page.on('ask', () => {
    running.add('ask');
    return new Promise(() => undefined); // the user never answers
  });
  const pageWaits = page.request('slow', { label: 'rescoring' });
  const hostWaits = host.request('ask', { question: 'trainer?' }, (v): v is 'yes' | 'no' => v === 'yes' || v === 'no');
  await until('both requests are being handled', () => running.size === 2);
  closeHost();
  await Promise.all([
    assert.rejects(pageWaits, { name: 'RequestError', message: 'the panel was closed before slow was answered' }),
    assert.rejects(hostWaits, { name: 'RequestError', message: 'the panel was closed before ask was answered' }),
  ]);
  // The handler that finishes afterwards posts nothing more.
  const posted = wire.length;
  never.resolve('too late');
  await turn();
  assert.equal(wire.length, posted);
});

test('a reloaded page: the host rejects what it asked the old page and does not answer the old page’s requests', async () => {
  const { host, page, wire } = joined();
  const gate = deferred<void>();
  let started = false;
  host.on('slow', async () => {
    started = true;
    await gate.promise;
    return 'for the old page';
  });
  void page.request('slow', { label: 'old' });
  const asked = host.request('ask', { question: 'still there?' }, (v): v is 'yes' | 'no' => v === 'yes' || v === 'no');
  await until('the old page’s request is being handled', () => started);
  host.restart();
  await assert.rejects(asked, { message: 'the page was reloaded before ask was answered' });
  gate.resolve();
  await turn();
  assert.deepEqual(
    wire.filter((w) => w.to === 'page' && w.message.type === 'reply'),
    [],
    'the new page, whose ids start again at 1, gets no reply meant for the old one',
  );
});

test('untrusted input: a reply the check refuses rejects; an unknown message is refused; a failed post is told, not answered', async () => {
  const { host, page, failures, wire } = joined();
  page.on('ask', () => 'maybe' as 'yes'); // a page that lies
  await assert.rejects(
    host.request('ask', { question: '?' }, (v): v is 'yes' | 'no' => v === 'yes' || v === 'no'),
    { message: 'ask was answered with an unexpected reply' },
  );
  assert.equal(host.receive({ type: 'rmrf', params: {} }), false);
  assert.equal(host.receive({ type: 'square', params: { n: 2 }, id: 'one' }), false, 'an id must be a whole number');
  assert.equal(host.receive({ type: 'reply', params: { id: 1, request: 'ask', ok: false } }), false, 'an error reply without its error');
  host.on('log', () => {
    throw new Error('disk full');
  });
  const before = wire.length;
  page.post('log', { text: 'hello' });
  await until('the handler has failed', () => failures.length > 0);
  await turn();
  assert.deepEqual(failures, ['host log: disk full']);
  assert.equal(wire.length, before + 1, 'a post is not answered');
});
