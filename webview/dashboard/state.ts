// The dashboard's state: the host channel, what is saved with the webview (restored after a reload), and the data of
// the runs overlaid. One module holds it so the page's parts (toolbar, charts, messages) share it without cycles.
import type { XAxis } from '../../src/dashboard/shared/axis';
import type { EvalSummary } from '../../src/dashboard/shared/evaluation';
import type { FinalMetrics } from '../../src/dashboard/shared/runComparison';
import type { SmoothedSeries } from '../../src/dashboard/shared/series';
import { TO_DASHBOARD, type BeforeAfterView, type DashboardRun, type FromDashboard, type ToDashboard } from '../../src/dashboard/shared/protocol';
import { HostChannel } from '../shared/hostApi';
import type { ChartView } from './chartView';
import type { StripBox } from './quantileStrips';

export interface SavedState {
  smoothing: number;
  perTaskType: boolean;
  /** The overlaid runs (their directories): the host restores the panel with them after a reload. */
  runs: string[];
  /** Series switched off in a legend (`<run>|<series>`). */
  hidden: string[];
  xAxis: XAxis;
  showRaw: boolean;
  logScale: boolean;
  /** y ranges from the bulk of the points drawn, leaving outliers out (robustRange.ts). */
  robustY: boolean;
  /** Group by (runs/shared/runGrouping.ts): '' none, `all-but-seed` or `config:<key>`. */
  group: string;
  /** Groups whose runs are drawn behind their mean (group ids). */
  expanded: string[];
}

/** A metric's values against both x axes. */
interface SeriesPair {
  step: SmoothedSeries;
  time: SmoothedSeries;
}

/** A quantile family's boxes, one per update, against both x axes. */
interface StripPair {
  step: StripBox[];
  time: StripBox[];
}

export interface RunData {
  run: DashboardRun;
  series: Map<string, SeriesPair>;
  /** Per quantile family (`gate`, `delta`): the boxes of its strip chart. */
  strips: Map<string, StripPair>;
  points: number;
  /** Start of the run in ms (wall-time axis origin): run.json's start, else the first row's time. */
  origin: number | undefined;
  final: FinalMetrics;
  evaluations: EvalSummary[];
  /** Before/after per split, when the run links its base evaluations. */
  beforeAfter: BeforeAfterView[];
}

export const channel = new HostChannel<ToDashboard, FromDashboard>(TO_DASHBOARD);
const saved = (channel.state ?? {}) as Partial<SavedState>;
export const state: SavedState = {
  smoothing: saved.smoothing ?? 0.6,
  perTaskType: saved.perTaskType ?? false, // the headline first: overall success per run; the six task types on demand
  runs: saved.runs ?? [],
  hidden: saved.hidden ?? [],
  xAxis: saved.xAxis ?? 'step',
  showRaw: saved.showRaw ?? true,
  logScale: saved.logScale ?? false,
  robustY: saved.robustY ?? false,
  group: typeof saved.group === 'string' ? saved.group : '',
  expanded: Array.isArray(saved.expanded) ? saved.expanded.filter((id): id is string => typeof id === 'string') : [],
};
export const hidden = new Set(state.hidden);

/** What the page shows now: the zoomed x range, the runs' data, the runs overlaid and available, the charts. */
export const model = {
  xRange: undefined as { min: number; max: number } | undefined,
  runs: new Map<string, RunData>(),
  overlaid: [] as DashboardRun[],
  available: [] as DashboardRun[],
  charts: [] as ChartView[],
};

export const stats = { renders: 0, lastMs: 0, ingestMs: 0 };
(window as unknown as { __seedDashboard: typeof stats }).__seedDashboard = stats;

export function saveState(): void {
  state.hidden = [...hidden];
  channel.state = state;
}
