// Reading a premise report (`python -m seed_trainer premise --out FILE`): the bytes decoded as UTF-8, parsed as JSON
// and validated against schemas/premise.schema.json with the run format's validators (RunSchemas, the same list the
// trainer checks its reports with). Every failure is a RunFormatError that names the file, the line (JSON syntax)
// or the field (schema), and says what is wrong. No vscode: the panel reads the bytes, the tests call this directly.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RunFormatError } from '../../runs/core/errors';
import type { RunSchemas } from '../../runs/core/schemas';
import type { PremiseReport } from '../../runs/shared/generated/premise';
import type { PremiseProblem } from '../shared/protocol';

/** The format this view reads (the schema's `format` const). */
export const PREMISE_FORMAT = 1;

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const line = before.split('\n').length;
  return { line, column: before.length - before.lastIndexOf('\n') };
}

class JsonSyntaxAt extends Error {
  constructor(readonly offset: number) {
    super(`JSON syntax error at ${offset}`);
  }
}

/**
 * The offset of the first JSON syntax error in `text` (RFC 8259), or undefined when there is none. V8's messages give
 * a position for some errors only ("Unexpected token 'x', "…" is not valid JSON" quotes the text instead).
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new JsonSyntaxAt(i);
  };
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i += 1;
  };
  const literal = (word: string): void => {
    for (const char of word) {
      if (text[i] !== char) fail();
      i += 1;
    }
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text[i] ?? '')) fail();
    while (/[0-9]/.test(text[i] ?? '')) i += 1;
  };
  const string = (): void => {
    i += 1;
    for (;;) {
      const char = text[i];
      if (char === undefined || char.charCodeAt(0) < 0x20) fail();
      if (char === '"') break;
      if (char === '\\') {
        i += 1;
        if (text[i] === 'u') {
          for (let k = 0; k < 4; k += 1) {
            i += 1;
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail();
          }
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i += 1;
    }
    i += 1;
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      i += 1;
      space();
      if (text[i] === close) {
        i += 1;
        return;
      }
      for (;;) {
        if (close === '}') {
          space();
          if (text[i] !== '"') fail();
          string();
          space();
          if (text[i] !== ':') fail();
          i += 1;
        }
        value();
        space();
        if (text[i] === ',') i += 1;
        else if (text[i] === close) break;
        else fail();
      }
      i += 1;
    } else if (char === '"') string();
    else if (char === 't') literal('true');
    else if (char === 'f') literal('false');
    else if (char === 'n') literal('null');
    else {
      if (text[i] === '-') i += 1;
      if (text[i] === '0') i += 1;
      else digits();
      if (text[i] === '.') {
        i += 1;
        digits();
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i += 1;
        if (text[i] === '+' || text[i] === '-') i += 1;
        digits();
      }
    }
  };
  try {
    value();
    space();
    return i < text.length ? i : undefined;
  } catch (error) {
    // Where the scan stopped; anything else (a stack overflow on absurd nesting): no position.
    return error instanceof JsonSyntaxAt ? error.offset : undefined;
  }
}

/** The report in `data`, validated; `filePath` names it in errors. */
export function parsePremiseReport(data: Uint8Array, filePath: string, schemas: RunSchemas): PremiseReport {
  const where = { file: path.basename(filePath), path: filePath };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new RunFormatError('invalid_json', where, 'not UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's message, without the copy of the text some of its messages quote and without its position.
    const message = (error as Error).message.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
    const offset = jsonErrorOffset(text);
    if (offset === undefined) throw new RunFormatError('invalid_json', where, `not valid JSON: ${message}`);
    const { line, column } = lineAndColumn(text, offset);
    throw new RunFormatError('invalid_json', { ...where, line }, `not valid JSON: ${message} (column ${column})`);
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (!('format' in record) && ('kind' in record || 'version' in record)) {
      throw new RunFormatError(
        'unsupported_version',
        { ...where, field: 'format' },
        `an earlier format of the premise report ("kind"/"version" instead of "format"): run \`python -m seed_trainer premise\` again to write format ${PREMISE_FORMAT}`,
      );
    }
    if (typeof record.format === 'number' && record.format !== PREMISE_FORMAT) {
      throw new RunFormatError('unsupported_version', { ...where, field: 'format' }, `format ${record.format} is not supported; this view reads format ${PREMISE_FORMAT}`);
    }
  }
  return schemas.validate('premise', value, where);
}

/** The report at `filePath` (Node's file system). */
export async function readPremiseReport(filePath: string, schemas: RunSchemas): Promise<PremiseReport> {
  let data: Buffer;
  try {
    data = await readFile(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new RunFormatError('missing_file', { file: path.basename(filePath), path: filePath }, 'file not found');
    throw error;
  }
  return parsePremiseReport(data, filePath, schemas);
}

/** What the page shows of a failure: a RunFormatError's parts, or any other error's message. */
export function problemOf(error: unknown, filePath: string): PremiseProblem {
  if (error instanceof RunFormatError) {
    return { file: error.path, kind: error.kind, message: error.detail, ...(error.line !== undefined ? { line: error.line } : {}), ...(error.field ? { field: error.field } : {}) };
  }
  return { file: filePath, kind: 'unreadable', message: error instanceof Error ? error.message : String(error) };
}
