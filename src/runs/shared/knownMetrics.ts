// The metric names schemas/metric.schema.json lists (docs/run-format.md §6), looked up by name: a listed name's own
// entry, else its family's (`success/heat` is one of `success/<task_type>`). A name neither lists is a newer trainer's
// or a typo: read, drawn in no chart, and a checker's `unknown_metric` warning. No DOM, no Node: the dashboard bundle
// uses it too.
import { METRIC_NAMES, type MetricName } from './generated/metricNames';

const LISTED = new Map(METRIC_NAMES.filter((entry) => !entry.pattern).map((entry) => [entry.name, entry]));
const FAMILIES = METRIC_NAMES.filter((entry) => entry.pattern).map((entry) => ({ entry, pattern: new RegExp(entry.pattern ?? '') }));

/** The keys of a metrics row that are not metric names. */
export const RESERVED_METRIC_KEYS: ReadonlySet<string> = new Set(['step', 'time', 'kind', 'epoch', 'split']);

/** The schema's entry of a metric name: its own, else its family's; undefined for a name the schema does not list. */
export function metricEntry(metric: string): MetricName | undefined {
  return LISTED.get(metric) ?? FAMILIES.find((family) => family.pattern.test(metric))?.entry;
}

/** The entry the schema lists under this very name (not a family's): undefined for `success/heat`. */
export function listedMetric(metric: string): MetricName | undefined {
  return LISTED.get(metric);
}
