// An experiment file's text before YAML, as the trainer reads it (trainer/seed_trainer/experiment/text.py): the
// size, UTF-8 and character checks, and positions in the text — 0-based lines and UTF-16 columns, as VS Code counts
// them — for the problems every later check reports. No `vscode` import.

export const EXPERIMENT_LIMITS = {
  maxBytes: 1_048_576,
  maxDepth: 64,
  maxAliases: 1_000,
  /** Nodes plus string characters after every alias is expanded. */
  maxExpanded: 2_000_000,
  maxInteger: Number.MAX_SAFE_INTEGER,
} as const;

export interface Position {
  line: number;
  character: number;
}

export interface TextRange {
  start: Position;
  end: Position;
}

export interface ReadProblem {
  message: string;
  range: TextRange;
  source: 'yaml' | 'limit';
}

/** Where each key path's key and value are (paths inside an alias's expansion are not recorded). */
export interface Located {
  keys: Map<string, TextRange>;
  values: Map<string, TextRange>;
}

/** Map key of a key path (keys cannot hold U+0000: control characters are refused before parsing). */
export function pathKey(path: readonly string[]): string {
  return path.join('\u0000');
}

/** Offsets → positions (UTF-16 columns, as VS Code counts them) for one text. */
export class LineMap {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low, character: clamped - (this.starts[low] ?? 0) };
  }

  offset(position: Position): number {
    const start = this.starts[Math.min(position.line, this.starts.length - 1)] ?? 0;
    return Math.min(start + position.character, this.text.length);
  }

  span(start: number, end: number): TextRange {
    return { start: this.position(start), end: this.position(end) };
  }

  /** `range` without trailing whitespace, and at least one character long (a node's range often ends after its
   *  newline; an empty one would not show). */
  trimmed(range: TextRange): TextRange {
    const start = this.offset(range.start);
    let stop = this.offset(range.end);
    while (stop > start + 1 && /\s/.test(this.text[stop - 1] ?? '')) stop -= 1;
    return { start: range.start, end: this.position(Math.max(stop, start + 1)) };
  }

  /** The first line's text, as the range of problems of the whole document. */
  firstLine(): TextRange {
    const end = this.text.indexOf('\n');
    return { start: { line: 0, character: 0 }, end: { line: 0, character: end === -1 ? this.text.length : end } };
  }
}

// The same character classes as experiment/text.py's _CONTROL (see there for why each is refused).
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|\r(?!\n)/;

export class ReadError extends Error {
  constructor(readonly problem: ReadProblem) {
    super(problem.message);
  }
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (as Python's strict decoder), or -1. */
export function firstBadUtf8Byte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b < 0x80) {
      i += 1;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f; // no UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k += 1) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

function charRange(lines: LineMap, offset: number): TextRange {
  const start = lines.position(offset);
  const code = lines.text.codePointAt(offset) ?? 0;
  return { start, end: { line: start.line, character: start.character + (code > 0xffff ? 2 : 1) } };
}

/** Control characters and tabs: the first of them, as a problem. */
export function checkCharacters(text: string, lines = new LineMap(text)): ReadProblem | undefined {
  const bad = CONTROL.exec(text);
  const tab = text.indexOf('\t');
  if (bad && (tab === -1 || bad.index < tab)) {
    const code = text.codePointAt(bad.index) ?? 0;
    return {
      message: `control character U+${code.toString(16).toUpperCase().padStart(4, '0')} is not allowed (write it as an escape in a double-quoted string)`,
      range: charRange(lines, bad.index),
      source: 'limit',
    };
  }
  if (tab !== -1) {
    return {
      message: 'tab character: indent and separate with spaces (write \\t inside a double-quoted string)',
      range: charRange(lines, tab),
      source: 'limit',
    };
  }
  return undefined;
}

const ORIGIN: TextRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** The file's bytes as text (BOM dropped), or the size / UTF-8 problem. */
export function decodeExperiment(bytes: Uint8Array): { text: string } | { problem: ReadProblem } {
  if (bytes.length > EXPERIMENT_LIMITS.maxBytes) {
    return { problem: sizeProblem(bytes.length) };
  }
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const bad = firstBadUtf8Byte(body);
  if (bad !== -1) {
    const good = new TextDecoder().decode(body.subarray(0, bad));
    const at = new LineMap(good).position(good.length);
    return {
      problem: {
        message: `not UTF-8: byte 0x${(body[bad] ?? 0).toString(16).toUpperCase().padStart(2, '0')} at byte offset ${bad} cannot be decoded (save the file as UTF-8)`,
        range: { start: at, end: { line: at.line, character: at.character + 1 } },
        source: 'limit',
      },
    };
  }
  return { text: new TextDecoder().decode(body) };
}

export function sizeProblem(bytes: number): ReadProblem {
  return {
    message: `the file is ${bytes} bytes; experiment files are limited to ${EXPERIMENT_LIMITS.maxBytes} bytes (1 MiB)`,
    range: ORIGIN,
    source: 'limit',
  };
}
