// The runs table (as W&B's): every run of the workspace a row, columns picked from the runs' config keys, final
// training metrics and evaluations (success with its 95 % Wilson interval), a text filter, sorting, a baseline per
// split with the paired change against it (src/runs/shared/pairedChange.ts, computed by the host) after each
// evaluation column, and CSV. No DOM, no `vscode`: the page and the unit tests use it alike.
import { formatCell, type EvalCell } from '../../dashboard/shared/evaluation';
import { clampNote, intervalPoints, points, verdictText, type SuccessChange } from '../../runs/shared/pairedChange';

export interface RunsTableRow {
  /** The run directory (the identity). */
  key: string;
  id: string;
  title: string;
  stage: string;
  algorithm: string;
  status: string;
  started?: string;
  /** Last training step seen. */
  step?: number;
  tags: string[];
  /** The flattened config (`rollout.group_size` → `"8"`). */
  config: Record<string, string>;
  /** Each training metric's last finite value (update / sft / collect rows). */
  metrics: Record<string, number>;
  /** Each evaluated split's latest evaluation. */
  evals: Record<string, EvalCell>;
  /** For each split with a baseline (of which this row is not the baseline): this evaluation's change in success
   * against the baseline's, with its 95 % interval (filled by the host: both eval/<split>.json reports). */
  changes: Record<string, SuccessChange>;
}

/** The baseline run of each split: split → run key. */
export type Baselines = Record<string, string>;

/** The splits a run can be the baseline of: those with an evaluation report (n > 0; a split known only from a
 * metrics row has no episodes to pair). */
export function reportedSplits(row: RunsTableRow): string[] {
  return Object.entries(row.evals)
    .filter(([, cell]) => cell.n > 0)
    .map(([split]) => split)
    .sort();
}

/** The baselines kept in the workspace state, as they apply to these rows: a run gone or without a report of the
 * split is dropped; an older plain run key means that run for every split it has a report of. */
export function baselinesOf(stored: unknown, rows: readonly RunsTableRow[]): Baselines {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const entries: [string, string][] =
    typeof stored === 'string'
      ? (byKey.get(stored) ? reportedSplits(byKey.get(stored)!) : []).map((split) => [split, stored])
      : stored && typeof stored === 'object'
        ? Object.entries(stored).filter((pair): pair is [string, string] => typeof pair[1] === 'string')
        : [];
  const result: Baselines = {};
  for (const [split, key] of entries.sort((a, b) => a[0].localeCompare(b[0]))) {
    if (byKey.get(key)?.evals[split]) result[split] = key;
  }
  return result;
}

/** Pinned: the run becomes the baseline of every split it has a report of, replacing those splits' baselines. */
export function pinBaseline(baselines: Baselines, row: RunsTableRow): Baselines {
  const result = { ...baselines };
  for (const split of reportedSplits(row)) result[split] = row.key;
  return result;
}

/** Unpinned: the run is no longer the baseline of any split (`null`: no split keeps a baseline). */
export function unpinBaseline(baselines: Baselines, key: string | null): Baselines {
  return key === null ? {} : Object.fromEntries(Object.entries(baselines).filter(([, run]) => run !== key));
}

/** The splits a run is the baseline of. */
export function baselineSplits(baselines: Baselines, key: string): string[] {
  return Object.keys(baselines).filter((split) => baselines[split] === key).sort();
}

type ColumnKind = 'text' | 'number' | 'eval' | 'tags';

export interface Column {
  /** `run`, `tags`, `status`, `stage`, `algorithm`, `started`, `step`, `config:<key>`, `metric:<name>`, `eval:<split>`. */
  id: string;
  label: string;
  kind: ColumnKind;
}

const FIXED: readonly Column[] = [
  { id: 'run', label: 'run', kind: 'text' },
  { id: 'tags', label: 'tags', kind: 'tags' },
  { id: 'status', label: 'status', kind: 'text' },
  { id: 'stage', label: 'stage', kind: 'text' },
  { id: 'algorithm', label: 'algorithm', kind: 'text' },
  { id: 'started', label: 'started', kind: 'text' },
  { id: 'step', label: 'step', kind: 'number' },
];

