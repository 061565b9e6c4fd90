// Review decisions go into skills.jsonl itself so they are git-diffable: only the `review` object of the decided
// records changes, and every other line stays byte-identical (docs/run-format.md §skills.jsonl). The skill review
// applies them to the open document (src/review/reviewDecisions.ts), refused while a collect stage may still append.
import { RunFormatError } from './errors';
import { parseJsonLine } from './jsonl';
import { RUN_FILES } from './runFiles';
import type { RunSchemas } from './schemas';
import type { ReviewState, SkillReview } from '../shared/types';

export interface ReviewDecision {
  state: ReviewState;
  /** The edited skill; required (non-empty) for `edited`, dropped otherwise. */
  text?: string;
  note?: string;
}

/**
 * The new content of skills.jsonl with `decisions` (by record id) applied. Throws a located RunFormatError for a
 * torn last line (a writer is still appending), a bad line, an unknown id or a decision the schema refuses.
 */
export function applySkillReviews(
  data: Uint8Array,
  decisions: ReadonlyMap<string, ReviewDecision>,
  schemas: RunSchemas,
  now: Date = new Date(),
  where: { file: string; path?: string } = { file: RUN_FILES.skills },
): Uint8Array {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  if (text.length > 0 && !text.endsWith('\n')) {
    const line = text.split('\n').length;
    throw new RunFormatError('invalid_json', { ...where, line }, 'torn last line: the file is still being written; try again when the stage has finished');
  }
  const lines = text.split('\n');
  lines.pop(); // the empty string after the final newline
  const pending = new Map(decisions);
  const out = lines.map((raw, index) => {
    if (raw.trim() === '') return raw;
    const line = index + 1;
    const record = schemas.validate('skill', parseJsonLine(new TextEncoder().encode(raw), where, line), { ...where, line });
    const decision = pending.get(record.id);
    if (!decision) return raw;
    pending.delete(record.id);
    const review: SkillReview = { state: decision.state };
    if (decision.state === 'edited') review.text = decision.text ?? '';
    review.time = now.toISOString();
    if (decision.note) review.note = decision.note;
    const updated = schemas.validate('skill', { ...record, review }, { ...where, line });
    return JSON.stringify(updated);
  });
  const unknown = [...pending.keys()];
  if (unknown.length > 0) {
    throw new RunFormatError('schema', { ...where, field: 'id' }, `no record with id ${unknown.map((id) => JSON.stringify(id)).join(', ')}`);
  }
  return new TextEncoder().encode(out.map((line) => `${line}\n`).join(''));
}
