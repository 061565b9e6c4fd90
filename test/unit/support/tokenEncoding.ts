// The tests' writer of token arrays, as the trainer writes them (seed_trainer/runlog/tokens.py): base64 of
// little-endian int32 ids and float32 values. The extension only reads them (src/runs/shared/tokenArrays.ts).
import type { TokenArrays } from '../../../src/runs/shared/tokenArrays';
import type { EncodedTokens } from '../../../src/runs/shared/types';

function encodeFourByte(values: ArrayLike<number>, set: (view: DataView, offset: number, value: number) => void): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  for (let i = 0; i < values.length; i += 1) set(view, i * 4, values[i] ?? 0);
  return Buffer.from(view.buffer).toString('base64');
}

export function encodeInt32(values: ArrayLike<number>): string {
  return encodeFourByte(values, (view, offset, value) => view.setInt32(offset, value, true));
}

export function encodeFloat32(values: ArrayLike<number>): string {
  return encodeFourByte(values, (view, offset, value) => view.setFloat32(offset, value, true));
}

/** Decoded arrays back to the stored form (the inverse of decodeTokenArrays). */
export function encodeTokenArrays(arrays: TokenArrays): EncodedTokens {
  const out: EncodedTokens = { count: arrays.count, ids: encodeInt32(arrays.ids), text: arrays.text };
  if (arrays.logp) out.logp = encodeFloat32(arrays.logp);
  if (arrays.teacherLogp && arrays.delta && arrays.gate) {
    out.teacher_logp = encodeFloat32(arrays.teacherLogp);
    out.delta = encodeFloat32(arrays.delta);
    out.gate = encodeFloat32(arrays.gate);
    if (arrays.gateBaseline) out.gate_baseline = encodeFloat32(arrays.gateBaseline);
  }
  return out;
}
