// Review decisions go into skills.jsonl itself so they are git-diffable: the file is rewritten whole (temp + rename),
// only the `review` object of the decided records changes, and every other line stays byte-identical. Refused while
// a collect stage may still append to it (docs/run-format.md §skills.jsonl).
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from './atomicWrite';
import { RunFormatError } from './errors';
import { parseJsonLine } from './jsonl';
import { RUN_FILES, runPaths } from './runFiles';
import { readManifest } from './runReader';
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

/** Applies review decisions to `<runDir>/skills.jsonl` atomically; refuses while a collect stage is running. */
export async function writeSkillReviews(
  runDir: string,
  decisions: ReadonlyMap<string, ReviewDecision>,
  schemas: RunSchemas,
  now: Date = new Date(),
): Promise<void> {
  const manifest = await readManifest(runDir, schemas);
  if (manifest.stage === 'collect' && (manifest.status === 'running' || manifest.status === 'stopping')) {
    throw new Error(`run ${manifest.id} is still collecting: review its skills when the collect stage has finished`);
  }
  const filePath = runPaths(runDir).skills;
  const data = await readFile(filePath);
  await writeFileAtomic(filePath, applySkillReviews(data, decisions, schemas, now, { file: RUN_FILES.skills, path: filePath }));
}
