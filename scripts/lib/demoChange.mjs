/**
 * The demo summary's change in held-out success (after − before) with its 95 % interval. When both evaluations
 * played the same tasks in the same order (the demo's do: one seed picks them), the interval is paired task by task,
 * as bench/final_eval.py pairs them: pairing takes out how hard each task is, which an interval between two
 * independent samples counts as noise. Otherwise it is Newcombe's interval for a difference of two proportions.
 * Either holds the evaluation's noise only: one training run says nothing about the spread between training seeds.
 */

import { points } from './againstGrpo.mjs';

/** 95 % Wilson score interval of k successes in n episodes. */
export function wilson(k, n) {
  const z = 1.96;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [centre - half, centre + half];
}

/** after − before with Newcombe's 95 % interval (from the two Wilson intervals); each side is {success, n}. */
export function differenceInterval(after, before) {
  const [pa, pb] = [after.success, before.success];
  const [la, ua] = wilson(pa * after.n, after.n);
  const [lb, ub] = wilson(pb * before.n, before.n);
  const d = pa - pb;
  return [d, d - Math.sqrt((pa - la) ** 2 + (ub - pb) ** 2), d + Math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)];
}

/** Student's t quantile 0.975 for `dof` degrees of freedom: exact below 30 (table), Cornish–Fisher above (error < 1e-4). */
export function t975(dof) {
  const table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
    2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045];
  if (dof <= table.length) return table[dof - 1];
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof ** 2);
}

/** after − before task by task, with a 95 % t-interval over the per-task differences; null unless both evaluations
 * hold the same tasks in the same order (`episodes[i].task.id`) with a boolean `success` each. */
export function pairedByTask(afterEpisodes, beforeEpisodes) {
  if (!Array.isArray(afterEpisodes) || !Array.isArray(beforeEpisodes)) return null;
  if (afterEpisodes.length !== beforeEpisodes.length || afterEpisodes.length < 2) return null;
  const diffs = [];
  for (let i = 0; i < afterEpisodes.length; i++) {
    const [a, b] = [afterEpisodes[i], beforeEpisodes[i]];
    const id = a?.task?.id;
    if (typeof id !== 'string' || id !== b?.task?.id) return null;
    if (typeof a.success !== 'boolean' || typeof b.success !== 'boolean') return null;
    diffs.push(Number(a.success) - Number(b.success));
  }
  const n = diffs.length;
  const mean = diffs.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(diffs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return [mean, mean - half, mean + half];
}

/** One split's line; `after` and `before` are the eval/<split>.json reports ({overall: {success, n}, episodes}). */
export function changeLine(split, after, before) {
  const paired = pairedByTask(after.episodes, before.episodes);
  const [d, lo, hi] = paired ?? differenceInterval(after.overall, before.overall);
  const basis = paired ? `paired over the same ${after.overall.n} tasks` : `${after.overall.n} and ${before.overall.n} episodes`;
  const range = `${points(d)} points, 95 % interval [${points(lo)}, ${points(hi)}] ${basis}`;
  if (lo > 0) return `  ${split}: ${range} — an improvement larger than its interval (this run's evaluation noise only).`;
  if (hi < 0) return `  ${split}: ${range} — worse than before, beyond its interval.`;
  return `  ${split}: ${range} — inside the evaluation's noise: this run does not show an improvement.`;
}
