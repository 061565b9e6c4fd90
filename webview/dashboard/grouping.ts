// The dashboard's "Group by" (issue 54): the overlaid runs grouped by the runs table's rule
// (runs/shared/runGrouping.ts) — nothing, "all but seed" or one config key — and what a grouped page draws against:
// steps, since the runs of a group reach a step at different times.
import type { XAxis } from '../../src/dashboard/shared/axis';
import type { ChartSpec } from '../../src/dashboard/shared/charts';
import type { DashboardRun } from '../../src/dashboard/shared/protocol';
import { flattenConfig } from '../../src/dashboard/shared/runComparison';
import { groupRuns, groupingOf, memberWord, type Group } from '../../src/runs/shared/runGrouping';
import { model, state } from './state';

export interface GroupMember {
  run: DashboardRun;
  config: Record<string, string>;
}

export type RunsGroup = Group<GroupMember>;

let members: { overlaid: readonly DashboardRun[]; list: GroupMember[] } | undefined;

/** The overlaid runs with their flattened configs (made again when the host sends the runs). */
export function groupMembers(): GroupMember[] {
  if (members?.overlaid !== model.overlaid) members = { overlaid: model.overlaid, list: model.overlaid.map((run) => ({ run, config: flattenConfig(run.config ?? {}) })) };
  return members.list;
}

/** The grouping in force: the one chosen while it applies to the runs (a key none of them has groups nothing), and
 * only with two runs or more. */
export function grouping(): string {
  return model.overlaid.length < 2 ? '' : groupingOf(state.group, groupMembers());
}

/** The groups drawn, or undefined when the page draws runs. */
export function activeGroups(): RunsGroup[] | undefined {
  const chosen = grouping();
  return chosen ? groupRuns(groupMembers(), chosen) : undefined;
}

/** The x axis drawn: steps while grouped (a mean at a step is of values its runs wrote at different times). */
export function drawnAxis(): XAxis {
  return grouping() ? 'step' : state.xAxis;
}

/** `seeds` when grouped all but seed, else `runs` (`seed`, `run` for one). */
export function groupWord(n: number): string {
  return memberWord(grouping(), n);
}

/** How the grouping is named in captions: `all but seed`, `rollout.group_size`. */
export function groupingName(chosen = grouping()): string {
  return chosen.startsWith('config:') ? chosen.slice(7) : 'all but seed';
}

/** What a grouped chart shows, under its title; undefined when the page draws runs. */
export function groupCaption(spec: ChartSpec): string | undefined {
  const chosen = grouping();
  if (!chosen) return undefined;
  const by = `Grouped by ${groupingName(chosen)}`;
  const axis = state.xAxis === 'time' ? ' Drawn against step (runs reach a step at different times).' : '';
  if (spec.evaluation) {
    return `${by}: mean success of each group's runs at the evaluations all of them made; whiskers: 95 % t-interval across the runs, not a run's Wilson interval (a group of one keeps its own).${axis}`;
  }
  const what = spec.quantiles ? "mean of the runs' medians" : "mean of each group's runs";
  const smoothed = state.smoothing > 0 && !spec.quantiles ? ', each run smoothed first' : '';
  return `${by}: ${what} at the steps all of them reached; band: 95 % t-interval across the runs (mean ± t(n−1)·sd/√n)${smoothed}. ▸ draws a group's runs.${axis}`;
}
