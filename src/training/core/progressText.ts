// The progress text of a live run (its notification and the status bar, which both name the run by the Runs tree's
// title): the manifest's step, the last progress event's phase, the latest training success. A model conversion
// before the first update (a converted built-in such as SmolLM2: phase `convert`) is a step of its own: its message is
// the whole text, not "update 0/3". No `vscode`.
import type { RunEvent, RunManifest } from '../../runs/shared/types';

/** The trainer is converting the model before its first update (a `convert` progress event not yet at its total). */
export function isConverting(last: RunEvent | undefined): boolean {
  return last?.type === 'progress' && last.phase === 'convert' && last.done !== last.total;
}

export function progressText(manifest: RunManifest | undefined, last: RunEvent | undefined, success: number | undefined): string {
  if (!manifest) return '';
  if (isConverting(last)) return last!.message;
  const parts: string[] = [];
  if (manifest.status === 'stopping') parts.push('stopping (checkpointing)');
  if (manifest.progress) parts.push(`${manifest.progress.unit ?? 'step'} ${manifest.progress.step}/${manifest.progress.total ?? '?'}`);
  // A finished conversion is no phase of the run any more ("convert 1/1" until the first update's event).
  if (last?.type === 'progress' && last.phase && last.phase !== 'convert') parts.push(`${last.phase} ${last.done ?? ''}${last.total ? `/${last.total}` : ''}`);
  if (success !== undefined) parts.push(`success ${(success * 100).toFixed(0)}%`);
  return parts.join(' · ');
}

/**
 * The notification's message: the run's title (the Runs tree's, `runs.title(dir)`: `household-demo · seed`), then its
 * progress. The notification's own title is only "SEED": it is fixed when the notification opens, before the trainer
 * has written run.json, when the run has no title but its id; the message follows the title the status bar shows.
 */
export function notificationMessage(title: string, progress: string): string {
  return progress ? `${title} — ${progress}` : title;
}

/** The status bar's text of the run it follows: `$(loading~spin) SEED household-demo · seed 3/30 · 40% +1`; while
 * the model converts, `… · converting the model` rather than `0/3`. */
export function statusBarText(
  title: string,
  facts: { stopping: boolean; converting?: boolean; progress?: { step: number; total: number | null }; success: string; others: number },
): string {
  const icon = facts.stopping ? '$(debug-pause)' : '$(loading~spin)';
  const step = facts.converting ? ' · converting the model' : facts.progress ? ` ${facts.progress.step}/${facts.progress.total ?? '?'}` : '';
  const more = facts.others > 0 ? ` +${facts.others}` : '';
  return `${icon} SEED ${title}${step}${facts.success}${more}`;
}
