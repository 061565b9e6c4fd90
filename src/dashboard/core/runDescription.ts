// What the dashboard page is told about a run (its protocol's DashboardRun), from the runs layer's entry. No `vscode`.
import path from 'node:path';
import type { DashboardRun } from '../shared/protocol';
import type { RunEntry } from '../../runs/core/runsCore';

export function describeRun(entry: RunEntry, title: string): DashboardRun {
  const manifest = entry.index.manifest;
  return {
    key: entry.dir,
    id: manifest?.id ?? path.basename(entry.dir),
    name: title,
    stage: manifest?.stage ?? '?',
    algorithm: manifest?.algorithm ?? '?',
    status: entry.state === 'loading' ? 'running' : entry.state,
    ...(manifest?.started ? { started: manifest.started } : {}),
    ...(manifest?.error ? { error: manifest.error } : {}),
    ...(manifest?.config ? { config: manifest.config } : {}),
  };
}
