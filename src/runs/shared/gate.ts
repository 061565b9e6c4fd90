// The OPD gate of a token, g = σ(β·Δ) with Δ = ℓ^skill − ℓ^θ (seed_trainer/algo/losses.py opd_gate), written once
// for the extension: the what-if rescorer computes it, the per-turn summaries and the heatmap read its centre, and the
// tests that build records compute theirs with it. No vscode, no Node APIs: the webviews import it.

/** g of a token whose log-prob the skill leaves unchanged (Δ = 0); above it, the teacher finds the token likelier. */
export const GATE_CENTRE = 0.5;

/** σ(β·Δ). β = 0 (the GRPO+OPSD baseline) gives GATE_CENTRE for every Δ. */
export function gateOfDelta(delta: number, beta: number): number {
  return 1 / (1 + Math.exp(-beta * delta));
}

export interface GateArrays {
  delta: Float32Array;
  gate: Float32Array;
}

/** Δ and g of each token, from the teacher's and the student's log-probs of the same tokens. */
export function gateOf(teacherLogp: ArrayLike<number>, studentLogp: ArrayLike<number>, beta: number): GateArrays {
  const n = teacherLogp.length;
  if (studentLogp.length !== n) throw new Error(`gateOf: ${n} teacher and ${studentLogp.length} student log-probs`);
  const delta = new Float32Array(n);
  const gate = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const d = teacherLogp[i]! - studentLogp[i]!;
    delta[i] = d;
    gate[i] = gateOfDelta(d, beta);
  }
  return { delta, gate };
}

export interface GateSummary {
  tokens: number;
  /** Mean g (GATE_CENTRE: the teacher neither raises nor lowers the tokens on average). */
  meanGate: number | null;
  /** Fraction of tokens with g > GATE_CENTRE: the teacher finds them more likely than the student does. */
  fracAboveHalf: number | null;
  meanDelta: number | null;
}

/** Token-weighted summary of the gates of several parts (turns); nulls when there is no token. */
export function summarizeGates(parts: readonly GateArrays[]): GateSummary {
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
      if (g > GATE_CENTRE) above++;
    }
  }
  if (tokens === 0) return { tokens, meanGate: null, fracAboveHalf: null, meanDelta: null };
  return { tokens, meanGate: gateSum / tokens, fracAboveHalf: above / tokens, meanDelta: deltaSum / tokens };
}
