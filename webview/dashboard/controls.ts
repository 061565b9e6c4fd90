// What the toolbar's controls do: overlay runs, smoothing, x axis, group by (and a group's runs shown), the toggles
// (saved with the webview state), reset zoom; and a redraw when the theme or the window size changes.
import { markAllDirty } from './render';
import { channel, hidden, model, saveState, state } from './state';
import { isUnsmoothed } from '../../src/dashboard/shared/charts';
import { axisSelect, describeAxis, groupSelect, logBox, perTaskBox, rawBox, resetZoom, robustBox, runsSelect, smoothingSelect } from './toolbar';

export function installControls(): void {
  runsSelect.addEventListener('change', () => {
    const keys = Array.isArray(runsSelect.value) ? runsSelect.value : [];
    channel.post('overlay', { runs: keys });
  });

  smoothingSelect.addEventListener('change', () => {
    state.smoothing = Number(smoothingSelect.value) || 0;
    saveState();
    for (const data of model.runs.values()) {
      for (const [name, pair] of data.series) {
        if (isUnsmoothed(name)) continue;
        pair.step.setSmoothing(state.smoothing);
        pair.time.setSmoothing(state.smoothing);
      }
    }
    markAllDirty();
  });

  groupSelect.addEventListener('change', () => {
    state.group = typeof groupSelect.value === 'string' ? groupSelect.value : '';
    model.xRange = undefined; // grouped charts are drawn against step: a zoomed range of minutes means nothing there
    resetZoom.hidden = true;
    saveState();
    describeAxis();
    markAllDirty();
  });

  axisSelect.addEventListener('change', () => {
    state.xAxis = axisSelect.value === 'time' ? 'time' : 'step';
    model.xRange = undefined; // a range of steps means nothing in minutes
    resetZoom.hidden = true;
    saveState();
    markAllDirty();
  });

  const toggles: Array<[HTMLElement & { checked: boolean }, (on: boolean) => void]> = [
    [perTaskBox, (on) => (state.perTaskType = on)],
    [rawBox, (on) => (state.showRaw = on)],
    [logBox, (on) => (state.logScale = on)],
    [robustBox, (on) => (state.robustY = on)],
  ];
  for (const [box, set] of toggles) {
    box.addEventListener('change', () => {
      set(Boolean(box.checked));
      saveState();
      markAllDirty();
    });
  }

  resetZoom.addEventListener('click', () => {
    model.xRange = undefined;
    resetZoom.hidden = true;
    markAllDirty();
  });

  new MutationObserver(() => {
    for (const view of model.charts) view.applyTheme();
    markAllDirty();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });

  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(markAllDirty, 150);
  });
}

/** A group's disclosure clicked: its runs drawn thin behind its mean, or no longer (saved). */
export function toggleGroup(groupId: string): void {
  state.expanded = state.expanded.includes(groupId) ? state.expanded.filter((id) => id !== groupId) : [...state.expanded, groupId];
  saveState();
  markAllDirty();
}

/** A legend entry clicked: its series hidden or shown again (saved). */
export function toggleSeries(key: string): void {
  if (hidden.has(key)) hidden.delete(key);
  else hidden.add(key);
  saveState();
  markAllDirty();
}
