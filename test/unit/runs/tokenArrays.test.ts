// Token-array encoding: base64 of little-endian int32 / float32, strict decoding, length checks without decoding.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base64Length, decodeBase64, decodeFloat32, decodeInt32, decodeTokenArrays, gateBaselineProblem, tokenArrayProblems } from '../../../src/runs/shared/tokenArrays';
import { encodeFloat32, encodeInt32, encodeTokenArrays } from '../support/tokenEncoding';

test('little-endian layout, the same bytes Python writes', () => {
  assert.equal(encodeInt32([1]), 'AQAAAA==');
  assert.equal(encodeFloat32([1]), 'AACAPw==');
  assert.deepEqual([...decodeInt32('AQAAAA==')], [1]);
  assert.deepEqual([...decodeFloat32('AACAPw==')], [1]);
  assert.equal(encodeInt32([]), '');
  assert.deepEqual([...decodeFloat32('')], []);
});

test('int32 and float32 round trips', () => {
  const ints = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 151643];
  assert.deepEqual([...decodeInt32(encodeInt32(ints))], ints);
  const floats = [0, -0, 1.5, -1e-8, 3.4e38, Infinity, -20.123456789];
  assert.deepEqual([...decodeFloat32(encodeFloat32(floats))], floats.map(Math.fround));
  assert.ok(Number.isNaN(decodeFloat32(encodeFloat32([NaN]))[0]));
});

test('base64 decodes as Node does for every length and refuses malformed text', () => {
  for (let n = 0; n < 40; n += 1) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 73 + n * 11) & 0xff);
    const text = Buffer.from(bytes).toString('base64');
    assert.deepEqual(decodeBase64(text), bytes);
  }
  assert.throws(() => decodeBase64('AAA'), /multiple of 4/);
  assert.throws(() => decodeBase64('AA*A'), /not valid base64 at character 2/);
  assert.throws(() => decodeBase64('A=AA'), /not valid base64/);
  assert.throws(() => decodeBase64('AA==AAAA'), /not valid base64/);
  assert.throws(() => decodeInt32('AAA='), /4-byte items/);
});

test('lengths are checked from the string lengths alone', () => {
  for (let count = 0; count < 9; count += 1) assert.equal(encodeInt32(new Array(count).fill(7)).length, base64Length(count));
  const good = encodeTokenArrays({ count: 2, ids: Int32Array.from([5, 6]), text: ['a', 'b'], logp: Float32Array.from([-0.5, -1]) });
  assert.deepEqual(tokenArrayProblems(good), []);
  assert.deepEqual(tokenArrayProblems({ ...good, logp: encodeFloat32([1]) }).map(([f]) => f), ['logp']);
  assert.deepEqual(tokenArrayProblems({ ...good, text: ['a'] }).map(([f]) => f), ['text']);
  assert.deepEqual(tokenArrayProblems({ ...good, teacher_logp: good.logp, gate: good.logp }).map(([f]) => f), ['delta']);
  assert.throws(() => decodeTokenArrays({ ...good, ids: encodeInt32([1, 2, 3]) }), /^Error: ids: holds 16 base64/);
});

test('decodeTokenArrays returns typed arrays, teacher arrays together or not at all', () => {
  const arrays = {
    count: 3,
    ids: Int32Array.from([10, 20, 30]),
    text: ['<', 'act', '>'],
    logp: Float32Array.from([-0.1, -2, -0.01]),
    teacherLogp: Float32Array.from([-0.2, -0.5, -0.01]),
    delta: Float32Array.from([-0.1, 1.5, 0]),
    gate: Float32Array.from([0.38, 0.999, 0.5]),
  };
  const decoded = decodeTokenArrays(encodeTokenArrays(arrays));
  assert.deepEqual(decoded, arrays);
  const plain = decodeTokenArrays(encodeTokenArrays({ count: 3, ids: arrays.ids, text: arrays.text }));
  assert.equal(plain.logp, undefined);
  assert.equal(plain.gate, undefined);
});

test('gate_baseline: decoded beside the gate, length-checked, finite, never without the gate', () => {
  const arrays = {
    count: 2,
    ids: Int32Array.from([5, 6]),
    text: ['a', 'b'],
    logp: Float32Array.from([-0.5, -1]),
    teacherLogp: Float32Array.from([-0.4, -1.25]),
    delta: Float32Array.from([0.1, -0.25]),
    gate: Float32Array.from([0.625, 0.25]),
    gateBaseline: Float32Array.from([0.5, 0.375]),
  };
  const encoded = encodeTokenArrays(arrays);
  assert.equal(encoded.gate_baseline, encodeFloat32([0.5, 0.375]));
  assert.deepEqual(decodeTokenArrays(encoded), arrays);
  assert.deepEqual(tokenArrayProblems({ ...encoded, gate_baseline: encodeFloat32([0.5]) }).map(([f]) => f), ['gate_baseline']);
  const { teacher_logp: _t, delta: _d, gate: _g, ...withoutGate } = encoded;
  assert.deepEqual(tokenArrayProblems(withoutGate), [['gate_baseline', 'present without gate: what was subtracted from g needs g']]);
  assert.throws(() => decodeTokenArrays(withoutGate), /^Error: gate_baseline: present without gate/);
  // Values: b is ½ or a mean of gates, so NaN and ±Infinity are refused, naming the item.
  assert.equal(gateBaselineProblem(encoded), undefined);
  assert.equal(gateBaselineProblem({ ...encoded, gate_baseline: encodeFloat32([0.5, Infinity]) }), 'item 1 is Infinity, not a finite number');
  assert.throws(() => decodeTokenArrays({ ...encoded, gate_baseline: encodeFloat32([NaN, 0.5]) }), /^Error: gate_baseline: item 0 is NaN, not a finite number/);
  // Right length, right alphabet, one padding character too many: 7 bytes.
  assert.match(gateBaselineProblem({ ...encoded, gate_baseline: 'AAAAAAAAAA==' }) ?? '', /7 bytes is not a whole number of 4-byte items/);
  assert.throws(() => decodeTokenArrays({ ...encoded, gate_baseline: 'AAAAAAAAAA==' }), /^Error: gate_baseline: 7 bytes/);
  assert.equal(gateBaselineProblem({ count: 1, ids: 'AAAAAA==', text: ['a'] }), undefined);
});
