// Located errors of run files: the file (relative to the run directory), the 1-based JSONL line, the field path.
// The kinds and the field-path spelling are the same as the trainer's (seed_trainer/runlog/errors.py).

export type RunErrorKind =
  | 'missing_file'
  | 'invalid_json'
  | 'unsupported_version'
  | 'schema'
  | 'token_array'
  | 'index'
  | 'sequence' // update / step numbers that repeat or skip
  | 'consistency' // trajectories of an update the metrics lack
  | 'checkpoint'; // a checkpoint whose manifest is missing or whose files do not match it

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_/-]*$/;

/** `steps[1].tokens.gate`, `loss/pg`, `by_task_type["odd type"]`; the whole record is `''`. */
export function formatFieldPath(parts: readonly (string | number)[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (PLAIN_KEY.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** JSON Pointer (as ajv reports `instancePath`) → path parts; array indices become numbers when `value` has arrays. */
export function pointerToParts(pointer: string, value: unknown): (string | number)[] {
  if (!pointer) return [];
  const parts: (string | number)[] = [];
  let node: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      parts.push(Number(key));
      node = node[Number(key)];
    } else {
      parts.push(key);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
  }
  return parts;
}

export interface RunErrorLocation {
  /** Path relative to the run directory, POSIX separators (what expectations and records use). */
  file: string;
  /** 1-based line of a JSONL file; undefined for whole-file JSON. */
  line?: number;
  /** Field path (formatFieldPath); undefined when the record as a whole is at fault. */
  field?: string;
  /** Full path shown in the message (default: `file`). */
  path?: string;
}

export class RunFormatError extends Error {
  readonly kind: RunErrorKind;
  readonly file: string;
  readonly line: number | undefined;
  readonly field: string | undefined;
  readonly detail: string;
  readonly path: string;

  constructor(kind: RunErrorKind, where: RunErrorLocation, detail: string) {
    const path = where.path ?? where.file;
    const place = where.line === undefined ? path : `${path}:${where.line}`;
    super(`${place}:${where.field ? ` ${where.field}:` : ''} ${detail}`);
    this.name = 'RunFormatError';
    this.kind = kind;
    this.file = where.file;
    this.line = where.line;
    this.field = where.field || undefined;
    this.detail = detail;
    this.path = path;
  }
}

/** An unterminated last line (a writer mid-append, or a crash): skipped by readers and reported as a warning. */
export interface TornLine {
  kind: 'torn_line';
  file: string;
  line: number;
  /** Bytes after the last newline. */
  size: number;
  message: string;
}

export function tornLine(file: string, line: number, size: number, path = file): TornLine {
  return { kind: 'torn_line', file, line, size, message: `${path}:${line}: torn last line (${size} bytes without a newline) ignored` };
}

/** A temporary file an interrupted write left behind (`.run.json.tmp-<pid>`, `checkpoints/.tmp-step-…`). */
export interface StaleFile {
  kind: 'stale_temp';
  file: string;
  line: null;
  message: string;
}

export function staleFile(file: string): StaleFile {
  return { kind: 'stale_temp', file, line: null, message: `${file}: left behind by an interrupted write (the next resume removes it)` };
}

/** A metric name schemas/metric.schema.json does not list: a newer trainer's (a new name keeps the format version) or a
 * typo. Read, drawn in no chart; a checker reports it as a warning, once per name at its first line. */
export interface UnknownMetric {
  kind: 'unknown_metric';
  file: string;
  line: number;
  /** The metric name. */
  field: string;
  message: string;
}

export function unknownMetric(file: string, line: number, name: string): UnknownMetric {
  const message = `${file}:${line}: ${name}: not a metric name schemas/metric.schema.json lists (a newer trainer's, or a typo): read, drawn in no chart`;
  return { kind: 'unknown_metric', file, line, field: name, message };
}
