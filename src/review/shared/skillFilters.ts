// The browser-safe half of the skill review's model (the review webview imports it): problem type, counts, filters.
// No vscode, no Node APIs.
import type { ReviewState, SkillRecord } from '../../runs/shared/types';

type Severity = 'error' | 'warning' | 'information';

export interface SkillProblem {
  /** 1-based line. */
  line: number;
  severity: Severity;
  message: string;
  /** The field at fault (`review.state`), when known: diagnostics point at its key. */
  field?: string;
}

export interface ReviewCounts {
  total: number;
  pending: number;
  accepted: number;
  rejected: number;
  edited: number;
  /** Records that failed format verification (whatever their review state). */
  invalid: number;
}

export function reviewCounts(records: readonly SkillRecord[]): ReviewCounts {
  const counts: ReviewCounts = { total: records.length, pending: 0, accepted: 0, rejected: 0, edited: 0, invalid: 0 };
  for (const record of records) {
    counts[record.review.state] += 1;
    if (!record.valid) counts.invalid += 1;
  }
  return counts;
}

/** Records with a decision, whatever it is: rejecting a record is reviewing it. */
function reviewedCount(counts: ReviewCounts): number {
  return counts.total - counts.pending;
}

/** The status bar's text: `3/96 reviewed · 93 pending`. */
export function reviewStatusText(counts: ReviewCounts): string {
  return `${reviewedCount(counts)}/${counts.total} reviewed · ${counts.pending} pending`;
}

export function describeCounts(counts: ReviewCounts): string {
  return `${counts.accepted} accepted · ${counts.edited} edited · ${counts.rejected} rejected · ${counts.pending} pending`;
}

export interface SkillFilter {
  outcome: 'all' | 'success' | 'failure';
  /** A task type, or 'all'. */
  taskType: string;
  state: 'all' | ReviewState;
  /** Case-insensitive text in the id, task, skill, summary or edited text. */
  text?: string;
}

export const NO_FILTER: SkillFilter = { outcome: 'all', taskType: 'all', state: 'all', text: '' };

export function matchesFilter(record: SkillRecord, filter: SkillFilter): boolean {
  if (filter.outcome === 'success' && !record.success) return false;
  if (filter.outcome === 'failure' && record.success) return false;
  if (filter.taskType !== 'all' && record.task.type !== filter.taskType) return false;
  if (filter.state !== 'all' && record.review.state !== filter.state) return false;
  const needle = filter.text?.trim().toLowerCase();
  if (needle) {
    const haystack = [record.id, record.task.id, record.task.description, record.skill, record.summary, record.review.text].filter(Boolean).join('\n').toLowerCase();
    if (!haystack.includes(needle)) return false;
  }
  return true;
}

export function taskTypes(records: readonly SkillRecord[]): string[] {
  return [...new Set(records.map((r) => r.task.type))].sort();
}

/** The skill text an SFT run would train on for this record (edited text when edited), or null when none. */
export function effectiveSkill(record: SkillRecord): string | null {
  if (!record.valid || record.review.state === 'rejected') return null;
  return record.review.state === 'edited' ? (record.review.text ?? null) : record.skill;
}


/** The records a bulk decision on `records` would change: accept only what can be trained on and is not yet accepted. */
export function bulkTargets(records: readonly SkillRecord[], state: 'accepted' | 'rejected'): SkillRecord[] {
  return records.filter((record) => record.review.state !== state && (state === 'rejected' || record.valid));
}

/** A skill's text reduced for grouping: case, whitespace, quotes and trailing punctuation do not tell skills apart. */
export function skillKey(text: string | null): string {
  return (text ?? '')
    .toLowerCase()
    .replace(/[“”"'`‘’]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[\s.,;:!]+$/g, '')
    .trim();
}

export interface SkillGroup {
  key: string;
  /** The first record's skill as written, shown for the group. */
  text: string;
  records: SkillRecord[];
}

/** Records grouped by identical or near-identical skill (skillKey), largest group first; invalid skills apart. */
export function groupSkills(records: readonly SkillRecord[]): SkillGroup[] {
  const groups = new Map<string, SkillGroup>();
  for (const record of records) {
    const key = record.valid ? skillKey(record.skill) : `\u0000invalid`;
    let group = groups.get(key);
    if (!group) {
      group = { key, text: record.valid ? (record.skill ?? '') : '(failed format verification)', records: [] };
      groups.set(key, group);
    }
    group.records.push(record);
  }
  return [...groups.values()].sort((a, b) => b.records.length - a.records.length || a.text.localeCompare(b.text));
}