const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** Every column the rows can fill: the fixed ones, then evaluations, metrics and config keys (each sorted). */
export function availableColumns(rows: readonly RunsTableRow[]): Column[] {
  const splits = new Set<string>();
  const metrics = new Set<string>();
  const config = new Map<string, boolean>(); // key → every value numeric
  for (const row of rows) {
    for (const split of Object.keys(row.evals)) splits.add(split);
    for (const metric of Object.keys(row.metrics)) metrics.add(metric);
    for (const [key, value] of Object.entries(row.config)) config.set(key, (config.get(key) ?? true) && NUMBER.test(value));
  }
  return [
    ...FIXED,
    ...[...splits].sort().map((split): Column => ({ id: `eval:${split}`, label: `eval ${split}`, kind: 'eval' })),
    ...[...metrics].sort().map((metric): Column => ({ id: `metric:${metric}`, label: metric, kind: 'number' })),
    ...[...config.keys()].sort().map((key): Column => ({ id: `config:${key}`, label: key, kind: config.get(key) ? 'number' : 'text' })),
  ];
}

/** How many runs differ from the most common value of a config key (a missing key is a value of its own). */
function minority(rows: readonly RunsTableRow[], key: string): number {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.config[key] ?? '\u2205', (counts.get(row.config[key] ?? '\u2205') ?? 0) + 1);
  return rows.length - Math.max(0, ...counts.values());
}

/** What a new table shows: run, tags, status, every evaluation, the last training success, and the config keys on
 * which the most runs differ from the rest (at most `maxConfig`; identity-like keys left out), so one odd run does
 * not fill the table with the keys only it has. */
export function defaultColumnIds(rows: readonly RunsTableRow[], maxConfig = 6): string[] {
  const columns = availableColumns(rows);
  const differing = columns
    .filter((c) => c.id.startsWith('config:') && !/(^|\.)(name|path|description|run_dir|runs_dir)$/.test(c.id.slice(7)))
    .map((c) => [c.id, minority(rows, c.id.slice(7))] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return [
    'run',
    'tags',
    'status',
    ...columns.filter((c) => c.kind === 'eval').map((c) => c.id),
    ...(columns.some((c) => c.id === 'metric:success/overall') ? ['metric:success/overall'] : []),
    ...differing.slice(0, maxConfig).map(([id]) => id),
  ];
}

export function columnOf(id: string): Column {
  const fixed = FIXED.find((c) => c.id === id);
  if (fixed) return fixed;
  if (id.startsWith('eval:')) return { id, label: `eval ${id.slice(5)}`, kind: 'eval' };
  if (id.startsWith('metric:')) return { id, label: id.slice(7), kind: 'number' };
  return { id, label: id.slice(id.indexOf(':') + 1), kind: 'text' };
}

/** The value a cell sorts and compares by: a number where there is one, else text; undefined when empty. */
export function cellValue(row: RunsTableRow, id: string): number | string | undefined {
  switch (id) {
    case 'run':
      return row.title;
    case 'tags':
      return row.tags.join(', ') || undefined;
    case 'status':
      return row.status;
    case 'stage':
      return row.stage;
    case 'algorithm':
      return row.algorithm;
    case 'started':
      return row.started;
    case 'step':
      return row.step;
  }
  if (id.startsWith('eval:')) return row.evals[id.slice(5)]?.success;
  if (id.startsWith('metric:')) return row.metrics[id.slice(7)];
  if (id.startsWith('config:')) {
    const value = row.config[id.slice(7)];
    if (value === undefined) return undefined;
    return NUMBER.test(value) ? Number(value) : value;
  }
  return undefined;
}

export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e5)) return value.toExponential(2);
  return String(Number(value.toPrecision(4)));
}

