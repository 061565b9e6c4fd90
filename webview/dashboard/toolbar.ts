// The page's layout: the toolbar (runs, smoothing, x axis, toggles, reset zoom, status line), the panels above the
// charts and the chart grid. Run names reach the page through textContent only.
import { isolatedText } from '../../src/common/shared/inertText';
import { model, state } from './state';

const SMOOTHING_CHOICES = ['0', '0.6', '0.8', '0.9', '0.95', '0.99'];

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function select(id: string, choices: ReadonlyArray<[value: string, label: string]>, current: string): HTMLElement & { value: string } {
  const control = document.createElement('vscode-single-select') as HTMLElement & { value: string };
  control.id = id;
  for (const [value, label] of choices) {
    const option = document.createElement('vscode-option') as HTMLElement;
    option.setAttribute('value', value);
    option.textContent = label;
    if (value === current) option.setAttribute('selected', '');
    control.appendChild(option);
  }
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

export function describeStatus(): void {
  statusLine.textContent = model.overlaid.map((run) => `${isolatedText(run.name)}: ${run.status}`).join(' · ');
}
