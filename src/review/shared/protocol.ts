// Messages of the skill review (webview/review, src/review/skillReviewEditor.ts). See protocol.ts.
import type { ReviewState, SkillRecord } from '../../runs/shared/types';
import type { SkillProblem } from './skillFilters';
import { messageSet } from '../../webviewHost/shared/protocol';

export interface ReviewLine {
  /** 1-based line in skills.jsonl. */
  line: number;
  record?: SkillRecord;
  problem?: string;
}

export type ReviewToWebview = {
  /** The whole document's records, sent again after every change of the document (edits, undo, reload). */
  records: {
    file: string;
    run: string;
    runDir: string;
    lines: ReviewLine[];
    problems: SkillProblem[];
    /** Why decisions are refused now (a collect stage still writing), or null. */
    readOnly: string | null;
  };
  error: { message: string };
};

export type ReviewToHost = {
  decide: { id: string; state: ReviewState; text?: string; note?: string };
  /** One decision for many records (the filtered set or a group of identical skills): one edit, one undo step. */
  decideMany: { ids: string[]; state: 'accepted' | 'rejected' };
  openTrajectory: { id: string };
  /** "What if…" on the record's trajectory, starting from its skill (the edited text when edited). */
  whatIf: { id: string };
  openAsText: Record<string, never>;
  rendered: { records: number; shown: number; ms: number };
};

export const REVIEW_TO_WEBVIEW = messageSet<ReviewToWebview>({ records: true, error: true });
export const REVIEW_TO_HOST = messageSet<ReviewToHost>({ decide: true, decideMany: true, openTrajectory: true, whatIf: true, openAsText: true, rendered: true });
