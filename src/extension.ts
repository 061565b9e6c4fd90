// Activation: what the first paint needs — the runs of the workspace, the Runs and Trainer views, the trainer host
// (live runs, status bar) — and stand-ins for everything else (lazyFeatures/featureStandIns.ts), which lives in the feature bundle
// (features.ts, dist/features.js) required on first use. Features live in their own modules.
import * as vscode from 'vscode';
import { registerShowTrainerStatus } from './training/showTrainerStatus';
import type { DashboardPanel } from './dashboard/dashboardPanel';
import type { Services } from './services';
import { TrainerHost } from './training/trainerHost';
import { RunsTreeProvider, registerRunsTree } from './runsTree/runsTree';
import { RunsModel } from './runs/runsModel';
import { FeatureStandIns, requireFeatureBundle } from './lazyFeatures/featureStandIns';
import type * as FeatureBundle from './features';

/** What activate() returns, for the integration tests: the shared services (reading them loads the features). */
export interface SeedStudioApi {
  readonly services: Services;
  dashboard(): DashboardPanel | undefined;
  runsTree(): RunsTreeProvider | undefined;
}

let trainer: TrainerHost | undefined;

export function activate(context: vscode.ExtensionContext): SeedStudioApi {
  const log = vscode.window.createOutputChannel('SEED Studio', { log: true });
  context.subscriptions.push(log, registerShowTrainerStatus(context, log));
  const runs = new RunsModel(context.extensionPath, log);
  trainer = new TrainerHost(context, runs, log);
  const core = { log, runs, trainer };
  const features = new FeatureStandIns(log, () => (requireFeatureBundle() as typeof FeatureBundle).activateFeatures(context, core));
  context.subscriptions.push(runs, trainer, registerRunsTree(context, core), features);
  // The first scan of the workspace's runs, and the reattach to live trainers, happen after activation returns.
  setTimeout(() => void runs.start().then(() => trainer?.attachLiveRuns()), 0);
  return {
    get services() {
      return features.features().services;
    },
    dashboard: () => features.current?.dashboard(),
    runsTree: () => RunsTreeProvider.current,
  };
}

/** Runs whose lifetime the window owns are stopped here; detached runs go on and are reattached next time. */
export function deactivate(): Promise<void> | undefined {
  return trainer?.shutdown();
}
