// Which runs a dashboard shows when it is opened without a choice, or restored with a window. No `vscode` import.
import path from 'node:path';
import { isLive, type RunEntry } from '../../runs/core/runsCore';

/** No run named: the live runs, else the newest run (`runs` is newest first, as the runs layer lists them). */
export function defaultDashboardRuns(runs: readonly RunEntry[]): string[] {
  const live = runs.filter((entry) => isLive(entry.state));
  return (live.length > 0 ? live : runs.slice(0, 1)).map((entry) => entry.dir);
}

/**
 * The runs of a dashboard restored after a window reload: those its saved state names that still exist. A state
 * that names none (it was never written or not flushed before the reload, or every run it named was deleted) gets
 * the default: a user who reloads during training must see the run, not an empty dashboard.
 */
export function restoredDashboardRuns(state: unknown, runs: readonly RunEntry[], exists: (dir: string) => boolean): string[] {
  const saved = state && typeof state === 'object' && Array.isArray((state as { runs?: unknown }).runs) ? (state as { runs: unknown[] }).runs : [];
  const kept = saved.filter((dir): dir is string => typeof dir === 'string' && path.isAbsolute(dir) && exists(dir));
  return kept.length > 0 ? [...new Set(kept.map((dir) => path.resolve(dir)))] : defaultDashboardRuns(runs);
}
