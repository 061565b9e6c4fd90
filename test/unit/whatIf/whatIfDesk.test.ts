// What if…'s desk (src/whatIf/core/whatIfDesk.ts): a rescoring is one request whose reply is its result or the
// question; one job at a time; a page that loads while a job runs is told it and can wait for its end; the saved
// results are read once, so a reload does not drop the unsaved ones. The page side: test/webview/whatIfReload.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WhatIfDesk, type WhatIfWork } from '../../../src/whatIf/core/whatIfDesk';
import type { WhatIfReply, WhatIfResultRecord, WhatIfState } from '../../../src/whatIf/shared/whatIfRecord';

const record = (skill: string): WhatIfResultRecord => ({ skill, export: 'exports/step-000001-onnx', path: 'onnxruntime-node', provider: 'cpu', seconds: 1, beta: 5, temperature: 1, steps: [] });

/** A work whose rescorings and exports end when the test says; the saved file holds `saved`. */
function standIn(saved: WhatIfResultRecord[] = []) {
  let results: WhatIfResultRecord[] = [];
  const ends: Array<{ resolve: (value: never) => void; reject: (error: Error) => void }> = [];
  const later = <T>() => new Promise<T>((resolve, reject) => ends.push({ resolve: resolve as (value: never) => void, reject }));
  let reopened = 0;
  const work: WhatIfWork = {
    reopen: () => {
      reopened += 1;
      results = [...saved];
    },
    state: (): WhatIfState => ({ results: [...results] }),
    rescore: (skill) =>
      later<WhatIfReply>().then(() => {
        results.push(record(skill));
        return { kind: 'rescored', state: { results: [...results] } } as const;
      }),
    save: async () => ({ results, file: 'whatif/t.json' }),
    exportCheckpoint: () => later<void>(),
  };
  return { work, ends, reopenedTimes: () => reopened };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a rescoring is one request: its reply is the result; a page loading meanwhile is told it runs, and not after', async () => {
  const { work, ends } = standIn();
  const desk = new WhatIfDesk(work);
  assert.equal(desk.restored(), undefined, 'nothing saved, nothing running: nothing to tell');
  const reply = desk.handlers.whatIf({ skill: 'Open the fridge last.' });
  assert.deepEqual(desk.restored(), { results: [], running: { kind: 'rescore', skill: 'Open the fridge last.', trainer: false } });
  ends[0]!.resolve(undefined as never);
  assert.deepEqual(await reply, { kind: 'rescored', state: { results: [record('Open the fridge last.')] } });
  assert.deepEqual(desk.restored(), { results: [record('Open the fridge last.')] }, 'the unsaved result stays the session’s');
});

test('one job at a time: a second is refused with a sentence until the first has ended', async () => {
  const { work, ends } = standIn();
  const desk = new WhatIfDesk(work);
  const exporting = desk.handlers.whatIfExport({ checkpoint: 'checkpoints/step-000001' });
  await assert.rejects(async () => desk.handlers.whatIf({ skill: 'x' }), /the export of checkpoints\/step-000001 is still running/);
  ends[0]!.resolve(undefined as never);
  await exporting;
  const rescoring = desk.handlers.whatIf({ skill: 'x', useTrainer: true });
  assert.deepEqual(desk.restored()?.running, { kind: 'rescore', skill: 'x', trainer: true });
  ends[1]!.resolve(undefined as never);
  await rescoring;
  assert.equal(desk.restored()?.running, undefined);
});

test('whatIfWait: at once when idle; else the state once the job has ended, or the job’s error', async () => {
  const { work, ends } = standIn([record('saved')]);
  const desk = new WhatIfDesk(work);
  desk.restored();
  assert.deepEqual(await desk.handlers.whatIfWait({}), { results: [record('saved')] });
  const rescoring = desk.handlers.whatIf({ skill: 'y' });
  let waited: WhatIfState | undefined;
  const waiting = Promise.resolve(desk.handlers.whatIfWait({})).then((state) => (waited = state));
  await turn();
  assert.equal(waited, undefined, 'the wait lasts as long as the job');
  ends[0]!.resolve(undefined as never);
  await Promise.all([rescoring, waiting]);
  assert.deepEqual(waited, { results: [record('saved'), record('y')] });
  const failing = desk.handlers.whatIfExport({ checkpoint: 'checkpoints/step-000002' });
  const failedWait = Promise.resolve(desk.handlers.whatIfWait({}));
  ends[1]!.reject(new Error('the export was cancelled'));
  await assert.rejects(Promise.resolve(failing), /cancelled/);
  await assert.rejects(failedWait, /the export was cancelled/);
});

test('the saved results are read at the first ready only: a reload keeps the results not saved yet', async () => {
  const { work, ends, reopenedTimes } = standIn([record('saved')]);
  const desk = new WhatIfDesk(work);
  assert.deepEqual(desk.restored(), { results: [record('saved')] });
  const rescoring = desk.handlers.whatIf({ skill: 'new' });
  ends[0]!.resolve(undefined as never);
  await rescoring;
  assert.deepEqual(desk.restored(), { results: [record('saved'), record('new')] });
  assert.equal(reopenedTimes(), 1);
});

test('what the page sends is not trusted: a skill or checkpoint that is not text is refused before any work', async () => {
  const { work, ends } = standIn();
  const desk = new WhatIfDesk(work);
  await assert.rejects(async () => desk.handlers.whatIf({ skill: 42 as unknown as string }), /no skill given/);
  await assert.rejects(async () => desk.handlers.whatIfExport({ checkpoint: null as unknown as string }), /no checkpoint named/);
  assert.equal(ends.length, 0);
  assert.equal(desk.restored(), undefined);
});