/** A cell as text: an evaluation as `62% [41–79] n=24`. */
export function cellText(row: RunsTableRow, id: string): string {
  if (id.startsWith('eval:')) return formatCell(row.evals[id.slice(5)]);
  if (id === 'run') return row.title;
  if (id.startsWith('config:')) return row.config[id.slice(7)] ?? '—';
  const value = cellValue(row, id);
  if (value === undefined) return '—';
  return typeof value === 'number' ? formatNumber(value) : value;
}

/** The change as a Δ cell shows it: `+3 [-4, +11]`, points with the 95 % interval, as the dashboard writes it. */
export function changeText(change: SuccessChange): string {
  return `${points(change.change)} ${intervalPoints(change.low, change.high)}`;
}

/** What the interval rests on, and what it means (a Δ cell's title). */
export function changeTitle(change: SuccessChange): string {
  const basis = change.paired ? `paired task by task over ${change.nAfter} tasks` : 'unpaired: different tasks (Newcombe interval)';
  return `change in success against the baseline, 95 % interval in points${clampNote(change.low, change.high)}; ${basis} — ${verdictText(change)}`;
}

/** The colour class of a Δ cell: only a resolved change has one. */
export function changeClass(change: SuccessChange): '' | 'up' | 'down' {
  return change.verdict === 'better' ? 'up' : change.verdict === 'worse' ? 'down' : '';
}

/** A Δ cell of one split: `baseline` on the baseline's row, the change on a row with one, else empty. */
export function deltaCell(row: RunsTableRow, split: string, baselines: Baselines): { text: string; className: '' | 'up' | 'down'; title?: string } {
  if (baselines[split] === row.key) return { text: 'baseline', className: '' };
  const change = baselines[split] === undefined ? undefined : row.changes[split];
  if (!change) return { text: '', className: '' };
  return { text: changeText(change), className: changeClass(change), title: changeTitle(change) };
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Sorted by one column; empty cells last whatever the direction; ties keep the run title order. */
export function sortRows(rows: readonly RunsTableRow[], id: string, direction: 'ascending' | 'descending'): RunsTableRow[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = cellValue(a, id);
    const y = cellValue(b, id);
    if (x === undefined || y === undefined) return x === y ? collator.compare(a.title, b.title) : x === undefined ? 1 : -1;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return order === 0 ? collator.compare(a.title, b.title) : sign * order;
  });
}

/**
 * The rows a filter keeps. Words separated by spaces must all match (case-insensitive): `tag:NAME` a tag equal to
 * NAME, `-WORD` excludes, `KEY=VALUE` a column whose label is KEY (a config key, a metric, `status`, …) with the
 * text VALUE, `KEY>N` / `KEY<N` a number above / below N; any other word is a substring of the run's title, id, tags
 * or of one of the shown cells.
 */
export function filterRows(rows: readonly RunsTableRow[], query: string, shown: readonly string[]): RunsTableRow[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...rows];
  const byLabel = (row: RunsTableRow, label: string): string | undefined => {
    for (const id of [label, `config:${label}`, `metric:${label}`, `eval:${label}`]) {
      if (cellValue(row, id) !== undefined) return id;
    }
    return undefined;
  };
  const matches = (row: RunsTableRow, word: string): boolean => {
    if (word.startsWith('tag:')) return row.tags.some((t) => t.toLowerCase() === word.slice(4));
    const comparison = /^([^=<>]+)(=|<|>)(.+)$/.exec(word);
    if (comparison) {
      const [, label, op, wanted] = comparison as unknown as [string, string, string, string];
      const id = byLabel(row, label);
      if (id === undefined) return false;
      const value = cellValue(row, id);
      if (op === '=') return cellText(row, id).toLowerCase() === wanted || String(value).toLowerCase() === wanted;
      const number = Number(wanted);
      if (typeof value !== 'number' || !Number.isFinite(number)) return false;
      const scaled = id.startsWith('eval:') && number > 1 ? number / 100 : number; // eval:valid_seen>50 means 50 %
      return op === '>' ? value > scaled : value < scaled;
    }
    const haystack = [row.title, row.id, ...row.tags, ...shown.map((id) => cellText(row, id))].join('\n').toLowerCase();
    return haystack.includes(word);
  };
  return rows.filter((row) => words.every((word) => (word.startsWith('-') && word.length > 1 ? !matches(row, word.slice(1)) : matches(row, word))));
}

