// New Experiment's name box (issue 41 item 5): any name is accepted; the box says the file it will be saved as.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { savedAsHint } from '../../../src/experiments/core/templates';

test('the name box names the file, for a plain name and for one with spaces', () => {
  assert.equal(savedAsHint('demo'), 'Saved as demo.seed.yaml');
  assert.equal(savedAsHint('my first run'), 'Saved as my-first-run.seed.yaml (experiment name my-first-run)');
  assert.equal(savedAsHint('demo.seed.yaml'), 'Saved as demo.seed.yaml (experiment name demo)');
});
