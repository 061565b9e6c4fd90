// Wiring only: create the shared services and register each feature. Features live in their own modules.
import * as vscode from 'vscode';
import { registerShowTrainerStatus } from './training/showTrainerStatus';
import { registerSkillReview } from './review/registerSkillReview';
import { RunAccess } from './runs/runAccess';
import { registerTrajectoryViewer } from './trajectory/registerTrajectoryViewer';
import { registerTrajectoryTable } from './table/tablePanel';
import { registerSetUpTrainer } from './training/setUpTrainer';
import { registerTrainCommands } from './training/trainCommands';
import { registerExperimentLanguage } from './experiments/experimentLanguage';
import { ExperimentService } from './experiments/core/experimentService';
import { DashboardPanel, registerDashboard } from './dashboard/dashboardPanel';
import type { Services } from './services';
import { ProbeCache } from './training/core/probeCache';
import { doctorFor } from './experiments/core/trainerDoctor';
import { TrainerHost } from './training/trainerHost';
import { RunsTreeProvider, registerRunsTree } from './runsTree/runsTree';
import { RunsModel } from './runs/runsModel';
import { registerOpenTensorBoard } from './tensorboard/openTensorBoard';
import { registerWalkthrough } from './walkthrough/registerWalkthrough';
import { registerRunsTable } from './runsTable/runsTablePanel';
import { registerEvalSamples } from './evalSamples/evalSamplesPanel';

/** What activate() returns: the shared services, for the integration tests. */
export interface SeedStudioApi {
  services: Services;
  dashboard(): DashboardPanel | undefined;
  runsTree(): RunsTreeProvider | undefined;
}

let trainer: TrainerHost | undefined;

export function activate(context: vscode.ExtensionContext): SeedStudioApi {
  const log = vscode.window.createOutputChannel('SEED Studio', { log: true });
  context.subscriptions.push(log, registerShowTrainerStatus(context, log));
  const runs = new RunsModel(context.extensionPath, log);
  const runAccess = new RunAccess(runs);
  context.subscriptions.push(registerTrajectoryViewer(context, log, runAccess), registerSkillReview(context, log, runAccess), registerTrajectoryTable(context, runs, log));

  trainer = new TrainerHost(context, runs, log);
  const probes = new ProbeCache(vscode.Uri.joinPath(context.extensionUri, 'resources', 'probe_environment.py').fsPath);
  const services: Services = { log, runs, trainer, probes, doctor: doctorFor(context.extensionPath), experiments: new ExperimentService(context.extensionPath) };
  context.subscriptions.push(runs, trainer, registerExperimentLanguage(context, services), registerTrainCommands(context, services));
  context.subscriptions.push(registerSetUpTrainer(context, services), registerRunsTree(context, services), registerDashboard(context, services));
  context.subscriptions.push(registerOpenTensorBoard(context, services), registerWalkthrough(context));
  context.subscriptions.push(registerRunsTable(context, services), registerEvalSamples(context, services));
  // The first scan of the workspace's runs, and the reattach to live trainers, happen after activation returns.
  setTimeout(() => void runs.start().then(() => trainer?.attachLiveRuns()), 0);
  return { services, dashboard: () => DashboardPanel.current, runsTree: () => RunsTreeProvider.current };
}

/** Runs whose lifetime the window owns are stopped here; detached runs go on and are reattached next time. */
export function deactivate(): Promise<void> | undefined {
  return trainer?.shutdown();
}
