// The objects features share, created once in extension.ts and handed to each feature's register…(context, services).
import type * as vscode from 'vscode';
import type { ExperimentService } from './experiments/core/experimentService';
import type { ProbeCache } from './training/core/probeCache';
import type { DoctorCache } from './experiments/core/trainerDoctor';
import type { TrainerHost } from './training/trainerHost';
import type { RunsModel } from './runs/runsModel';

export interface Services {
  log: vscode.LogOutputChannel;
  runs: RunsModel;
  trainer: TrainerHost;
  experiments: ExperimentService;
  probes: ProbeCache;
  /** What the trainer's Python can run (extras, environment data), asked on first need. */
  doctor: DoctorCache;
}
