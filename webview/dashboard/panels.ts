// The dashboard's two tables: the evaluation panel (per split and task type, success with its 95 % Wilson interval
// and n, one column per overlaid run) and the run-comparison table (status, final metrics, evaluations and the config
// keys on which the runs differ, as W&B's runs table); grouped, still per run, ordered and headed by group. Every cell
// is text (textContent): run names and config values come from files.
import { formatCell, type EvalSummary } from '../../src/dashboard/shared/evaluation';
import { FINAL_METRICS, configDifferences, type FinalMetrics } from '../../src/dashboard/shared/runComparison';
import { cleanNumber } from '../../src/dashboard/shared/axis';
import type { DashboardRun } from '../../src/dashboard/shared/protocol';
import { displayText } from '../../src/common/shared/inertText';

export interface PanelRun {
  run: DashboardRun;
  evaluations: EvalSummary[];
  final: FinalMetrics;
}

function cellOf(tag: 'td' | 'th', text: string, className?: string): HTMLElement {
  const cell = document.createElement(tag);
  cell.textContent = displayText(text); // run names, task types, config values: bidi and invisibles shown as markers
  if (className) cell.className = className;
  return cell;
}

/** Grouped (issue 54): the runs' columns stay per run, in their groups' order, under a header cell per group. */
export interface PanelGroups {
  by: string;
  groups: ReadonlyArray<{ label: string; runs: number }>;
}

function table(caption: string, runs: readonly PanelRun[], rows: ReadonlyArray<{ label: string; cells: string[]; className?: string }>, grouped?: PanelGroups): HTMLTableElement {
  const element = document.createElement('table');
  element.className = 'panel-table';
  element.createCaption().textContent = displayText(grouped ? `${caption} — per run, under their groups (grouped by ${grouped.by}; the charts draw each group's mean)` : caption);
  if (grouped) {
    const groupHead = element.createTHead().insertRow();
    groupHead.className = 'group-head';
    groupHead.append(cellOf('th', ''));
    for (const group of grouped.groups) {
      const th = cellOf('th', group.label);
      th.setAttribute('colspan', String(group.runs));
      groupHead.append(th);
    }
  }
  const head = element.createTHead().insertRow(); // after the groups' row, when grouped
  head.append(cellOf('th', ''), ...runs.map((r) => cellOf('th', r.run.name)));
  const body = element.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    if (row.className) tr.className = row.className;
    tr.append(cellOf('th', row.label), ...row.cells.map((text) => cellOf('td', text)));
  }
  return element;
}

/** The evaluation panel, or undefined when no overlaid run has an evaluation report. */
export function evaluationPanel(runs: readonly PanelRun[], perTaskType: boolean, grouped?: PanelGroups): HTMLElement | undefined {
  const splits = [...new Set(runs.flatMap((r) => r.evaluations.map((e) => e.split)))].sort();
  if (splits.length === 0) return undefined;
  const rows: Array<{ label: string; cells: string[]; className?: string }> = [];
  for (const split of splits) {
    const reports = runs.map((r) => r.evaluations.find((e) => e.split === split));
    const step = reports.find((e) => e?.step !== null && e?.step !== undefined)?.step;
    rows.push({ label: `${split}${step !== undefined && step !== null ? ` (update ${step})` : ''}`, cells: reports.map((e) => formatCell(e?.overall)), className: 'split-row' });
    if (!perTaskType) continue;
    const types = [...new Set(reports.flatMap((e) => Object.keys(e?.byType ?? {})))].sort();
    for (const type of types) rows.push({ label: `  ${type}`, cells: reports.map((e) => formatCell(e?.byType[type])), className: 'type-row' });
  }
  const section = document.createElement('section');
  section.className = 'panel evaluation-panel';
  section.append(table('Evaluation: success [95% Wilson interval] and episodes n, latest report per split', runs, rows, grouped));
  return section;
}

function metricText(value: number | undefined): string {
  return value === undefined ? '—' : cleanNumber(value);
}

/** The run-comparison table (always, for one run too: its final metrics). */
export function comparisonTable(runs: readonly PanelRun[], grouped?: PanelGroups): HTMLElement {
  const rows: Array<{ label: string; cells: string[]; className?: string }> = [
    { label: 'status', cells: runs.map((r) => (r.run.error ? `${r.run.status}: ${r.run.error}` : r.run.status)) },
    { label: 'stage · algorithm', cells: runs.map((r) => `${r.run.stage} · ${r.run.algorithm}`) },
    { label: 'last step', cells: runs.map((r) => metricText(r.final.step)) },
  ];
  for (const [metric, label] of FINAL_METRICS) {
    if (runs.some((r) => r.final.values[metric] !== undefined)) rows.push({ label, cells: runs.map((r) => metricText(r.final.values[metric])) });
  }
  const splits = [...new Set(runs.flatMap((r) => Object.keys(r.final.evaluations)))].sort();
  for (const split of splits) rows.push({ label: `eval ${split}`, cells: runs.map((r) => metricText(r.final.evaluations[split])) });
  if (runs.length > 1) {
    // Only the sections each run's stage reads: a Stage-2 run's sft.* and collect.* are not what it did.
    const differences = configDifferences(runs.map((r) => ({ stage: r.run.stage, ...(r.run.config ? { config: r.run.config } : {}) })));
    for (const { key, cells } of differences) rows.push({ label: key, cells, className: 'config-row' });
    if (differences.length === 0) rows.push({ label: 'config', cells: runs.map(() => 'identical'), className: 'config-row' });
  }
  const section = document.createElement('section');
  section.className = 'panel comparison-panel';
  section.append(table(runs.length > 1 ? 'Runs compared: final metrics and the config keys that differ' : 'Run: final metrics', runs, rows, grouped));
  return section;
}
