// The objects features share. The core ones are created at activation (extension.ts); the rest when the feature
// bundle loads (features.ts), which hands the whole set to each feature's register…(context, services).
import type * as vscode from 'vscode';
import type { ExperimentService } from './experiments/core/experimentService';
import type { ProbeCache } from './training/core/probeCache';
import type { DoctorCache } from './experiments/core/trainerDoctor';
import type { TrainerHost } from './training/trainerHost';
import type { RunsModel } from './runs/runsModel';

/** What activation creates: the log, the runs of the workspace, the trainer host (live runs, status bar). */
export interface CoreServices {
  log: vscode.LogOutputChannel;
  runs: RunsModel;
  trainer: TrainerHost;
}

export interface Services extends CoreServices {
  experiments: ExperimentService;
  probes: ProbeCache;
  /** What the trainer's Python can run (extras, environment data), asked on first need. */
  doctor: DoctorCache;
}
