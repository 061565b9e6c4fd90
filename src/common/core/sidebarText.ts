// Text for a row of a sidebar tree. At VS Code's default sidebar width (300 px) the workbench cuts a row's text with an
// ellipsis, the description after the label first. Labels are kept within a budget of characters, shortened here
// where they must fit. No `vscode` import.

/**
 * Characters (code points) of a top-level tree label that the default sidebar width shows whole. Measured in
 * code-server (test/ui/dashboardCompare.ts): 233 px of room for a run's label, whose characters take 7.2 px each on
 * average (`household-seed · seed · stopped`: 31 characters in 224 px). Labels of digits and capitals are wider.
 */
export const SIDEBAR_LABEL_BUDGET = 31;

/** Code points, which is what a label's width goes by (not UTF-16 units). */
export function textLength(text: string): number {
  return Array.from(text).length;
}

/** `text` in at most `max` code points, its middle replaced by an ellipsis when longer. */
export function shortenMiddle(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const keep = Math.max(0, max - 1);
  const head = Math.ceil(keep / 2);
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (keep - head)).join('')}`;
}

/** `text` in at most `max` code points, its end replaced by an ellipsis when longer. */
export function shortenEnd(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** `text` in at most `max` code points, its start replaced by an ellipsis when longer. */
export function shortenStart(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `…${chars.slice(chars.length - Math.max(0, max - 1)).join('')}`;
}