function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) || /^[=+\-@\t]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line (RFC 4180 quoting; a cell that starts like a formula is quoted). */
export function csvLine(fields: readonly (string | number)[]): string {
  return fields.map(csvField).join(',');
}

const pp = (x: number): number => Number((100 * x).toFixed(4));

/** Whether a column is measured (a mean across runs means something): the step, a metric, an evaluation. */
export function isMeasured(id: string): boolean {
  return id === 'step' || id.startsWith('metric:') || id.startsWith('eval:');
}

/** Whether the CSV writes a column four wide (value, low, high, n): an evaluation, and with groups every measured
 * column (its group lines hold the mean and the t-interval). */
export const csvWide = (column: Column, grouped: boolean): boolean => column.kind === 'eval' || (grouped && isMeasured(column.id));

/** Whether a column of the CSV has its four Δ fields after it (an evaluation whose split has a baseline). */
export const csvDelta = (column: Column, baselines: Baselines): boolean => column.kind === 'eval' && baselines[column.id.slice(5)] !== undefined;

/** The header: id, dir, then each column (see runsCsv); `grouped`: measured columns four wide. */
export function csvHeader(columns: readonly Column[], baselines: Baselines, grouped = false): string[] {
  const header = ['id', 'dir'];
  for (const column of columns) {
    if (csvWide(column, grouped)) header.push(`${column.label}`, `${column.label} low`, `${column.label} high`, `${column.label} n`);
    else header.push(column.label);
    if (csvDelta(column, baselines)) header.push(`Δ ${column.label} (pp)`, `Δ ${column.label} low`, `Δ ${column.label} high`, `Δ ${column.label} paired`);
  }
  return header;
}

/** A run's fields under csvHeader. */
export function csvRunFields(row: RunsTableRow, columns: readonly Column[], baselines: Baselines, grouped = false): (string | number)[] {
  const fields: (string | number)[] = [row.id, row.key];
  for (const column of columns) {
    if (column.kind === 'eval') {
      const cell = row.evals[column.id.slice(5)];
      fields.push(cell?.success ?? '', cell?.interval.low ?? '', cell?.interval.high ?? '', cell?.n ?? '');
    } else {
      const value = column.kind === 'tags' ? row.tags.join('; ') : column.id.startsWith('config:') ? (row.config[column.id.slice(7)] ?? '') : (cellValue(row, column.id) ?? '');
      fields.push(value);
      if (csvWide(column, grouped)) fields.push('', '', '');
    }
    if (csvDelta(column, baselines)) {
      const split = column.id.slice(5);
      const change = row.changes[split];
      if (baselines[split] === row.key) fields.push('', '', '', 'baseline');
      else if (change) fields.push(pp(change.change), pp(change.low), pp(change.high), String(change.paired));
      else fields.push('', '', '', '');
    }
  }
  return fields;
}

/**
 * The table as CSV (RFC 4180): the run's id and directory, then each column; an evaluation is four fields (success,
 * the interval's low and high, n) and, when its split has a baseline, four more: the change against the baseline in
 * points, its 95 % interval's low and high, and whether it is paired task by task (`baseline` on the baseline's row).
 * Grouped runs: runGroups.ts's groupsCsv.
 */
export function runsCsv(rows: readonly RunsTableRow[], columnIds: readonly string[], baselines: Baselines = {}): string {
  const columns = columnIds.map(columnOf);
  const lines = [csvLine(csvHeader(columns, baselines)), ...rows.map((row) => csvLine(csvRunFields(row, columns, baselines)))];
  return `${lines.join('\n')}\n`;
}
