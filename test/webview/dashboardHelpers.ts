// Helpers of the dashboard's webview tests (dashboard.ts, dashboardPanels.ts): runs, metrics rows and evaluation
// reports as the host sends them, and what the page drew.
import { wilsonInterval } from '../../src/dashboard/shared/evaluation';
import type { DashboardRun } from '../../src/dashboard/shared/protocol';
import type { MetricRow } from '../../src/runs/shared/types';
import type { WebviewPage } from './harness';

export const TYPES = ['pick_and_place', 'look_at_obj_in_light', 'pick_clean_then_place_in_recep', 'pick_heat_then_place_in_recep', 'pick_cool_then_place_in_recep', 'pick_two_obj_and_place'];

export function run(key: string, fields: Partial<DashboardRun> = {}): DashboardRun {
  return { key, id: key, name: key, stage: 'train', algorithm: 'seed', status: 'completed', started: '2026-11-30T10:00:00Z', config: {}, ...fields };
}

export function updateRow(step: number, success: number): MetricRow {
  const row: Record<string, unknown> = { step, time: new Date(Date.parse('2026-11-30T10:00:00Z') + step * 60_000).toISOString(), kind: 'update', 'success/overall': success, 'loss/pg': -0.01 * step };
  for (const [i, type] of TYPES.entries()) row[`success/${type}`] = (success + i / 10) % 1;
  return row as unknown as MetricRow;
}

export function evalRow(step: number, split: string, success: number): MetricRow {
  const row: Record<string, unknown> = { step, time: '2026-11-30T10:30:00Z', kind: 'eval', split, 'success/overall': success };
  for (const type of TYPES) row[`success/${type}`] = success;
  return row as unknown as MetricRow;
}

export function evaluation(split: string, step: number, success: number, n: number) {
  const cell = { success, n, interval: wilsonInterval(Math.round(success * n), n) };
  return { split, step, overall: cell, byType: Object.fromEntries(TYPES.map((type) => [type, { ...cell, n: n / 6, interval: wilsonInterval(Math.round((success * n) / 6), n / 6) }])) };
}

/** The page's redraw count so far (redraws are throttled, so several messages may land in one). */
export async function renders(view: WebviewPage): Promise<number> {
  return view.page.evaluate(() => (window as unknown as { __seedDashboard: { renders: number } }).__seedDashboard.renders);
}

export async function rendered(view: WebviewPage, minimum: number): Promise<void> {
  await view.page.waitForFunction((n) => (window as unknown as { __seedDashboard: { renders: number } }).__seedDashboard.renders >= n, minimum);
  await view.page.waitForTimeout(300); // the ≤ 4/s render throttle
}

/** Datasets of a chart as chart.js holds them (label, point count, point radius, hidden in the legend). */
export async function chartState(view: WebviewPage, chart: string) {
  return view.page.evaluate((id) => {
    const card = document.querySelector<HTMLElement>(`.card[data-chart="${id}"]`)!;
    const canvas = card.querySelector('canvas')!;
    const legend = [...card.querySelectorAll<HTMLElement>('.legend-item')].map((item) => ({ label: item.textContent ?? '', pressed: item.getAttribute('aria-pressed') }));
    return { hidden: card.hidden, canvasHeight: canvas.getBoundingClientRect().height, legendHeight: card.querySelector('.legend')!.getBoundingClientRect().height, legend };
  }, chart);
}

export async function datasets(view: WebviewPage, chart: string): Promise<Array<{ label: string; points: number; radius: number; xs: number[] }>> {
  return view.page.evaluate((id) => {
    const canvas = document.querySelector<HTMLCanvasElement>(`.card[data-chart="${id}"] canvas`)!;
    const registry = (window as unknown as { __seedCharts?: Map<HTMLCanvasElement, { data: { datasets: Array<{ label: string; data: Array<{ x: number }>; pointRadius: number }> } }> }).__seedCharts;
    const chart = registry?.get(canvas);
    return (chart?.data.datasets ?? []).map((d) => ({ label: d.label, points: d.data.length, radius: d.pointRadius, xs: d.data.map((p) => p.x) }));
  }, chart);
}
