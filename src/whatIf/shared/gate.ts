// Δ = ℓ^skill − ℓ^θ and g = σ(β·Δ) per token (seed_trainer/algo/losses.py opd_gate), and the gate summaries the
// viewer shows per turn and per trajectory, before and after a skill edit.

export interface GateArrays {
  delta: Float32Array;
  gate: Float32Array;
}

export function gateOf(teacherLogp: ArrayLike<number>, studentLogp: ArrayLike<number>, beta: number): GateArrays {
  const n = teacherLogp.length;
  if (studentLogp.length !== n) throw new Error(`gateOf: ${n} teacher and ${studentLogp.length} student log-probs`);
  const delta = new Float32Array(n);
  const gate = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const d = teacherLogp[i]! - studentLogp[i]!;
    delta[i] = d;
    gate[i] = 1 / (1 + Math.exp(-beta * d));
  }
  return { delta, gate };
}

export interface GateSummary {
  tokens: number;
  /** Mean g (0.5 = the teacher neither raises nor lowers the token). */
  meanGate: number | null;
  /** Fraction of tokens with g > 0.5: the teacher finds them more likely than the student does. */
  fracAboveHalf: number | null;
  meanDelta: number | null;
}

export function summarize(parts: readonly GateArrays[]): GateSummary {
  let tokens = 0;
  let gateSum = 0;
  let above = 0;
  let deltaSum = 0;
  for (const { gate, delta } of parts) {
    for (let i = 0; i < gate.length; i++) {
      tokens++;
      const g = gate[i]!;
      gateSum += g;
      deltaSum += delta[i]!;
      if (g > 0.5) above++;
    }
  }
  if (tokens === 0) return { tokens, meanGate: null, fracAboveHalf: null, meanDelta: null };
  return { tokens, meanGate: gateSum / tokens, fracAboveHalf: above / tokens, meanDelta: deltaSum / tokens };
}

export type Flip = -1 | 0 | 1;

/** Within this distance of 0.5 a gate's side is numerical noise: PyTorch and onnxruntime agree to ~1e-5 in log-prob,
 * and a peaked policy gives many tokens Δ ≈ 0 exactly (both log-probs ≈ 0), whose g lands either side of 0.5 by 1e-7
 * depending on the scorer. Such tokens are not counted as flips. */
export const FLIP_MARGIN = 1e-4;

/** Per token: +1 where the teacher went from finding it less likely (g < 0.5) to more likely (g > 0.5), −1 for the
 * reverse, 0 where the side did not change or either gate is within FLIP_MARGIN of 0.5. */
export function gateFlips(before: ArrayLike<number>, after: ArrayLike<number>, margin = FLIP_MARGIN): Int8Array {
  const n = Math.min(before.length, after.length);
  const flips = new Int8Array(n);
  const side = (g: number): Flip => (g > 0.5 + margin ? 1 : g < 0.5 - margin ? -1 : 0);
  for (let i = 0; i < n; i++) {
    const was = side(before[i]!);
    const is = side(after[i]!);
    flips[i] = was !== 0 && is !== 0 && was !== is ? is : 0;
  }
  return flips;
}
