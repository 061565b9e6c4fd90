// The feature bundle (dist/features.js): everything activation does not need, required on first use through the
// stand-ins of lazyFeatures/featureStandIns.ts. Wiring only, as extension.ts: create the remaining services and register each
// feature; the features live in their own modules.
import * as vscode from 'vscode';
import type { CoreServices, Services } from './services';
import { RunAccess } from './runs/runAccess';
import { registerSkillReview } from './review/registerSkillReview';
import { registerTrajectoryViewer } from './trajectory/registerTrajectoryViewer';
import { registerTrajectoryDiff } from './diff/registerTrajectoryDiff';
import { registerTrajectoryTable } from './trajectoryTable/trajectoryTablePanel';
import { registerSetUpTrainer } from './training/setUpTrainer';
import { registerTrainCommands } from './training/trainCommands';
import { registerExperimentLanguage } from './experiments/experimentLanguage';
import { ExperimentService } from './experiments/core/experimentService';
import { DashboardPanel, registerDashboard } from './dashboard/dashboardPanel';
import { ProbeCache } from './training/core/probeCache';
import { doctorFor } from './experiments/core/trainerDoctor';
import { registerOpenTensorBoard } from './tensorboard/openTensorBoard';
import { registerWalkthrough } from './walkthrough/registerWalkthrough';
import { registerRunsTable } from './runsTable/runsTablePanel';
import { registerEvalSamples } from './evalSamples/evalSamplesPanel';
import { registerExportCheckpoint } from './modelExport/exportCheckpoint';
import { registerPremiseReport } from './premise/premisePanel';

/** What the bundle gives the extension once loaded. */
export interface LoadedFeatures {
  services: Services;
  dashboard(): DashboardPanel | undefined;
  disposable: vscode.Disposable;
}

export function activateFeatures(context: vscode.ExtensionContext, core: CoreServices): LoadedFeatures {
  const { log, runs } = core;
  const runAccess = new RunAccess(runs);
  const probes = new ProbeCache(vscode.Uri.joinPath(context.extensionUri, 'resources', 'probe_environment.py').fsPath);
  const services: Services = { ...core, probes, doctor: doctorFor(context.extensionPath), experiments: new ExperimentService(context.extensionPath) };
  const disposable = vscode.Disposable.from(
    registerTrajectoryViewer(context, log, runAccess),
    registerTrajectoryDiff(context, log, runAccess),
    registerSkillReview(context, log, runAccess),
    registerTrajectoryTable(context, runs, log),
    registerExperimentLanguage(context, services),
    registerTrainCommands(context, services),
    registerSetUpTrainer(context, services),
    registerDashboard(context, services),
    registerOpenTensorBoard(context, services),
    registerWalkthrough(context),
    registerRunsTable(context, services),
    registerEvalSamples(context, services),
    registerExportCheckpoint(services),
    registerPremiseReport(context, services),
  );
  return { services, disposable, dashboard: () => DashboardPanel.current };
}
