// Per-token arrays of a trajectory step: base64 (RFC 4648, padded) of little-endian int32 (ids) and float32 (logp,
// teacher_logp, delta, gate, gate_baseline); `text` is a plain list of each token's text. The trainer writes them and
// the extension only reads them (the tests' writer is test/unit/support/tokenEncoding.ts). No Buffer and no vscode:
// this module also runs in webviews.
import type { EncodedTokens } from './types';

const FLOAT_FIELDS = ['logp', 'teacher_logp', 'delta', 'gate', 'gate_baseline'] as const;
const TEACHER_FIELDS = ['teacher_logp', 'delta', 'gate'] as const;
/** What the run's OPD estimator subtracted from g (½ or b(s)); recorded only beside `gate`. */
export const BASELINE_FIELD = 'gate_baseline';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i += 1) LOOKUP[ALPHABET.charCodeAt(i)] = i;

/** Characters of the base64 text of `count` four-byte items (with padding). */
export function base64Length(count: number): number {
  return 4 * Math.ceil((4 * count) / 3);
}

/** Strict base64 → bytes: throws on a character outside the alphabet, a bad length or misplaced padding. */
export function decodeBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new Error(`base64 length ${text.length} is not a multiple of 4`);
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  const sextet = (i: number): number => {
    const code = text.charCodeAt(i);
    const value = code < 128 ? (LOOKUP[code] ?? -1) : -1;
    if (value < 0) throw new Error(`not valid base64 at character ${i}`);
    return value;
  };
  // Every quantum but a padded last one: four characters, three bytes (the viewer decodes ~100 KB per turn).
  const whole = padding > 0 ? text.length - 4 : text.length;
  let o = 0;
  for (let i = 0; i < whole; i += 4) {
    const chunk = (sextet(i) << 18) | (sextet(i + 1) << 12) | (sextet(i + 2) << 6) | sextet(i + 3);
    out[o] = chunk >> 16;
    out[o + 1] = chunk >> 8;
    out[o + 2] = chunk;
    o += 3;
  }
  if (padding > 0) {
    const i = whole;
    const chunk = (sextet(i) << 18) | (sextet(i + 1) << 12) | (padding === 1 ? sextet(i + 2) << 6 : 0);
    out[o++] = chunk >> 16;
    if (padding === 1) out[o] = chunk >> 8;
  }
  return out;
}

