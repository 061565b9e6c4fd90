// How wide a tree row's text is drawn, so that a label and its description can be fitted to the sidebar together: at
// VS Code's default sidebar width the workbench cuts a row with an ellipsis, the description first, and the description
// is where a run's result and a before → after change are. The widths are those of DejaVu Sans, the font code-server
// draws the workbench with on Linux, where test/ui measures the rows; the UI fonts of macOS and Windows are narrower, so
// a row that fits here fits there. No `vscode` import.

/** Advance widths in em, rounded up, by character; anything not listed counts 1 em (1.25 outside the BMP: emoji). */
const EM_CLASSES: ReadonlyArray<[chars: string, em: number]> = [
  ["'ijl", 0.28],
  ['IJ', 0.3],
  [' ,.·', 0.32],
  ['/:;\\|', 0.34],
  ['f', 0.35],
  ['-', 0.37],
  ['()[]rt', 0.4],
  ['!', 0.41],
  ['"', 0.46],
  ['*_`–', 0.5],
  ['sz', 0.53],
  ['?', 0.54],
  ['c', 0.55],
  ['L', 0.56],
  ['Fk', 0.58],
  ['Tvxy', 0.6],
  ['P', 0.61],
  ['Yaeo', 0.62],
  ['0123456789$ESbdghnpqu{}', 0.64],
  ['K', 0.66],
  ['BVXZ', 0.69],
  ['CR', 0.7],
  ['A', 0.72],
  ['U', 0.74],
  ['N', 0.75],
  ['H', 0.76],
  ['&DG', 0.78],
  ['OQ', 0.79],
  ['w', 0.82],
  ['#+<=>^~→✓−×', 0.84],
  ['M', 0.87],
  ['%', 0.96],
  ['m', 0.98],
  ['W', 0.99],
];
const EM = new Map(EM_CLASSES.flatMap(([chars, em]) => Array.from(chars, (c): [string, number] => [c, em])));

/** A tree label's font size (px); the description is drawn at 0.9 of it, after a margin of half its own size. */
const LABEL_PX = 13;
const DESCRIPTION_PX = LABEL_PX * 0.9;
const DESCRIPTION_GAP_PX = DESCRIPTION_PX / 2;

/**
 * The room (px) a top-level row of a sidebar tree gives its label and description at VS Code's default sidebar width
 * (300 px), measured in code-server (test/ui/runsTables.ts); each level deeper indents by 8 px.
 */
const TOP_LEVEL_ROOM_PX = 233;
const INDENT_PX = 8;

export function rowRoom(level: number): number {
  return TOP_LEVEL_ROOM_PX - INDENT_PX * (level - 1);
}

function em(text: string): number {
  let total = 0;
  for (const char of text) total += EM.get(char) ?? ((char.codePointAt(0) ?? 0) > 0xffff ? 1.25 : 1);
  return total;
}

export function labelWidth(label: string): number {
  return em(label) * LABEL_PX;
}

/** The room a description takes after its label: its margin and its text; nothing when empty. */
export function descriptionWidth(description: string): number {
  return description ? DESCRIPTION_GAP_PX + em(description) * DESCRIPTION_PX : 0;
}

export function rowWidth(label: string, description: string): number {
  return labelWidth(label) + descriptionWidth(description);
}

/** The longest of `shorten(text, n)` for n from the text's length down to `least` whose `width` is at most `room`;
 * undefined when not even `least` characters fit. */
export function longestFitting(text: string, room: number, width: (text: string) => number, shorten: (text: string, max: number) => string, least = 1): string | undefined {
  for (let n = Array.from(text).length; n >= least; n -= 1) {
    const shortened = shorten(text, n);
    if (width(shortened) <= room) return shortened;
  }
  return undefined;
}
