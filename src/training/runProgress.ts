// What a followed run shows while it runs: its cancellable progress notification (Cancel stops the run), and the
// progress and success texts of that notification and of the status bar (trainerHost.ts).
import * as vscode from 'vscode';
import type { RunEntry } from '../runs/runsModel';
import type { ProgressHandle, RunSession } from './core/runSession';
import { progressText } from './core/progressText';

/** The session's progress notification, titled "SEED": each message starts with the run's title
 * (notificationMessage); `stop` asks the run to stop (Cancel). */
export function showRunProgress(session: RunSession, initial: string, stop: () => void): void {
    if (session.progress) return;
    let fractionSoFar = 0;
    let finish: () => void = () => undefined;
    let reporter: vscode.Progress<{ message?: string; increment?: number }> | undefined;
    let pending: { message: string; fraction: number | undefined } | undefined = { message: initial, fraction: undefined };
    const handle: ProgressHandle = {
      report: (message, fraction) => {
        if (!reporter) {
          pending = { message, fraction };
          return;
        }
        const increment = fraction === undefined ? 0 : Math.max(0, fraction * 100 - fractionSoFar);
        fractionSoFar += increment;
        reporter.report({ message, increment });
      },
      done: () => finish(),
    };
    session.progress = handle;
    void vscode.window.withProgress(
      // Untrusted workspace: runs are read-only, so the notification cannot stop the run.
      { location: vscode.ProgressLocation.Notification, title: 'SEED', cancellable: vscode.workspace.isTrusted },
      (progress, token) =>
        new Promise<void>((resolve) => {
          finish = resolve;
          reporter = progress;
          if (pending) handle.report(pending.message, pending.fraction);
          pending = undefined;
          token.onCancellationRequested(() => {
            // Cancel = stop the run (it checkpoints); the notification closes, the status bar keeps following it.
            if (!session.ended) stop();
            if (session.progress === handle) session.progress = undefined;
            resolve();
          });
        }),
    );
  }

function latestSuccessValue(entry: RunEntry | undefined): number | undefined {
  const rows = entry?.index.metrics ?? [];
  for (let i = rows.length - 1; i >= 0; i -= 1) {
    const value = rows[i]?.['success/overall'];
    if (rows[i]?.kind !== 'eval' && typeof value === 'number') return value;
  }
  return undefined;
}

export function latestSuccess(entry: RunEntry | undefined): string {
  const value = latestSuccessValue(entry);
  return value === undefined ? '' : ` · ${(value * 100).toFixed(0)}%`;
}

export function progressFraction(entry: RunEntry): number | undefined {
  const progress = entry.index.manifest?.progress;
  return progress && progress.total ? Math.min(1, progress.step / progress.total) : undefined;
}

export function progressMessage(entry: RunEntry): string {
  return progressText(entry.index.manifest, entry.index.lastEvent, latestSuccessValue(entry));
}