function fourByteView(text: string): DataView {
  const bytes = decodeBase64(text);
  if (bytes.length % 4 !== 0) throw new Error(`${bytes.length} bytes is not a whole number of 4-byte items`);
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Whether this machine stores numbers little-endian, as the arrays are written: then the decoded bytes are the
 * array (a view on them), with no copy item by item. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function decodeInt32(text: string): Int32Array {
  const view = fourByteView(text);
  if (LITTLE_ENDIAN) return new Int32Array(view.buffer, view.byteOffset, view.byteLength / 4);
  const out = new Int32Array(view.byteLength / 4);
  for (let i = 0; i < out.length; i += 1) out[i] = view.getInt32(i * 4, true);
  return out;
}

export function decodeFloat32(text: string): Float32Array {
  const view = fourByteView(text);
  if (LITTLE_ENDIAN) return new Float32Array(view.buffer, view.byteOffset, view.byteLength / 4);
  const out = new Float32Array(view.byteLength / 4);
  for (let i = 0; i < out.length; i += 1) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** The decoded arrays of one step; the teacher arrays are all present or all undefined. Written by hand, unlike the
 * record types: it is no record of the run directory but what the reader makes of `EncodedTokens` (typed arrays,
 * camelCase). */
export interface TokenArrays {
  count: number;
  ids: Int32Array;
  text: string[];
  logp?: Float32Array;
  teacherLogp?: Float32Array;
  delta?: Float32Array;
  gate?: Float32Array;
  /** b: what the update's OPD estimator subtracted from g at each token (½ or b(s)); only beside `gate`. */
  gateBaseline?: Float32Array;
}

/** [field, problem] for every array whose length disagrees with `count` — from string lengths, without decoding. */
export function tokenArrayProblems(tokens: Partial<Record<keyof EncodedTokens, unknown>>): [string, string][] {
  const count = tokens.count;
  if (typeof count !== 'number' || !Number.isInteger(count)) return [['count', 'missing or not an integer']];
  const problems: [string, string][] = [];
  const want = base64Length(count);
  for (const name of ['ids', ...FLOAT_FIELDS] as const) {
    const value = tokens[name];
    if (typeof value === 'string' && value.length !== want) {
      problems.push([name, `holds ${value.length} base64 characters (~${(value.length * 3) / 16} items), expected ${want} for count ${count}`]);
    }
  }
  if (Array.isArray(tokens.text) && tokens.text.length !== count) {
    problems.push(['text', `holds ${tokens.text.length} pieces, expected count ${count}`]);
  }
  const present = TEACHER_FIELDS.filter((name) => name in tokens);
  if (present.length > 0 && present.length !== TEACHER_FIELDS.length) {
    const missing = TEACHER_FIELDS.find((name) => !(name in tokens));
    problems.push([missing ?? 'teacher_logp', `absent while ${present.join(', ')} present: teacher arrays come together`]);
  }
  if (BASELINE_FIELD in tokens && !('gate' in tokens)) {
    problems.push([BASELINE_FIELD, 'present without gate: what was subtracted from g needs g']);
  }
  return problems;
}

/** The first non-finite value of a decoded array, as a problem; undefined when all are finite. */
function nonFiniteProblem(values: Float32Array): string | undefined {
  const index = values.findIndex((value) => !Number.isFinite(value));
  return index < 0 ? undefined : `item ${index} is ${values[index]}, not a finite number`;
}

/**
 * `gate_baseline` decoded (undefined when the step has none), or the problem that stops it: bad base64 or a non-finite
 * value (b is ½ or a mean of gates, never NaN or infinite). The length is `tokenArrayProblems`' to check.
 */
export function gateBaselineProblem(tokens: Partial<Record<keyof EncodedTokens, unknown>>): string | undefined {
  const text = tokens.gate_baseline;
  if (typeof text !== 'string') return undefined;
  let values: Float32Array;
  try {
    values = decodeFloat32(text);
  } catch (error) {
    return (error as Error).message;
  }
  return nonFiniteProblem(values);
}

/** Decodes `steps[i].tokens`; throws an Error naming the inconsistent array. */
export function decodeTokenArrays(tokens: EncodedTokens): TokenArrays {
  const problem = tokenArrayProblems(tokens)[0];
  if (problem) throw new Error(`${problem[0]}: ${problem[1]}`);
  const decode = <A>(name: string, fn: (text: string) => A, text: string): A => {
    try {
      return fn(text);
    } catch (error) {
      throw new Error(`${name}: ${(error as Error).message}`);
    }
  };
  const out: TokenArrays = { count: tokens.count, ids: decode('ids', decodeInt32, tokens.ids), text: tokens.text };
  if (tokens.logp !== undefined) out.logp = decode('logp', decodeFloat32, tokens.logp);
  if (tokens.teacher_logp !== undefined && tokens.delta !== undefined && tokens.gate !== undefined) {
    out.teacherLogp = decode('teacher_logp', decodeFloat32, tokens.teacher_logp);
    out.delta = decode('delta', decodeFloat32, tokens.delta);
    out.gate = decode('gate', decodeFloat32, tokens.gate);
    if (tokens.gate_baseline !== undefined) {
      const baseline = decode(BASELINE_FIELD, decodeFloat32, tokens.gate_baseline);
      const problem = nonFiniteProblem(baseline);
      if (problem) throw new Error(`${BASELINE_FIELD}: ${problem}`);
      out.gateBaseline = baseline;
    }
  }
  return out;
}
