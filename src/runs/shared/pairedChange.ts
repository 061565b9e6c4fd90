// The change in held-out success between two evaluations (after − before) with its 95 % interval. When both played
// the same tasks in the same order (a train run and its base evaluations do: one seed picks them), the interval is
// paired task by task, as bench/learning/final_eval.py pairs them: pairing takes out how hard each task is, which an interval
// between two independent samples counts as noise. Otherwise it is Newcombe's interval for a difference of two
// proportions. Either holds the evaluation's noise only: one training run says nothing about the spread between
// training seeds. Pure (no Node, no vscode): the extension, the dashboard page and scripts/demo.mjs share it.

export type Interval = [change: number, low: number, high: number];

/** What an evaluation report must hold for a change (eval/<split>.json has more). */
export interface EvalSample {
  overall: { success: number; n: number };
  episodes?: readonly { task?: { id?: unknown }; success?: unknown }[];
}

/** 95 % Wilson score interval of k successes in n episodes. */
export function wilson(k: number, n: number): [number, number] {
  const z = 1.96;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [centre - half, centre + half];
}

/** after − before with Newcombe's 95 % interval (from the two Wilson intervals); each side is {success, n}. */
export function differenceInterval(after: { success: number; n: number }, before: { success: number; n: number }): Interval {
  const [pa, pb] = [after.success, before.success];
  const [la, ua] = wilson(pa * after.n, after.n);
  const [lb, ub] = wilson(pb * before.n, before.n);
  const d = pa - pb;
  return [d, d - Math.sqrt((pa - la) ** 2 + (ub - pb) ** 2), d + Math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)];
}

/** Student's t quantile 0.975 for `dof` degrees of freedom: exact below 30 (table), Cornish–Fisher above (error < 1e-4). */
export function t975(dof: number): number {
  const table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
    2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045];
  if (dof <= table.length) return table[dof - 1] ?? table[0]!;
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof ** 2);
}

/** after − before task by task, with a 95 % t-interval over the per-task differences; null unless both evaluations
 * hold the same tasks in the same order (`episodes[i].task.id`) with a boolean `success` each. */
export function pairedByTask(afterEpisodes: unknown, beforeEpisodes: unknown): Interval | null {
  if (!Array.isArray(afterEpisodes) || !Array.isArray(beforeEpisodes)) return null;
  if (afterEpisodes.length !== beforeEpisodes.length || afterEpisodes.length < 2) return null;
  const diffs: number[] = [];
  for (let i = 0; i < afterEpisodes.length; i++) {
    const a = afterEpisodes[i] as { task?: { id?: unknown }; success?: unknown } | undefined;
    const b = beforeEpisodes[i] as { task?: { id?: unknown }; success?: unknown } | undefined;
    const id = a?.task?.id;
    if (typeof id !== 'string' || id !== b?.task?.id) return null;
    if (typeof a?.success !== 'boolean' || typeof b?.success !== 'boolean') return null;
    diffs.push(Number(a.success) - Number(b.success));
  }
  const n = diffs.length;
  const mean = diffs.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(diffs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return [mean, mean - half, mean + half];
}

export interface SuccessChange {
  before: number;
  after: number;
  change: number;
  low: number;
  high: number;
  /** True when paired task by task (same tasks, same order); false: two independent samples (Newcombe). */
  paired: boolean;
  nAfter: number;
  nBefore: number;
  /** `better` / `worse` when the interval excludes 0, else `noise`. */
  verdict: 'better' | 'worse' | 'noise';
}

/** The change in overall success from `before` to `after` (two eval/<split>.json reports). */
export function successChange(after: EvalSample, before: EvalSample): SuccessChange {
  const paired = pairedByTask(after.episodes, before.episodes);
  const [change, low, high] = paired ?? differenceInterval(after.overall, before.overall);
  return {
    before: before.overall.success,
    after: after.overall.success,
    change,
    low,
    high,
    paired: paired !== null,
    nAfter: after.overall.n,
    nBefore: before.overall.n,
    verdict: low > 0 ? 'better' : high < 0 ? 'worse' : 'noise',
  };
}

/** A difference of proportions in signed percentage points: +7, -5. */
export function points(x: number): string {
  return `${x >= 0 ? '+' : ''}${(100 * x).toFixed(0)}`;
}

/** Whether an interval reaches past ±100 points, which a change in success cannot leave: a paired t-interval over
 * few tasks can (two tasks, one gained and one lost: ±1270 points). */
export function intervalClamped(low: number, high: number): boolean {
  return low < -1 || high > 1;
}

/** An interval of a change in success as printed, `[-6, +14]`: cut at ±100 points (intervalClamped). */
export function intervalPoints(low: number, high: number): string {
  return `[${points(Math.max(-1, low))}, ${points(Math.min(1, high))}]`;
}

/** What a tooltip adds after an interval that was cut; empty otherwise. */
export function clampNote(low: number, high: number): string {
  return intervalClamped(low, high)
    ? ` (cut at ±100 points, which a change in success cannot leave; the t-interval over so few tasks is [${points(low)}, ${points(high)}])`
    : '';
}

/** `+4 pts [−6, +14]`: the change and its interval, short enough for a tree item. */
export function shortChange(change: SuccessChange): string {
  return `${points(change.change)} pts ${intervalPoints(change.low, change.high)}`;
}

/** The words for a change's verdict. */
export function verdictText(change: SuccessChange): string {
  switch (change.verdict) {
    case 'better':
      return "an improvement larger than its interval (this run's evaluation noise only)";
    case 'worse':
      return 'worse than before, beyond its interval';
    default:
      return 'inside the evaluation\'s noise: this run does not show an improvement';
  }
}

const pct = (x: number): string => `${Math.round(100 * x)}%`;

/** The words of one split's before/after, shared by the Runs tree and the dashboard: a label (`valid_seen 48% →
 * 52%`), a short description (`+4 [-6, +14] noise`, points) and a sentence (tooltip). */
export function changeTexts(
  split: string,
  before: { success: number; n: number } | undefined,
  after: { success: number; n: number } | undefined,
  change: SuccessChange | undefined,
): { label: string; description: string; tooltip: string } {
  const label = `${split} ${before ? pct(before.success) : '?'} → ${after ? pct(after.success) : '…'}`;
  if (!change) {
    const description = !before ? 'no base evaluation' : 'no final evaluation yet';
    return { label, description, tooltip: `${split}: ${description}.` };
  }
  // Short enough for the Runs tree at the default sidebar width: the words are in the tooltip.
  const short = change.verdict === 'better' ? 'better' : change.verdict === 'worse' ? 'worse' : 'noise';
  const basis = change.paired ? `paired over the same ${change.nAfter} tasks` : `${change.nAfter} and ${change.nBefore} episodes`;
  return {
    label,
    description: `${points(change.change)} ${intervalPoints(change.low, change.high)} ${short}`,
    tooltip: `${split}: success ${pct(change.before)} before (base policy) → ${pct(change.after)} after; change ${points(change.change)} points, 95 % interval ${intervalPoints(change.low, change.high)}${clampNote(change.low, change.high)} ${basis} — ${verdictText(change)}.`,
  };
}
