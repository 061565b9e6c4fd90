// Messages of the premise report view (webview/premise, src/premise/premisePanel.ts).
import type { PremiseReport } from '../../runs/shared/generated/premise';
import { messageSet } from '../../webviewHost/shared/protocol';

/** Where a report could not be read, and why: the file, its line (JSON syntax), the field (schema), the message. */
export interface PremiseProblem {
  /** The file as the user knows it (its path). */
  file: string;
  /** `missing_file`, `invalid_json`, `unsupported_version`, `schema`, or `unreadable`. */
  kind: string;
  line?: number;
  field?: string;
  message: string;
}

export type PremiseToWebview = {
  /** A report that passed schemas/premise.schema.json. */
  report: { file: string; report: PremiseReport };
  error: PremiseProblem;
};

export type PremiseToHost = {
  /** Read the file again. */
  reload: Record<string, never>;
  /** Open the JSON file in an editor, at `line` when given. */
  openSource: { line?: number };
  /** The page has drawn a report or an error. */
  rendered: { what: 'report' | 'error' };
};

export const PREMISE_TO_WEBVIEW = messageSet<PremiseToWebview>({ report: true, error: true });
export const PREMISE_TO_HOST = messageSet<PremiseToHost>({ reload: true, openSource: true, rendered: true });
