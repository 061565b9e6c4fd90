// The live dashboard: one chart per metric group (src/dashboard/shared/charts.ts), several runs overlaid, raw and smoothed
// values, step or wall-time x axis, zoom and log scale, min-max decimation to the canvas width, at most four redraws
// per second, colours from the VS Code theme; the evaluation panel and the run-comparison table above the charts.
// All text from runs (names, task types, config values) reaches the page through textContent or chart.js's canvas
// text, never as HTML. The parts: state.ts (saved state, runs' data), toolbar.ts (layout), render.ts (rows in,
// redraws out), datasets.ts (what a chart draws), controls.ts and messages.ts (what the user and the host do).
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-multi-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import { DASHBOARD_CHARTS } from '../../src/dashboard/shared/charts';
import { chartCsv, groupedChartCsv } from '../../src/dashboard/shared/csv';
import { isolatedText } from '../../src/common/shared/inertText';
import { ChartView } from './chartView';
import { installControls, toggleGroup, toggleSeries } from './controls';
import { csvSeries } from './datasets';
import { groupedCsvSeries } from './groupDatasets';
import { activeGroups, groupingName } from './grouping';
import { installMessages } from './messages';
import { markAllDirty } from './render';
import { channel, model, state } from './state';
import { grid, resetZoom } from './toolbar';

model.charts = DASHBOARD_CHARTS.map(
  (spec) =>
    new ChartView(spec, {
      toggle: toggleSeries,
      expand: toggleGroup,
      zoom: (range) => {
        model.xRange = range;
        resetZoom.hidden = range === undefined;
        markAllDirty();
      },
      exportPng: (view) => {
        // The title names the runs (a legend label names its run only when several are overlaid), or the grouping.
        const groups = activeGroups();
        const names = groups ? `grouped by ${groupingName()}` : model.overlaid.map((run) => isolatedText(run.name)).join(', ');
        if (view.chart) channel.post('export', { format: 'png', name: `${view.spec.id}.png`, data: view.exportImage(names ? `${view.spec.title} — ${names}` : view.spec.title) });
      },
      exportCsv: (view) => {
        const groups = activeGroups();
        const data = groups ? groupedChartCsv('step', groupedCsvSeries(view, groups)) : chartCsv(state.xAxis === 'step' ? 'step' : 'minutes', csvSeries(view));
        channel.post('export', { format: 'csv', name: `${view.spec.id}${groups ? '-grouped' : ''}.csv`, data });
      },
    }),
);
for (const view of model.charts) grid.append(view.card);

installControls();
installMessages();
channel.ready();
