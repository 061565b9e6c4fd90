// The viewer's model of one trajectory: every step's token arrays decoded once, per-turn and overall summaries.
import type { TokenArrays } from '../../src/runs/shared/tokenArrays';
import type { Trajectory, TrajectoryStep } from '../../src/runs/shared/types';
import { fittedScale, type HeatMode, type HeatScale } from '../../src/trajectory/shared/colorScale';
import { withCentredBaseline, type OpdEstimator } from '../../src/runs/shared/opdEstimator';
import { strongestDisagreements, type TokenRef } from '../../src/trajectory/shared/disagreement';
import { sharedRange } from '../../src/trajectory/shared/sparklineData';
import { modeValues } from './heatmap';
import { combineStats, decodeStepTokens, statsOfArrays, type TurnStats } from '../../src/trajectory/shared/turnStats';

interface TurnModel {
  step: TrajectoryStep;
  arrays: TokenArrays | undefined;
  stats: TurnStats;
  /** Characters of the generated text (token pieces joined, or the response when there are no arrays). */
  chars: number;
}

export interface TrajectoryModel {
  trajectory: Trajectory;
  turns: TurnModel[];
  total: TurnStats;
  /** Modes that have data in at least one turn. */
  modes: HeatMode[];
  /** A mode's scale fitted to this trajectory's values (undefined for a mode without data). Computed on first use, as
   * the disagreements: sorting every value is work the first frame need not wait for beyond its own mode. */
  fitted(mode: HeatMode): HeatScale | undefined;
  /** Tokens by |Δ|, strongest first (empty without a teacher pass). */
  readonly disagreements: TokenRef[];
  /** Whether some token has a Δ to disagree on (disagreements is not empty), known without sorting them. */
  hasDisagreements: boolean;
  /** The largest |Δ| of the trajectory: the half-range every turn's sparkline shares. */
  deltaRange: number;
  /** The run's OPD estimator (run.json config), when known: names what g − b is. */
  estimator: OpdEstimator | undefined;
}

export function buildModel(trajectory: Trajectory, estimator?: OpdEstimator): TrajectoryModel {
  const turns = trajectory.steps.map((step): TurnModel => {
    const arrays = withCentredBaseline(decodeStepTokens(step), estimator);
    let chars = 0;
    if (arrays) for (const piece of arrays.text) chars += piece.length;
    else chars = step.response.length;
    return { step, arrays, stats: statsOfArrays(arrays), chars };
  });
  const has = (pick: (a: TokenArrays) => unknown) => turns.some((turn) => turn.arrays !== undefined && pick(turn.arrays) !== undefined);
  const modes: HeatMode[] = [];
  if (has((a) => a.gate)) modes.push('gate', 'delta', 'teacher');
  if (has((a) => a.logp)) modes.push('student');
  if (has((a) => a.gateBaseline)) modes.push('weight');
  const fitted = new Map<HeatMode, HeatScale>();
  const deltas = turns.map((turn) => turn.arrays?.delta);
  let disagreements: TokenRef[] | undefined;
  return {
    trajectory,
    turns,
    total: combineStats(turns.map((t) => t.stats)),
    modes,
    fitted(mode) {
      if (!modes.includes(mode)) return undefined;
      let scale = fitted.get(mode);
      if (!scale) {
        scale = fittedScale(mode, turns.map((turn) => (turn.arrays ? modeValues(turn.arrays, mode) : undefined)));
        fitted.set(mode, scale);
      }
      return scale;
    },
    get disagreements() {
      disagreements ??= strongestDisagreements(deltas);
      return disagreements;
    },
    hasDisagreements: deltas.some((values) => values?.some((delta) => Number.isFinite(delta) && delta !== 0) ?? false),
    deltaRange: sharedRange(deltas),
    estimator,
  };
}
