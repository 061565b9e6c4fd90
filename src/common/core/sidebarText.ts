// Text for a row of a sidebar tree. At VS Code's default sidebar width (about 300 px) a row shows some 36 characters of
// its label before the workbench cuts it with an ellipsis, and the description after the label is cut first. Labels
// are kept within that budget, shortened here where a label must fit. No `vscode` import.

/** Characters (code points) of a tree label that the default sidebar width shows whole, icon and indent included. */
export const SIDEBAR_LABEL_BUDGET = 36;

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
