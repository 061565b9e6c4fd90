// Per-turn and per-trajectory summaries of the per-token arrays: mean gate, fraction of tokens with g > ½, mean Δ,
// mean log-probs. No vscode, no Node APIs (webviews use it).
import { summarizeGates } from '../../runs/shared/gate';
import { decodeTokenArrays, type TokenArrays } from '../../runs/shared/tokenArrays';
import type { Trajectory, TrajectoryStep } from '../../runs/shared/types';

export interface TurnStats {
  /** Response tokens recorded for the turn (0 when the step has no token arrays). */
  tokens: number;
  /** Whether the turn has teacher arrays (a heatmap of g). */
  teacher: boolean;
  meanGate: number | null;
  /** Fraction of tokens with g > 0.5. */
  fracGateAboveHalf: number | null;
  meanDelta: number | null;
  meanTeacherLogp: number | null;
  meanLogp: number | null;
}

function mean(values: Float32Array | undefined): number | null {
  if (!values || values.length === 0) return null;
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += values[i]!;
  return sum / values.length;
}

export function statsOfArrays(arrays: TokenArrays | undefined): TurnStats {
  if (!arrays) {
    return { tokens: 0, teacher: false, meanGate: null, fracGateAboveHalf: null, meanDelta: null, meanTeacherLogp: null, meanLogp: null };
  }
  // The teacher arrays come together (the reader checks it), so a step with a gate has its Δ.
  const gates = arrays.gate && arrays.delta ? summarizeGates([{ gate: arrays.gate, delta: arrays.delta }]) : undefined;
  return {
    tokens: arrays.count,
    teacher: arrays.gate !== undefined,
    meanGate: gates?.meanGate ?? null,
    fracGateAboveHalf: gates?.fracAboveHalf ?? null,
    meanDelta: gates?.meanDelta ?? null,
    meanTeacherLogp: mean(arrays.teacherLogp),
    meanLogp: mean(arrays.logp),
  };
}

/** Decoded arrays of a step, or undefined (no arrays, or arrays that do not decode — the reader has checked them). */
export function decodeStepTokens(step: TrajectoryStep): TokenArrays | undefined {
  if (!step.tokens) return undefined;
  try {
    return decodeTokenArrays(step.tokens);
  } catch {
    return undefined;
  }
}

export function stepStats(step: TrajectoryStep): TurnStats {
  return statsOfArrays(decodeStepTokens(step));
}

/** Token-weighted summary over turns (as the trainer's gate metrics weigh tokens). */
export function combineStats(turns: readonly TurnStats[]): TurnStats {
  let tokens = 0;
  let teacherTokens = 0;
  let logpTokens = 0;
  const sums = { gate: 0, above: 0, delta: 0, teacherLogp: 0, logp: 0 };
  for (const turn of turns) {
    tokens += turn.tokens;
    if (turn.teacher && turn.tokens > 0) {
      teacherTokens += turn.tokens;
      sums.gate += (turn.meanGate ?? 0) * turn.tokens;
      sums.above += (turn.fracGateAboveHalf ?? 0) * turn.tokens;
      sums.delta += (turn.meanDelta ?? 0) * turn.tokens;
      sums.teacherLogp += (turn.meanTeacherLogp ?? 0) * turn.tokens;
    }
    if (turn.meanLogp !== null && turn.tokens > 0) {
      logpTokens += turn.tokens;
      sums.logp += turn.meanLogp * turn.tokens;
    }
  }
  const per = (sum: number, n: number) => (n > 0 ? sum / n : null);
  return {
    tokens,
    teacher: teacherTokens > 0,
    meanGate: per(sums.gate, teacherTokens),
    fracGateAboveHalf: per(sums.above, teacherTokens),
    meanDelta: per(sums.delta, teacherTokens),
    meanTeacherLogp: per(sums.teacherLogp, teacherTokens),
    meanLogp: per(sums.logp, logpTokens),
  };
}

export function trajectoryStats(trajectory: Trajectory): { turns: TurnStats[]; total: TurnStats } {
  const turns = trajectory.steps.map(stepStats);
  return { turns, total: combineStats(turns) };
}

/** Mean advantage over the steps that have one (null outside training). */
export function meanAdvantage(trajectory: Trajectory): number | null {
  const values = trajectory.steps.map((s) => s.advantage).filter((a): a is number => typeof a === 'number');
  return values.length > 0 ? values.reduce((x, y) => x + y, 0) / values.length : null;
}
