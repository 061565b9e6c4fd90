// The progress text of a live run (its notification and the status bar, which both name the run by the Runs tree's
// title): the manifest's step, the last progress event's phase, the latest training success. A model conversion
// before the first update (a converted built-in such as SmolLM2: phase `convert`) is a step of its own: its message is
// the whole text, not "update 0/3". No `vscode`.
import type { RunEvent, RunManifest } from '../../runs/shared/types';

export function progressText(manifest: RunManifest | undefined, last: RunEvent | undefined, success: number | undefined): string {
  if (!manifest) return '';
  if (last?.type === 'progress' && last.phase === 'convert' && last.done !== last.total) return last.message;
  const parts: string[] = [];
  if (manifest.status === 'stopping') parts.push('stopping (checkpointing)');
  if (manifest.progress) parts.push(`${manifest.progress.unit ?? 'step'} ${manifest.progress.step}/${manifest.progress.total ?? '?'}`);
  if (last?.type === 'progress' && last.phase) parts.push(`${last.phase} ${last.done ?? ''}${last.total ? `/${last.total}` : ''}`);
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

/** The status bar's text of the run it follows: `$(loading~spin) SEED household-demo · seed 3/30 · 40% +1`. */
export function statusBarText(title: string, facts: { stopping: boolean; progress?: { step: number; total: number | null }; success: string; others: number }): string {
  const icon = facts.stopping ? '$(debug-pause)' : '$(loading~spin)';
  const step = facts.progress ? ` ${facts.progress.step}/${facts.progress.total ?? '?'}` : '';
  const more = facts.others > 0 ? ` +${facts.others}` : '';
  return `${icon} SEED ${title}${step}${facts.success}${more}`;
}
