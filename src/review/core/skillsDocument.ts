// The skill review's model of a skills.jsonl text (docs/run-format.md §8), vscode-free: each line parsed and
// validated, the problems to show as diagnostics (bad lines, failed format verification, a torn tail), the review
// counts, the filters, and one review decision applied as a one-line change (the rest of the text byte-identical).
import { applySkillReviews, type ReviewDecision } from '../../runs/core/skillReview';
import { RunFormatError } from '../../runs/core/errors';
import type { RunSchemas } from '../../runs/core/schemas';
import type { RunManifest, SkillRecord } from '../../runs/shared/types';
import type { SkillProblem } from '../shared/skillFilters';

export * from '../shared/skillFilters';

interface SkillLine {
  line: number;
  record?: SkillRecord;
  /** Why the line is not a record (parse or schema error). */
  problem?: string;
}

export interface ParsedSkills {
  lines: SkillLine[];
  problems: SkillProblem[];
  records: SkillRecord[];
}

const FILE = 'skills.jsonl';

export function parseSkillsText(text: string, schemas: RunSchemas): ParsedSkills {
  const lines: SkillLine[] = [];
  const problems: SkillProblem[] = [];
  const records: SkillRecord[] = [];
  const seen = new Map<string, number>();
  const raw = text.split('\n');
  const torn = text.length > 0 && !text.endsWith('\n');
  if (!torn) raw.pop();
  raw.forEach((content, index) => {
    const line = index + 1;
    const body = content.endsWith('\r') ? content.slice(0, -1) : content;
    if (body.trim() === '') return;
    if (torn && index === raw.length - 1) {
      problems.push({ line, severity: 'warning', message: `torn last line (${body.length} characters without a newline): a writer may still be appending; it is not a record and blocks review decisions until it is complete` });
      lines.push({ line, problem: 'torn last line' });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (error) {
      const message = `${FILE}:${line}: not valid JSON: ${(error as Error).message}`;
      problems.push({ line, severity: 'error', message });
      lines.push({ line, problem: message });
      return;
    }
    let record: SkillRecord;
    try {
      record = schemas.validate('skill', value, { file: FILE, line });
    } catch (error) {
      const field = error instanceof RunFormatError ? error.field : undefined;
      const message = (error as Error).message;
      problems.push({ line, severity: 'error', message, ...(field ? { field } : {}) });
      lines.push({ line, problem: message });
      return;
    }
    const previous = seen.get(record.id);
    if (previous !== undefined) {
      problems.push({ line, severity: 'error', field: 'id', message: `${FILE}:${line}: id: ${JSON.stringify(record.id)} is already the id of line ${previous}` });
    } else {
      seen.set(record.id, line);
    }
    if (!record.valid) {
      problems.push({
        line,
        severity: 'warning',
        field: 'valid',
        message: `${FILE}:${line}: format verification failed${record.reason ? `: ${record.reason}` : ''} (never trained on)`,
      });
    }
    lines.push({ line, record });
    records.push(record);
  });
  return { lines, problems, records };
}

/** Why the skills of the run `manifest` describes may not be reviewed now: its collect stage may still append. */
export function collectingRefusal(manifest: Pick<RunManifest, 'id' | 'stage' | 'status'>): string | undefined {
  if (manifest.stage === 'collect' && (manifest.status === 'running' || manifest.status === 'stopping')) {
    return `run ${manifest.id} is still collecting: review its skills when the collect stage has finished`;
  }
  return undefined;
}

/**
 * One decision applied to the text: the 0-based line that changes and its new content (without the newline).
 * Throws the located RunFormatError of applySkillReviews (torn tail, a bad line, unknown id, refused decision).
 */
export function decideInText(text: string, id: string, decision: ReviewDecision, schemas: RunSchemas, now: Date = new Date()): { line: number; content: string } {
  const before = text.split('\n');
  const after = new TextDecoder().decode(applySkillReviews(new TextEncoder().encode(text), new Map([[id, decision]]), schemas, now)).split('\n');
  for (let index = 0; index < before.length; index += 1) {
    if (before[index] !== after[index]) return { line: index, content: after[index]! };
  }
  throw new Error(`${FILE}: the decision on ${JSON.stringify(id)} changed nothing`);
}

/**
 * Several decisions applied to the text at once (a bulk action: one edit, one undo step): every line that changes,
 * 0-based, with its new content. Throws as decideInText does; nothing is applied then.
 */
export function decideManyInText(text: string, decisions: ReadonlyMap<string, ReviewDecision>, schemas: RunSchemas, now: Date = new Date()): Array<{ line: number; content: string }> {
  const before = text.split('\n');
  const after = new TextDecoder().decode(applySkillReviews(new TextEncoder().encode(text), new Map(decisions), schemas, now)).split('\n');
  const changes: Array<{ line: number; content: string }> = [];
  for (let index = 0; index < before.length; index += 1) if (before[index] !== after[index]) changes.push({ line: index, content: after[index]! });
  return changes;
}

/** Column range of a field's key (`"review"` for `review.state`) in a line, for a diagnostic; whole line when absent. */
export function fieldRange(content: string, field: string | undefined): { start: number; end: number } {
  if (field) {
    const key = `"${field.split(/[.[]/)[0]}"`;
    const start = content.indexOf(`${key}:`);
    if (start >= 0) return { start, end: start + key.length };
  }
  const start = content.length - content.trimStart().length;
  return { start, end: Math.max(start + 1, content.trimEnd().length) };
}
