// A group of runs as one line of a dashboard chart (issue 54, "runs grouped by seed"): at each step every run of the
// group reached, the mean of their values and its 95 % t-interval across the runs (runs/shared/runGrouping.ts, the
// runs table's function); its CSV is csv.ts's groupedChartCsv. Steps some run has not reached are left out rather
// than averaged over fewer runs: a mean whose members change from step to step would jump where a seed stops. No DOM,
// no `vscode`.
import { clampedToFraction, tInterval } from '../../runs/shared/runGrouping';

/** A run's series as the dashboard holds it (x non-decreasing; NaN values are gaps). */
export interface StepSeries {
  xs: ArrayLike<number>;
  ys: ArrayLike<number>;
  length: number;
}

export interface GroupedSeries {
  /** The steps every member has a value at, ascending. */
  xs: number[];
  mean: number[];
  /** The 95 % t-interval across the members; undefined for a group of one. */
  low: number[] | undefined;
  high: number[] | undefined;
  /** The members (the same at every step). */
  n: number;
}

/** x → y of a series; a step written twice (a resumed run) counts with its last value, a NaN is no value. */
function valuesByStep(series: StepSeries): Map<number, number> {
  const values = new Map<number, number>();
  for (let i = 0; i < series.length; i += 1) {
    const y = series.ys[i] ?? NaN;
    if (Number.isNaN(y)) values.delete(series.xs[i] ?? NaN);
    else values.set(series.xs[i] ?? NaN, y);
  }
  return values;
}

/**
 * Per step, the mean across `members` and its 95 % t-interval (mean ± t(n − 1) · sd / √n), at the steps all of them
 * have; `fraction`: the interval kept inside [0, 1]. No member: nothing.
 */
export function aggregateSteps(members: readonly StepSeries[], fraction = false): GroupedSeries {
  const n = members.length;
  const maps = members.map(valuesByStep);
  const shared = maps.length === 0 ? [] : [...maps[0]!.keys()].filter((x) => maps.every((m) => m.has(x))).sort((a, b) => a - b);
  const out: GroupedSeries = { xs: shared, mean: [], low: n > 1 ? [] : undefined, high: n > 1 ? [] : undefined, n };
  for (const x of shared) {
    const raw = tInterval(maps.map((m) => m.get(x)!))!;
    const estimate = fraction ? clampedToFraction(raw)! : raw;
    out.mean.push(estimate.mean);
    out.low?.push(estimate.low ?? estimate.mean);
    out.high?.push(estimate.high ?? estimate.mean);
  }
  return out;
}

/** What a group's legend entry says of its line: `mean of 3 seeds, 95 % t-interval; steps all 3 reached` (`both`
 * for two; `evaluations` on the evaluation chart); a group of one, `1 seed (n=1)`. */
export function groupLineText(n: number, steps: number, word: string, evaluation = false): string {
  if (n === 1) return `1 ${word} (n=1)`;
  const all = n === 2 ? 'both' : `all ${n}`;
  const what = evaluation ? 'evaluations' : 'steps';
  return steps === 0 ? `${n} ${word}, no ${what.slice(0, -1)} ${all} reached` : `mean of ${n} ${word}, 95 % t-interval; ${what} ${all} reached`;
}
