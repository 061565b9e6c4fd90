// The page's layout: the toolbar (runs, smoothing, x axis, group by, toggles, reset zoom, status line), the panels
// above the charts and the chart grid. Run names reach the page through textContent only.
import { isolatedText } from '../../src/common/shared/inertText';
import { groupingOptions } from '../../src/runs/shared/runGrouping';
import { groupMembers, grouping } from './grouping';
import { model, state } from './state';

const SMOOTHING_CHOICES = ['0', '0.6', '0.8', '0.9', '0.95', '0.99'];

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

type Select = HTMLElement & { value: string };

/** A select's options (labels as text), `current` selected. */
function fillOptions(control: Select, choices: ReadonlyArray<[value: string, label: string]>, current: string): void {
  control.replaceChildren();
  for (const [value, label] of choices) {
    const option = document.createElement('vscode-option') as HTMLElement;
    option.setAttribute('value', value);
    option.textContent = label;
    if (value === current) option.setAttribute('selected', '');
    control.appendChild(option);
  }
  control.value = current;
}

function select(id: string, choices: ReadonlyArray<[value: string, label: string]>, current: string): Select {
  const control = document.createElement('vscode-single-select') as Select;
  control.id = id;
  fillOptions(control, choices, current);
  return control;
}

function checkbox(id: string, label: string, checked: boolean): HTMLElement & { checked: boolean } {
  const box = document.createElement('vscode-checkbox') as HTMLElement & { checked: boolean };
  box.id = id;
  box.setAttribute('label', label);
  if (checked) box.setAttribute('checked', '');
  return box;
}

const root = document.getElementById('root') ?? document.body;
const toolbar = element('div', 'toolbar');
export const runsSelect = document.createElement('vscode-multi-select') as HTMLElement & { value: string[] };
runsSelect.id = 'runs';
export const smoothingSelect = select('smoothing', SMOOTHING_CHOICES.map((c) => [c, c === '0' ? 'none' : c]), String(state.smoothing));
export const axisSelect = select('x-axis', [['step', 'step'], ['time', 'wall time']], state.xAxis);
export const perTaskBox = checkbox('per-task-type', 'Per task type', state.perTaskType);
export const rawBox = checkbox('show-raw', 'Raw', state.showRaw);
export const logBox = checkbox('log-scale', 'Log y', state.logScale);
export const robustBox = checkbox('robust-y', 'Robust y', state.robustY);
robustBox.title = 'y range from the bulk of the points drawn: up to 1 % of them at each end left out when far from the rest (3 interquartile ranges); fractions keep 0–1';
// "Group by" (issue 54), shown while several runs are overlaid: the runs table's choices (runs/shared/runGrouping.ts).
export const groupSelect = select('group-by', [['', 'nothing']], '');
groupSelect.setAttribute('aria-label', 'Group by');
const groupBy = element('span', 'group-by');
groupBy.append(element('vscode-label' as 'label', undefined, 'Group by'), groupSelect);
export const resetZoom = element('button', 'reset-zoom', 'Reset zoom');
resetZoom.hidden = true;
const statusLine = element('span', 'status');
toolbar.append(
  element('vscode-label' as 'label', undefined, 'Runs'),
  runsSelect,
  element('vscode-label' as 'label', undefined, 'Smoothing'),
  smoothingSelect,
  element('vscode-label' as 'label', undefined, 'x'),
  axisSelect,
  groupBy,
  perTaskBox,
  rawBox,
  logBox,
  robustBox,
  resetZoom,
  statusLine,
);
export const panels = element('div', 'panels');
export const grid = element('div', 'grid');
export const emptyNote = element('p', 'empty-note', 'Waiting for metrics…');
root.append(toolbar, emptyNote, panels, grid);

export function fillRunsSelect(): void {
  runsSelect.replaceChildren();
  const selected = new Set(model.overlaid.map((run) => run.key));
  for (const run of model.available) {
    const option = document.createElement('vscode-option') as HTMLElement;
    option.setAttribute('value', run.key);
    option.setAttribute('description', `${run.stage} · ${run.algorithm} · ${run.status}`);
    option.textContent = `${isolatedText(run.name)} (${isolatedText(run.id)})`;
    if (selected.has(run.key)) option.setAttribute('selected', '');
    runsSelect.appendChild(option);
  }
}

/** The "Group by" choices for the overlaid runs, the grouping in force selected; hidden for a single run. While
 * grouped the x axis is step (grouping.ts): the axis select says so. */
export function fillGroupSelect(): void {
  groupBy.hidden = model.overlaid.length < 2;
  fillOptions(groupSelect, groupingOptions(groupMembers()).map((o) => [o.value, o.label]), grouping());
  describeAxis();
}

export function describeAxis(): void {
  const grouped = grouping() !== '';
  axisSelect.toggleAttribute('disabled', grouped);
  axisSelect.title = grouped ? 'Grouped runs are drawn against step: the runs of a group reach a step at different times' : '';
}

export function describeStatus(): void {
  statusLine.textContent = model.overlaid.map((run) => `${isolatedText(run.name)}: ${run.status}`).join(' · ');
}
