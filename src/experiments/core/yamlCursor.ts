// Where the cursor is in a block-style YAML file, from indentation alone: the key path of the mapping that holds it
// and whether a key or a value is being typed. Works on text that is mid-edit and therefore often not valid YAML,
// which is when completion is asked for. Flow style (`{a: 1}`) is not followed.
import type { Position } from './experimentText';

const KEY_LINE = /^(\s*)((?:-\s+)*)([A-Za-z_][\w-]*)\s*:(?:\s+|$)(.*)$/;

export interface CursorContext {
  kind: 'key' | 'value';
  /** Key path of the mapping that holds the key being typed (or whose value is being typed). */
  parentPath: string[];
  /** Value context: the key whose value is typed. */
  key?: string;
  /** What is typed so far at the cursor (the part a completion replaces). */
  prefix: string;
  /** Character where `prefix` starts on the cursor's line. */
  prefixStart: number;
  /** Keys the mapping already has (key context). */
  siblings: string[];
}

interface KeyLine {
  indent: number;
  key: string;
  keyStart: number;
  /** Text after the colon, comments removed and trimmed. */
  rest: string;
}

function stripComment(text: string): string {
  // A `#` starts a comment at the line start or after whitespace (not inside a plain word such as a URL fragment).
  const match = /(^|\s)#/.exec(text);
  return (match ? text.slice(0, match.index) : text).trim();
}

function parseKeyLine(line: string): KeyLine | undefined {
  const match = KEY_LINE.exec(line);
  if (!match) return undefined;
  const indent = (match[1] ?? '').length + (match[2] ?? '').length;
  return { indent, key: match[3] ?? '', keyStart: indent, rest: stripComment(match[4] ?? '') };
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#') || trimmed === '---';
}

function indentOf(line: string): number {
  return /^\s*/.exec(line)?.[0].length ?? 0;
}

/** Key path of the mapping that a line indented by `indent` at `lineIndex` belongs to. */
function parentPathAt(lines: readonly string[], lineIndex: number, indent: number): string[] {
  const path: string[] = [];
  let threshold = indent;
  for (let i = lineIndex - 1; i >= 0 && threshold > 0; i -= 1) {
    const line = lines[i] ?? '';
    if (isBlankOrComment(line)) continue;
    const lineIndent = indentOf(line);
    if (lineIndent >= threshold) continue;
    const parsed = parseKeyLine(line);
    if (!parsed || parsed.indent >= threshold) {
      // A list item (`- x`) above us at a smaller indent: we are inside a sequence the schema does not describe.
      if (/^\s*-/.test(line)) return path;
      continue;
    }
    if (parsed.rest !== '' && !/^[|>]/.test(parsed.rest)) return path; // `a: 1` cannot hold children
    path.unshift(parsed.key);
    threshold = parsed.indent;
  }
  return path;
}

function siblingKeys(lines: readonly string[], lineIndex: number, indent: number): string[] {
  const keys: string[] = [];
  const scan = (from: number, step: number): void => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const line = lines[i] ?? '';
      if (isBlankOrComment(line)) continue;
      const lineIndent = indentOf(line);
      if (lineIndent < indent) return;
      if (lineIndent > indent) continue;
      const parsed = parseKeyLine(line);
      if (parsed && parsed.indent === indent) keys.push(parsed.key);
    }
  };
  scan(lineIndex - 1, -1);
  scan(lineIndex + 1, 1);
  return keys;
}

/** What is being typed at `position`; undefined inside comments, sequences and anything else not completable. */
export function cursorContext(text: string, position: Position): CursorContext | undefined {
  const lines = text.split('\n');
  const line = (lines[position.line] ?? '').replace(/\r$/, '');
  const before = line.slice(0, position.character);
  if (/(^|\s)#/.test(before)) return undefined;
  const keyMatch = /^(\s*)([A-Za-z_][\w-]*)?$/.exec(before);
  if (keyMatch) {
    const indent = (keyMatch[1] ?? '').length;
    return {
      kind: 'key',
      parentPath: parentPathAt(lines, position.line, indent),
      prefix: keyMatch[2] ?? '',
      prefixStart: indent,
      siblings: siblingKeys(lines, position.line, indent),
    };
  }
  const valueMatch = /^(\s*)([A-Za-z_][\w-]*)\s*:\s*(["']?[^\s#"']*)$/.exec(before);
  if (valueMatch) {
    const indent = (valueMatch[1] ?? '').length;
    const prefix = valueMatch[3] ?? '';
    return {
      kind: 'value',
      parentPath: parentPathAt(lines, position.line, indent),
      key: valueMatch[2],
      prefix,
      prefixStart: position.character - prefix.length,
      siblings: [],
    };
  }
  return undefined;
}

/** The full key path of the key on `position`'s line and the key's character span (for hover). */
export function keyAt(text: string, position: Position): { path: string[]; start: number; end: number } | undefined {
  const lines = text.split('\n');
  const line = (lines[position.line] ?? '').replace(/\r$/, '');
  const parsed = parseKeyLine(line);
  if (!parsed) return undefined;
  const commentAt = /(^|\s)#/.exec(line);
  if (commentAt && position.character > commentAt.index) return undefined;
  const path = [...parentPathAt(lines, position.line, parsed.indent), parsed.key];
  return { path, start: parsed.keyStart, end: parsed.keyStart + parsed.key.length };
}
