// The dashboard's redraw hands chart.js datasets in the objects it already holds. chart.js keys a dataset's controller
// and its point elements on the dataset object, so a new object per redraw (what webview/dashboard/datasets.ts builds)
// makes it rebuild both for every series on every live update: with 5 runs of 200 000 points overlaid, thousands of
// point elements made and dropped per update (bench/extension/extension.mjs --only overlaid).

/**
 * `next`, where a dataset at the same place in `previous` has the same label, in that earlier object with its
 * properties replaced by the new one's (those the new one lacks deleted): what is drawn is exactly `next`.
 */
export function reuseDatasets<T extends { label?: string }>(previous: readonly T[], next: T[]): T[] {
  return next.map((dataset, index) => {
    const old = previous[index];
    if (!old || old === dataset || old.label !== dataset.label) return dataset;
    const target = old as Record<string, unknown>;
    for (const key of Object.keys(target)) if (!(key in dataset)) delete target[key];
    Object.assign(target, dataset);
    return old;
  });
}
