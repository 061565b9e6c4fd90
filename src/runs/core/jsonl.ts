// JSON Lines reading: complete lines only. A last line without its newline is a writer mid-append (or a crash): it
// is not a record, it is reported as a TornLine. `JsonlTail` follows a growing file, reading only the new bytes.
import { open, readFile } from 'node:fs/promises';
import { RunFormatError, tornLine, type TornLine } from './errors';

interface JsonlRecord<T> {
  line: number;
  value: T;
}

export interface JsonlParse<T> {
  records: JsonlRecord<T>[];
  torn?: TornLine;
}

/** Checks one parsed line (e.g. against its schema) and returns it typed; throws RunFormatError when it is bad. */
export type RecordValidator<T> = (value: unknown, line: number) => T;

export interface JsonlSource {
  /** Path relative to the run directory (how errors name the file). */
  file: string;
  /** Full path for messages; default `file`. */
  path?: string;
}

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function isBlank(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== NEWLINE) return false;
  return true;
}

/** Parses one complete line; throws an `invalid_json` RunFormatError naming file and line. */
export function parseJsonLine(bytes: Uint8Array, source: JsonlSource, line: number): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new RunFormatError('invalid_json', { ...source, line }, 'not UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RunFormatError('invalid_json', { ...source, line }, `not valid JSON: ${(error as Error).message}`);
  }
}

interface Split {
  lines: { line: number; bytes: Uint8Array }[];
  /** Bytes consumed: up to and including the last newline. */
  consumed: number;
  torn?: TornLine;
}

function splitLines(data: Uint8Array, source: JsonlSource, firstLine: number): Split {
  const lines: Split['lines'] = [];
  let start = 0;
  let line = firstLine;
  for (let i = data.indexOf(NEWLINE); i !== -1; i = data.indexOf(NEWLINE, start)) {
    const bytes = data.subarray(start, i + 1);
    if (!isBlank(bytes)) lines.push({ line, bytes });
    line += 1;
    start = i + 1;
  }
  const rest = data.subarray(start);
  const torn = isBlank(rest) ? undefined : tornLine(source.file, line, rest.length, source.path);
  return { lines, consumed: start, torn };
}

/** Every complete record of JSONL `data`; the first bad complete line throws (file, line, field). */
export function parseJsonl<T = unknown>(
  data: Uint8Array | string,
  source: JsonlSource,
  validate?: RecordValidator<T>,
): JsonlParse<T> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const split = splitLines(bytes, source, 1);
  const records = split.lines.map(({ line, bytes: raw }) => {
    const value = parseJsonLine(raw, source, line);
    return { line, value: validate ? validate(value, line) : (value as T) };
  });
  return split.torn ? { records, torn: split.torn } : { records };
}

/** `parseJsonl` of a file; a file that does not exist reads as empty. */
export async function readJsonlFile<T = unknown>(
  filePath: string,
  source: JsonlSource,
  validate?: RecordValidator<T>,
): Promise<JsonlParse<T>> {
  let data: Buffer;
  try {
    data = await readFile(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [] };
    throw error;
  }
  return parseJsonl(data, { path: filePath, ...source }, validate);
}

export interface TailChunk<T> {
  /** Records completed since the previous read. */
  records: JsonlRecord<T>[];
  /** Bad complete lines since the previous read: skipped (never re-read), reported here. */
  errors: RunFormatError[];
  /** The current unterminated last line, if any: not consumed, re-read when its newline arrives. */
  torn?: TornLine;
  /** True when the file shrank or was replaced, so reading restarted from its beginning. */
  reset: boolean;
}

/**
 * Follows one JSONL file as it grows: each `read()` reads only the bytes after the last complete line it returned.
 * A missing file reads as nothing yet. For a live view, call `read()` on a file-watcher event or a timer.
 */
export class JsonlTail<T = unknown> {
  /** Byte offset just after the last complete line returned. */
  offset = 0;
  /** Lines (complete, including blank ones) consumed so far. */
  lines = 0;
  private inode: number | undefined;

  constructor(
    readonly filePath: string,
    readonly source: JsonlSource,
    private readonly validate?: RecordValidator<T>,
  ) {}

  reset(): void {
    this.offset = 0;
    this.lines = 0;
    this.inode = undefined;
  }

  async read(): Promise<TailChunk<T>> {
    let handle;
    try {
      handle = await open(this.filePath, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        const reset = this.offset > 0;
        this.reset();
        return { records: [], errors: [], reset };
      }
      throw error;
    }
    try {
      const stat = await handle.stat();
      let reset = false;
      if (stat.size < this.offset || (this.inode !== undefined && stat.ino !== this.inode)) {
        this.reset();
        reset = true;
      }
      this.inode = stat.ino;
      const length = stat.size - this.offset;
      if (length <= 0) return { records: [], errors: [], reset };
      const data = Buffer.alloc(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(data, filled, length - filled, this.offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      const source = { path: this.filePath, ...this.source };
      const split = splitLines(data.subarray(0, filled), source, this.lines + 1);
      const records: JsonlRecord<T>[] = [];
      const errors: RunFormatError[] = [];
      for (const { line, bytes } of split.lines) {
        try {
          const value = parseJsonLine(bytes, source, line);
          records.push({ line, value: this.validate ? this.validate(value, line) : (value as T) });
        } catch (error) {
          if (!(error instanceof RunFormatError)) throw error;
          errors.push(error);
        }
      }
      const consumedText = data.subarray(0, split.consumed);
      let newlines = 0;
      for (const byte of consumedText) if (byte === NEWLINE) newlines += 1;
      this.lines += newlines;
      this.offset += split.consumed;
      return split.torn ? { records, errors, torn: split.torn, reset } : { records, errors, reset };
    } finally {
      await handle.close();
    }
  }
}
