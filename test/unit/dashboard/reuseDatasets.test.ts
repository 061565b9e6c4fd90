import assert from 'node:assert/strict';
import test from 'node:test';

import { reuseDatasets } from '../../../src/dashboard/shared/reuseDatasets';

type Dataset = { label?: string; data: number[]; borderDash?: number[]; intervals?: number[] };

test('reuseDatasets: a dataset at the same place with the same label keeps its object, refilled exactly', () => {
  const a = { label: 'run a', data: [1, 2], intervals: [0.1, 0.2] } as Dataset;
  const b = { label: 'run b', data: [3] } as Dataset;
  const nextA = { label: 'run a', data: [1, 2, 3], borderDash: [4, 2] } as Dataset;
  const nextB = { label: 'run b', data: [3, 4] } as Dataset;
  const drawn = reuseDatasets([a, b], [nextA, nextB]);
  assert.equal(drawn[0], a);
  assert.equal(drawn[1], b);
  assert.deepEqual(a, { label: 'run a', data: [1, 2, 3], borderDash: [4, 2] }); // intervals gone, dash added
  assert.deepEqual(b, { label: 'run b', data: [3, 4] });
  assert.equal(a.data, nextA.data); // the new points, not a copy
});

test('reuseDatasets: another label, a new place or the same object stays as given', () => {
  const a = { label: 'run a', data: [1] } as Dataset;
  const moved = { label: 'run b', data: [2] } as Dataset;
  const extra = { label: 'run c', data: [3] } as Dataset;
  const drawn = reuseDatasets([a], [moved, extra]);
  assert.equal(drawn[0], moved);
  assert.equal(drawn[1], extra);
  assert.deepEqual(a, { label: 'run a', data: [1] }); // untouched
  assert.deepEqual(reuseDatasets([], []), []);
  assert.equal(reuseDatasets([a], [a])[0], a);
  assert.deepEqual(reuseDatasets([a, moved], [a]), [a]); // fewer datasets: the rest dropped
});
