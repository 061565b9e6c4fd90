// Runs grouped (issue 54, as W&B groups them), one rule for the runs table and the dashboard: by one config key, or
// "all but seed" — the runs whose flattened config is the same but for the seed and the keys that name the run, the
// seeds of one arm — and the 95 % Student t-interval across a group's runs (n − 1 degrees of freedom): the spread
// between seeds, which a run's own interval over its episodes does not see. No DOM, no `vscode`.
import { t975 } from './pairedChange';

/** The built-in grouping: the same config but for the seed (and the keys that name the run). */
export const ALL_BUT_SEED = 'all-but-seed';

/** Keys "all but seed" leaves out: the seed, and those that name the run rather than set it up. */
const NAMES_THE_RUN = /^(seed|name|runs_dir|description)$|(^|\.)(path|run_dir)$/;

/** What grouping needs of a run: its flattened config (`rollout.group_size` → `"8"`). */
export interface Groupable {
  config: Record<string, string>;
}

export interface Group<T extends Groupable> {
  /** Stable across refreshes (a page keeps which groups are expanded by it). */
  id: string;
  /** The group's values: `algorithm=seed, opd.estimator=expected` (the keys that differ between groups). */
  label: string;
  /** The runs of the group (after a filter: those that match). */
  rows: T[];
  /** How many runs the group has before a filter. */
  total: number;
}

/** What a "Group by" control offers: nothing, all but seed, then every config key (values as `config:<key>`). */
export function groupingOptions(rows: readonly Groupable[]): { value: string; label: string }[] {
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row.config)))].sort();
  return [{ value: '', label: 'nothing' }, { value: ALL_BUT_SEED, label: 'all but seed' }, ...keys.map((key) => ({ value: `config:${key}`, label: key }))];
}

/** A kept grouping as it applies to these rows: a config key no run has any more groups nothing. */
export function groupingOf(stored: unknown, rows: readonly Groupable[]): string {
  if (typeof stored !== 'string' || stored === '') return '';
  if (stored === ALL_BUT_SEED) return stored;
  return stored.startsWith('config:') && rows.some((row) => row.config[stored.slice(7)] !== undefined) ? stored : '';
}

/** FNV-1a, 32 bits, base 36: a short stable id for a long config. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

const MISSING = '—';

export const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** The runs grouped: '' none (an empty list), ALL_BUT_SEED, or `config:<key>`. Groups are in label order, runs in
 * the order given. */
export function groupRuns<T extends Groupable>(rows: readonly T[], grouping: string): Group<T>[] {
  if (grouping === '') return [];
  const byId = new Map<string, { config: Record<string, string>; rows: T[] }>();
  for (const row of rows) {
    let id: string;
    let config: Record<string, string>;
    if (grouping === ALL_BUT_SEED) {
      const kept = Object.entries(row.config).filter(([key]) => !NAMES_THE_RUN.test(key)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      config = Object.fromEntries(kept);
      id = `${grouping}#${hash(JSON.stringify(kept))}`;
    } else {
      const key = grouping.slice(7);
      const value = row.config[key];
      config = value === undefined ? {} : { [key]: value };
      id = `${grouping}=${value ?? '\u0000'}`;
    }
    const group = byId.get(id) ?? { config, rows: [] };
    group.rows.push(row);
    byId.set(id, group);
  }
  const configs = [...byId.values()].map((g) => g.config);
  const keys = grouping === ALL_BUT_SEED ? differingKeys(configs) : [grouping.slice(7)];
  const groups = [...byId.entries()].map(([id, g]): Group<T> => {
    const label = keys.map((key) => `${key}=${g.config[key] ?? MISSING}`).join(', ') || 'same config but the seed';
    return { id, label, rows: g.rows, total: g.rows.length };
  });
  return groups.sort((a, b) => collator.compare(a.label, b.label));
}

/** The keys whose value (a missing key is one) is not the same in every config, sorted. */
function differingKeys(configs: readonly Record<string, string>[]): string[] {
  const keys = [...new Set(configs.flatMap((c) => Object.keys(c)))].sort();
  return keys.filter((key) => configs.some((c) => c[key] !== configs[0]?.[key]));
}

/** What a group is made of, for legends and captions: `seeds` when grouped all but seed, else `runs`. */
export function memberWord(grouping: string, n: number): string {
  return grouping === ALL_BUT_SEED ? (n === 1 ? 'seed' : 'seeds') : n === 1 ? 'run' : 'runs';
}

export interface Estimate {
  mean: number;
  /** How many values (runs with a value). */
  n: number;
  /** The standard deviation across runs (n − 1); with the interval only from two runs on. */
  sd?: number;
  low?: number;
  high?: number;
}

/** The mean with its 95 % Student t-interval (n − 1 degrees of freedom): mean ± t · sd / √n. One value: no interval. */
export function tInterval(values: readonly number[]): Estimate | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const mean = values.reduce((s, x) => s + x, 0) / n;
  if (n === 1) return { mean, n };
  const sd = Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { mean, n, sd, low: mean - half, high: mean + half };
}

/** An estimate of a fraction with its interval kept inside [0, 1] (a success rate cannot leave it). */
export function clampedToFraction(estimate: Estimate | undefined): Estimate | undefined {
  if (!estimate || estimate.low === undefined || estimate.high === undefined) return estimate;
  return { ...estimate, low: Math.max(0, estimate.low), high: Math.min(1, estimate.high) };
}
