// Which tokens' gates changed side between two scorings (the recorded gates and a what-if rescoring): the viewer's
// ↑ and ↓ flips. The gate itself and its summaries are src/runs/shared/gate.ts.
import { GATE_CENTRE } from '../../runs/shared/gate';

type Flip = -1 | 0 | 1;

/** Within this distance of 0.5 a gate's side is numerical noise: PyTorch and onnxruntime agree to ~1e-5 in log-prob,
 * and a peaked policy gives many tokens Δ ≈ 0 exactly (both log-probs ≈ 0), whose g lands either side of 0.5 by 1e-7
 * depending on the scorer. Such tokens are not counted as flips. */
export const FLIP_MARGIN = 1e-4;

/** Per token: +1 where the teacher went from finding it less likely (g < 0.5) to more likely (g > 0.5), −1 for the
 * reverse, 0 where the side did not change or either gate is within FLIP_MARGIN of 0.5. */
export function gateFlips(before: ArrayLike<number>, after: ArrayLike<number>, margin = FLIP_MARGIN): Int8Array {
  const n = Math.min(before.length, after.length);
  const flips = new Int8Array(n);
  const side = (g: number): Flip => (g > GATE_CENTRE + margin ? 1 : g < GATE_CENTRE - margin ? -1 : 0);
  for (let i = 0; i < n; i++) {
    const was = side(before[i]!);
    const is = side(after[i]!);
    flips[i] = was !== 0 && is !== 0 && was !== is ? is : 0;
  }
  return flips;
}
