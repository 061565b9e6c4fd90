// What the notification says when a run this window follows ends well (completed or stopped), and the parts of the
// message of one that failed. A stop asked for during the last update cannot shorten it: the run then completes, and
// the message says so rather than looking as if the Stop was ignored. No `vscode` import.
import type { RunEvent, RunManifest } from '../../runs/shared/types';

function progressText(manifest: Pick<RunManifest, 'progress'> | undefined): string {
  const progress = manifest?.progress;
  return progress ? ` at ${progress.unit ?? 'step'} ${progress.step}${progress.total ? `/${progress.total}` : ''}` : '';
}

export function runEndMessage(name: string, state: 'completed' | 'stopped', manifest: Pick<RunManifest, 'progress'> | undefined, stopRequested: boolean): string {
  const progress = progressText(manifest);
  if (state === 'stopped') return `SEED: run ${name} stopped${progress}.`;
  if (stopRequested) return `SEED: run ${name} completed${progress}: the stop came during its last update, which it finished (a checkpoint is saved at the end).`;
  return `SEED: run ${name} completed${progress}.`;
}

/** The buttons of a failed or refused run's message: "Open Run Folder" only when the folder exists (a launch the
 * trainer refused before writing anything has none, and the button did nothing). */
export function failureActions(runFolderExists: boolean): string[] {
  return runFolderExists ? ['Show Log', 'Open Run Folder'] : ['Show Log'];
}

/** One event as the output channel lists it. */
export function describeEvent(event: RunEvent): string {
  return `${event.time} ${event.type}: ${event.message}`;
}

/** The last line of the trainer's log, for a failure message without events. */
export function lastLogLine(logTail: string): string {
  const line = logTail.split('\n').filter((l) => l.trim()).pop()?.trim().slice(0, 300);
  // Ended as a sentence: the message may go on after it ("… Nothing was written: …").
  return line ? ` Log: ${line}${/[.!?]$/.test(line) ? '' : '.'}` : '';
}
