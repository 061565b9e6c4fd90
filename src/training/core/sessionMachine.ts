// The life of one trainer session as a pure state machine: what the trainer host (trainerHost.ts, the VS Code
// adapter) knows about a trainer it launched or found running, and how each event from the process (spawned, spawn
// error, exit) or from the run log (run.json's status as the runs model reads it, a Stop) moves it. No `vscode` import
// and no side effects: the adapter feeds events, compares phases, and does the notifying, so every transition is
// unit-tested (test/unit/training/sessionMachine.test.ts).
import type { RunState } from '../../runs/core/runsCore';

/**
 * idle: nothing spawned yet · starting: the process runs, run.json is not written yet (or still the previous
 * trainer's, on resume) · running / stopping: the run log says the trainer is live · ended: see `outcome`.
 */
type SessionPhase = 'idle' | 'starting' | 'running' | 'stopping' | 'ended';

/** How a session ended: the run's final state, or `not-started` when the trainer never wrote its run directory. */
export type SessionOutcome = 'completed' | 'stopped' | 'failed' | 'interrupted' | 'broken' | 'not-started';

export interface SessionState {
  phase: SessionPhase;
  /** `launched`: this window spawned the trainer · `reattached`: found running (a reloaded window, a terminal run). */
  origin: 'launched' | 'reattached';
  pid: number;
  stopRequested: boolean;
  /** Resume: the pid run.json held before this trainer started (until it rewrites run.json, the run is the old one). */
  stalePid?: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  outcome?: SessionOutcome;
  /** Why it ended without a run state (spawn error). */
  reason?: string;
}

export type SessionEvent =
  /** The process was created. */
  | { type: 'spawned'; pid: number }
  /** The process could not be created (no such interpreter, permissions). */
  | { type: 'spawnFailed'; error: string }
  /** The runs model read the run: its state, and the pid and status run.json names. */
  | { type: 'run'; state: RunState; pid?: number; status?: string }
  /** The user asked for a stop (the control file is written). */
  | { type: 'stopRequested' }
  /** The process exited; `runDirWritten`: run.json exists (else the trainer never got as far as its run directory). */
  | { type: 'exit'; code: number | null; signal: NodeJS.Signals | null; runDirWritten: boolean };

/** A session about to spawn its trainer (resume: `stalePid` is the previous trainer's pid in run.json). */
export function launchedSession(stalePid?: number): SessionState {
  return { phase: 'idle', origin: 'launched', pid: 0, stopRequested: false, ...(stalePid !== undefined ? { stalePid } : {}) };
}

/** A session for a live run found on this machine (not spawned by this window). */
export function reattachedSession(pid: number, status: string): SessionState {
  const stopping = status === 'stopping';
  return { phase: stopping ? 'stopping' : 'running', origin: 'reattached', pid, stopRequested: stopping };
}

export function isEnded(state: SessionState): boolean {
  return state.phase === 'ended';
}

function ended(state: SessionState, outcome: SessionOutcome, reason?: string): SessionState {
  return { ...state, phase: 'ended', outcome, ...(reason ? { reason } : {}) };
}

/**
 * Whether a run reading still describes the previous trainer of a resumed run (run.json not rewritten yet): such
 * readings say nothing about this session, unless its process already exited (then the old state is all there is).
 */
export function isStaleReading(state: SessionState, pid: number | undefined): boolean {
  return state.stalePid !== undefined && pid === state.stalePid && !state.exit;
}

/** The next state. Events that do not apply to a phase leave the state as it is (the same object). */
export function nextSession(state: SessionState, event: SessionEvent): SessionState {
  if (state.phase === 'ended') return state; // an ended session is final: a new trainer gets a new session
  switch (event.type) {
    case 'spawned':
      return state.phase === 'idle' ? { ...state, phase: 'starting', pid: event.pid } : state;
    case 'spawnFailed':
      return state.phase === 'idle' ? ended(state, 'not-started', event.error) : state;
    case 'stopRequested':
      if (state.phase === 'idle') return state;
      return { ...state, stopRequested: true, phase: 'stopping' };
    case 'exit': {
      if (state.phase === 'idle') return state;
      const withExit = { ...state, exit: { code: event.code, signal: event.signal } };
      // Without a run directory there will be no run state to wait for: the trainer failed before it started.
      return event.runDirWritten ? withExit : ended(withExit, 'not-started');
    }
    case 'run':
      return onRunReading(state, event);
  }
}

function onRunReading(state: SessionState, event: Extract<SessionEvent, { type: 'run' }>): SessionState {
  if (state.phase === 'idle' || isStaleReading(state, event.pid)) return state;
  if (event.state === 'loading') return state;
  if (event.state === 'running' || event.state === 'stopping') {
    const pid = event.pid && event.pid !== state.pid ? event.pid : state.pid; // under torchrun: rank 0, not the launcher
    const stopping = state.stopRequested || event.status === 'stopping' || event.state === 'stopping';
    const next: SessionState = { ...state, pid, stopRequested: stopping, phase: stopping ? 'stopping' : 'running' };
    return next.phase === state.phase && next.pid === state.pid && next.stopRequested === state.stopRequested ? state : next;
  }
  return ended(state, event.state);
}
