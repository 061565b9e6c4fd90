// The note the trajectory viewer and the skill review show above a valid skill that reads as if written about another
// episode (src/runs/shared/skillRelevance.ts), so its gates are not read as this episode's lesson without a word.
import { el } from './dom';

export function mismatchNote(problems: readonly string[]): HTMLElement | null {
  if (problems.length === 0) return null;
  return el('p', { class: 'mismatch', attrs: { 'data-k': 'mismatch', role: 'note' } }, el('strong', { text: 'About another episode? ' }), problems.join(' '), ' The teacher was conditioned on it all the same.');
}
