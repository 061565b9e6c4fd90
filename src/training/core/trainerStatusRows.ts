// The TRAINER view's rows from the lines of the trainer status report (describeProbe): a short label that says what
// the line is about (`Interpreter:`, `PyTorch:`, `cuda:0`) and the rest as the description, so that at the default
// sidebar width only the description, never the label, is cut. No `vscode` import.
import { SIDEBAR_LABEL_BUDGET, shortenEnd } from '../../common/core/sidebarText';

export interface TrainerStatusRow {
  label: string;
  description: string | undefined;
}

/** `Interpreter: /x/python (Python 3.11)` → `Interpreter:` + the rest; `  cuda:0 NVIDIA H200 (…)` → `cuda:0` + the rest. */
export function trainerStatusRow(line: string): TrainerStatusRow {
  const device = /^\s*(cuda:\d+) (.*)$/.exec(line);
  if (device) return { label: device[1]!, description: device[2] };
  const colon = line.indexOf(': ');
  if (colon > 0 && colon < SIDEBAR_LABEL_BUDGET) return { label: line.slice(0, colon + 1), description: line.slice(colon + 2) };
  return { label: shortenEnd(line.trim(), SIDEBAR_LABEL_BUDGET), description: undefined };
}
