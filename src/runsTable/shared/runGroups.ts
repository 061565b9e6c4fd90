// The runs table's groups (issue 54, as W&B groups them; the grouping rule and the t-interval are
// runs/shared/runGrouping.ts, which the dashboard uses too). A group row holds, for each measured column (step,
// metrics, evaluations), the mean over its runs with a 95 % Student t-interval across runs (n − 1 degrees of freedom):
// the spread between seeds, which a run's own Wilson interval over its episodes does not see. Sorting orders groups by
// their mean and runs inside a group by their value; the filter keeps a group with a run that matches (its matching
// runs). No DOM, no `vscode`: the page and the unit tests use it alike.
import { clampedToFraction, collator, tInterval, type Estimate, type Group } from '../../runs/shared/runGrouping';
import {
  cellText,
  cellValue,
  columnOf,
  csvDelta,
  csvHeader,
  csvLine,
  csvRunFields,
  csvWide,
  filterRows,
  formatNumber,
  isMeasured,
  sortRows,
  type Baselines,
  type RunsTableRow,
} from './runsTable';

/** The runs table's group: runs of the table grouped by runs/shared/runGrouping.ts (the dashboard's rule too). */
export type RunGroup = Group<RunsTableRow>;

/** A measured column's mean over the group's runs that have a value; an evaluation's interval kept inside [0, 1]. */
export function groupEstimate(group: RunGroup, id: string): Estimate | undefined {
  if (!isMeasured(id)) return undefined;
  const values = group.rows.map((row) => cellValue(row, id)).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const estimate = tInterval(values);
  return id.startsWith('eval:') ? clampedToFraction(estimate) : estimate;
}

/** What a group's cells say of their interval (an evaluation column's and cell's title). */
export function groupIntervalTitle(id: string): string {
  const basis = '95 % t-interval across runs (Student t, n − 1 degrees of freedom)';
  return id.startsWith('eval:')
    ? `groups: mean success of the group's runs with its ${basis} — the spread between seeds, not the pooled-episode Wilson interval of a run's cell; n = runs with an evaluation of ${id.slice(5)}`
    : `groups: mean over the group's runs with its ${basis}; n = runs with a value`;
}

/** The Δ cell of a group row is empty: its title says why. */
export const GROUP_DELTA_TITLE = "no Δ for a group: a paired comparison between groups is out of scope — expand the group for each run's Δ against the baseline";

const pct = (x: number): string => `${Math.round(x * 100)}`;

/** `mean [lo, hi] n=k` (an evaluation in %); one run: the value and `n=1`; no run with a value: `—`. */
function estimateText(estimate: Estimate | undefined, evaluation: boolean): string {
  if (!estimate) return '—';
  const fmt = evaluation ? (x: number) => `${pct(x)}%` : formatNumber;
  const interval = estimate.low === undefined || estimate.high === undefined ? '' : evaluation ? ` [${pct(estimate.low)}, ${pct(estimate.high)}]` : ` [${formatNumber(estimate.low)}, ${formatNumber(estimate.high)}]`;
  return `${fmt(estimate.mean)}${interval} n=${estimate.n}`;
}

/** The one text every run of the group has in a column, else undefined. */
function sharedText(group: RunGroup, id: string): string | undefined {
  const texts = new Set(group.rows.map((row) => cellText(row, id)));
  return texts.size === 1 ? [...texts][0] : undefined;
}

/** A group row's cell: the label for `run`; a measured column's mean and t-interval; any other column the value its
 * runs share, else how many values they have. */
export function groupCell(group: RunGroup, id: string): { text: string; title?: string } {
  if (id === 'run') return { text: group.label };
  if (isMeasured(id)) return { text: estimateText(groupEstimate(group, id), id.startsWith('eval:')), title: groupIntervalTitle(id) };
  const shared = sharedText(group, id);
  if (shared !== undefined) return { text: id === 'tags' && shared === '—' ? '' : shared };
  const values = [...new Set(group.rows.map((row) => cellText(row, id)))].sort(collator.compare);
  return { text: `${values.length} values`, title: values.slice(0, 20).join(', ') + (values.length > 20 ? ', …' : '') };
}

/** `5 runs`; after a filter `3 of 5 runs`. */
export function groupCount(group: RunGroup): string {
  const runs = `${group.total} ${group.total === 1 ? 'run' : 'runs'}`;
  return group.rows.length === group.total ? runs : `${group.rows.length} of ${runs}`;
}

/** What a group sorts by: the label for `run`; the mean when its runs' values are numbers; else the value they share. */
function groupValue(group: RunGroup, id: string): number | string | undefined {
  if (id === 'run') return group.label;
  const values = group.rows.map((row) => cellValue(row, id)).filter((v) => v !== undefined);
  if (values.length > 0 && values.every((v) => typeof v === 'number')) return (values as number[]).reduce((s, x) => s + x, 0) / values.length;
  return sharedText(group, id) === undefined ? undefined : values[0];
}

/** Groups sorted by their value in one column (empty last whatever the direction; ties by label), and the runs
 * inside each by the same column. */
export function sortGroups(groups: readonly RunGroup[], id: string, direction: 'ascending' | 'descending'): RunGroup[] {
  const sign = direction === 'ascending' ? 1 : -1;
  const keyed = groups.map((group) => ({ group: { ...group, rows: sortRows(group.rows, id, direction) }, value: groupValue(group, id) }));
  keyed.sort((a, b) => {
    const [x, y] = [a.value, b.value];
    if (x === undefined || y === undefined) return x === y ? collator.compare(a.group.label, b.group.label) : x === undefined ? 1 : -1;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return order === 0 ? collator.compare(a.group.label, b.group.label) : sign * order;
  });
  return keyed.map((k) => k.group);
}

/** The groups with a run the filter keeps, each with only those runs (runsTable.ts's filterRows language). */
export function filterGroups(groups: readonly RunGroup[], query: string, shown: readonly string[]): RunGroup[] {
  return groups.map((group) => ({ ...group, rows: filterRows(group.rows, query, shown) })).filter((group) => group.rows.length > 0);
}

/**
 * Grouped runs as CSV: a `group` column first (the group's label), then runsCsv's columns with every measured column
 * four wide (value, low, high, n). Each group is a line of its own first — id `(mean)`: each measured column's mean
 * over the group's runs, its 95 % t-interval across runs and n, the runs with a value (an evaluation's n there is runs,
 * not episodes); any other column the value its runs share — then its runs' lines.
 */
export function groupsCsv(groups: readonly RunGroup[], columnIds: readonly string[], baselines: Baselines = {}): string {
  const columns = columnIds.map(columnOf);
  const lines = [csvLine(['group', ...csvHeader(columns, baselines, true)])];
  for (const group of groups) {
    const fields: (string | number)[] = [group.label, '(mean)', ''];
    for (const column of columns) {
      if (csvWide(column, true)) {
        const estimate = groupEstimate(group, column.id);
        fields.push(estimate?.mean ?? '', estimate?.low ?? '', estimate?.high ?? '', estimate?.n ?? '');
      } else {
        const values = new Set(group.rows.map((row) => csvRunFields(row, [column], {})[2] ?? ''));
        fields.push(column.id === 'run' ? group.label : values.size === 1 ? [...values][0]! : '');
      }
      if (csvDelta(column, baselines)) fields.push('', '', '', '');
    }
    lines.push(csvLine(fields));
    for (const row of group.rows) lines.push(csvLine([group.label, ...csvRunFields(row, columns, baselines, true)]));
  }
  return `${lines.join('\n')}\n`;
}
