// The objects features share, created once in extension.ts and handed to each feature's register…(context, services).
import type * as vscode from 'vscode';
import type { ExperimentService } from './experiments/experimentService';
import type { ProbeCache } from './trainer/probeCache';
import type { TrainerHost } from './trainer/trainerHost';
import type { RunsModel } from './runsModel';

export interface Services {
  log: vscode.LogOutputChannel;
  runs: RunsModel;
  trainer: TrainerHost;
  experiments: ExperimentService;
  probes: ProbeCache;
}
