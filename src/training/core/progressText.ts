// The progress text of a live run (its notification and the status bar): the manifest's step, the last progress
// event's phase, the latest training success. A model conversion before the first update (a converted built-in such
// as SmolLM2: phase `convert`) is a step of its own: its message is the whole text, not "update 0/3". No `vscode`.
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
