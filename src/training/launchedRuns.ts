// The runs this workspace launched, kept in its workspace state across reloads: each one's log file, lifetime and
// pid, so a reloaded window finds their logs, follows them wherever they are, and gives them their progress back.
import type * as vscode from 'vscode';
import type { RunLifetime, RunSession } from './core/runSession';

export interface LaunchedRecord {
  logFile: string;
  lifetime: RunLifetime;
  pid: number;
}

const LAUNCHED_KEY = 'seedStudio.launchedRuns';

export class LaunchedRuns {
  constructor(private readonly state: vscode.Memento) {}

  /** Run folder → its record. */
  all(): Record<string, LaunchedRecord> {
    return this.state.get<Record<string, LaunchedRecord>>(LAUNCHED_KEY) ?? {};
  }

  async remember(session: RunSession): Promise<void> {
    const records = this.all();
    records[session.dir] = { logFile: session.logFile, lifetime: session.lifetime, pid: session.pid };
    await this.state.update(LAUNCHED_KEY, records);
  }

  async forget(dir: string): Promise<void> {
    const records = this.all();
    if (!(dir in records)) return;
    delete records[dir];
    await this.state.update(LAUNCHED_KEY, records);
  }
}
