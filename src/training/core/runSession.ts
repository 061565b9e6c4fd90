// One trainer this window follows (trainerHost.ts): the launch request, the session's state machine state and the
// handles the host keeps (its child process, its progress notification). No `vscode` import.
import type { ChildProcess } from 'node:child_process';
import type { TrainerCommand } from '../../runs/core/trainerProcess';
import { isEnded, nextSession, type SessionEvent, type SessionState } from './sessionMachine';

/** `detached`: the run outlives the window (reattached on reload). `window`: stopped when the window closes. */
export type RunLifetime = 'detached' | 'window';

export interface LaunchRequest {
  command: Exclude<TrainerCommand, 'resume'>;
  experiment: string;
  /** The experiment's name and runs folder (resolved), for the run id and directory. */
  name: string;
  runsDir: string;
  python: string;
  gpus?: number[];
  lifetime?: RunLifetime;
  /** Stage options (`--split`, `--checkpoint`, `--data`). */
  extraArgs?: string[];
}

/** One trainer this window follows: the state machine's state (sessionMachine.ts) and what the adapter holds. */
export class RunSession {
  state: SessionState;
  child?: ChildProcess;
  progress?: ProgressHandle;

  constructor(
    readonly dir: string,
    readonly runId: string,
    readonly logFile: string,
    readonly lifetime: RunLifetime,
    initial: SessionState,
  ) {
    this.state = initial;
  }

  /** Feeds one event; true when it ended the session. */
  apply(event: SessionEvent): boolean {
    const wasEnded = isEnded(this.state);
    this.state = nextSession(this.state, event);
    return !wasEnded && isEnded(this.state);
  }

  get pid(): number {
    return this.state.pid;
  }

  /** Started by this window (not found running on activation). */
  get launchedHere(): boolean {
    return this.state.origin === 'launched';
  }

  get stopRequested(): boolean {
    return this.state.stopRequested;
  }

  get ended(): boolean {
    return isEnded(this.state);
  }

  get exit(): SessionState['exit'] {
    return this.state.exit;
  }
}

export interface ProgressHandle {
  report(message: string, fraction: number | undefined): void;
  done(): void;
}
