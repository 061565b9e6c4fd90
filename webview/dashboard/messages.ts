// The host's messages: which runs are overlaid, their metrics rows, status changes and evaluation reports.
import { finalMetrics } from '../../src/dashboard/shared/runComparison';
import { ingest, markAllDirty, markPanelsDirty, scheduleRender } from './render';
import { channel, model, saveState, state } from './state';
import { describeStatus, fillGroupSelect, fillRunsSelect } from './toolbar';

export function installMessages(): void {
  channel
    .on('runs', (params) => {
      model.overlaid = params.overlaid;
      model.available = params.available;
      const keep = new Set(model.overlaid.map((run) => run.key));
      for (const key of [...model.runs.keys()]) if (!keep.has(key)) model.runs.delete(key);
      for (const run of model.overlaid) {
        const data = model.runs.get(run.key);
        if (data) data.run = run;
        else model.runs.set(run.key, { run, series: new Map(), strips: new Map(), points: 0, origin: run.started ? Date.parse(run.started) : undefined, final: finalMetrics([]), evaluations: [], beforeAfter: [] });
      }
      state.runs = model.overlaid.map((run) => run.key);
      saveState();
      fillRunsSelect();
      fillGroupSelect();
      describeStatus();
      markAllDirty();
    })
    .on('metrics', ingest)
    .on('status', (params) => {
      for (const run of [...model.overlaid, ...model.available]) {
        if (run.key !== params.run) continue;
        run.status = params.status;
        if (params.error) run.error = params.error;
      }
      describeStatus();
      markPanelsDirty();
      scheduleRender();
    })
    .on('evaluations', (params) => {
      const data = model.runs.get(params.run);
      if (!data) return;
      data.evaluations = params.reports;
      data.beforeAfter = params.beforeAfter ?? [];
      markAllDirty();
    });
}
