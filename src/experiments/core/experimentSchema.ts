// Experiment files (`*.seed.yaml`) against schemas/experiment.schema.json, without `vscode`: the shared reading
// rules of experimentText.ts and experimentYaml.ts, then ajv with each schema violation mapped back onto the YAML
// node, worded as the trainer's `validate` words it (trainer/seed_trainer/experiment/check.py), and what the schema
// says about a key path (hover, completion). Positions are 0-based {line, character}, as in VS Code. Work is linear
// in the file: one pass to read it, one to validate, a map lookup per problem, and at most MAX_PROBLEMS problems.
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { loadAjv2020 } from '../../common/core/lazyRequire';
import {
  LineMap,
  ReadError,
  decodeExperiment,
  pathKey,
  type Located,
  type Position,
  type TextRange,
} from './experimentText';
import { readExperimentText } from './experimentYaml';
import { DID_YOU_MEAN, closest, condenseErrors } from './schemaErrors';

/** Problems reported per file, first by position. */
const MAX_PROBLEMS = 100;

export interface ExperimentProblem {
  /** `rollout.group_size: must be >= 1`: the field path first, as the trainer spells its errors. */
  message: string;
  range: TextRange;
  severity: 'error' | 'warning';
  /** Dotted key path of the field ('' for the document). */
  field: string;
  source: 'yaml' | 'limit' | 'schema' | 'environment';
  /** A machine-readable kind for code actions (`missing-extra`, `did-you-mean`). */
  code?: string;
  /** With code `did-you-mean`: the text that replaces `range` (the known key or the allowed value nearest). */
  replacement?: string;
}

/** The parts of a JSON Schema this module reads. */
export interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  if?: JsonSchema;
  then?: JsonSchema;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  /** Vendor keywords (annotations ajv ignores), e.g. the environment catalog on `environment.name`. */
  [extension: `x-${string}`]: unknown;
}

/** What the schema says about one key: for hover and completion. */
export interface FieldInfo {
  path: string[];
  description?: string;
  default?: unknown;
  /** `integer ≥ 1`, `"auto" | "cuda" | "cpu"`, `object`, … */
  typeText: string;
  /** Literal values the field accepts (enum, const, booleans, null). */
  values: unknown[];
  /** The field holds a mapping (its completion inserts a nested block). */
  isObject: boolean;
  required: boolean;
}

function pointerParts(pointer: string): string[] {
  return pointer ? pointer.slice(1).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')) : [];
}

/** `FILE:LINE:COLUMN: message` (1-based), as the trainer's `validate` prints a problem. */
export function problemLine(file: string, problem: ExperimentProblem): string {
  return `${file}:${problem.range.start.line + 1}:${problem.range.start.character + 1}: ${problem.message}`;
}

type Target = 'key' | 'value' | 'parentKey';

function samePosition(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}

function comparePositions(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/**
 * Where a problem goes (the trainer's _Locator does the same): an unknown key on the key, a missing key on the key
 * of the mapping that lacks it, a bad value on the value (on its key when the value is empty), and a path that goes
 * through an alias on the deepest part of it that is written in the file.
 */
function spanAt(located: Located, lines: LineMap, path: readonly string[], target: Target, field: readonly string[]): TextRange {
  let depth = 0;
  while (depth < path.length) {
    const key = pathKey(path.slice(0, depth + 1));
    if (!located.keys.has(key) && !located.values.has(key)) break;
    depth += 1;
  }
  let found: TextRange | undefined;
  const exact = pathKey(path);
  if (target === 'key' && depth === path.length) found = located.keys.get(pathKey(field));
  else if (target === 'parentKey') found = depth === path.length && path.length > 0 ? located.keys.get(exact) : undefined;
  else if (depth === path.length) {
    const value = located.values.get(exact);
    found = value && !samePosition(value.start, value.end) ? value : (located.keys.get(exact) ?? value);
  } else if (depth > 0) {
    const prefix = pathKey(path.slice(0, depth));
    found = located.keys.get(prefix) ?? located.values.get(prefix);
  }
  return found ?? lines.firstLine();
}

function formatValue(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

function plural(type: string): string {
  return type === 'null' ? 'null' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

export class ExperimentSchema {
  private readonly validateFn: ValidateFunction;

  constructor(readonly schema: JsonSchema) {
    const Ajv2020 = loadAjv2020();
    // verbose: an error carries the value it refused (error.data), for the enum's "did you mean".
    const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true, verbose: true });
    this.validateFn = ajv.compile(schema);
  }

  // ---- validation -------------------------------------------------------------------------------------------------

  /** Every problem of an experiment file's text: the first reading problem (then nothing else), else schema violations. */
  validate(text: string): ExperimentProblem[] {
    let data;
    try {
      data = readExperimentText(text);
    } catch (error) {
      if (!(error instanceof ReadError)) throw error;
      return [{ ...error.problem, severity: 'error', field: '' }];
    }
    const { value, located, lines } = data;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      const root = data.rootRange;
      return [
        {
          message: 'the experiment must be a YAML mapping of keys (name, model, …)',
          range: lines.trimmed(root && !samePosition(root.start, root.end) ? root : lines.firstLine()),
          severity: 'error',
          field: '',
          source: 'schema',
        },
      ];
    }
    const problems: ExperimentProblem[] = [];
    const seen = new Set<string>();
    const add = (problem: ExperimentProblem): void => {
      const key = `${problem.field}\u0000${problem.message}`;
      if (seen.has(key)) return;
      seen.add(key);
      problems.push(problem);
    };
    if (!this.validateFn(value)) {
      const rules = new Set<number>();
      for (const error of condenseErrors(this.validateFn.errors ?? [])) {
        const rule = /^#\/allOf\/(\d+)\/then\//.exec(error.schemaPath);
        if (rule) {
          const index = Number(rule[1]);
          if (!rules.has(index)) add(this.ruleProblem(index, located, lines));
          rules.add(index);
        } else if (!error.schemaPath.startsWith('#/allOf/')) {
          add(this.locate(located, lines, error));
        }
      }
    }
    return problems
      .sort((a, b) => comparePositions(a.range.start, b.range.start))
      .slice(0, MAX_PROBLEMS)
      .map((problem) => ({ ...problem, range: lines.trimmed(problem.range) }));
  }

  /** A file's bytes: the size and UTF-8 checks the editor's text has lost, then `validate`. */
  validateBytes(bytes: Uint8Array): ExperimentProblem[] {
    const decoded = decodeExperiment(bytes);
    if ('problem' in decoded) return [{ ...decoded.problem, severity: 'error', field: '' }];
    return this.validate(decoded.text);
  }

  /** A cross-field rule (an `allOf` entry of `if`/`then`, exported from experiment/config.py's table) that failed. */
  private ruleProblem(index: number, located: Located, lines: LineMap): ExperimentProblem {
    const rule = this.schema.allOf?.[index] ?? {};
    const field: string[] = [];
    for (let part = rule.if; part?.properties; ) {
      const name = Object.keys(part.properties)[0] ?? '';
      field.push(name);
      part = part.properties[name];
    }
    return {
      message: `${field.join('.')}: ${rule.description ?? 'fails a rule between fields'}`,
      range: spanAt(located, lines, field, 'value', field),
      severity: 'error',
      field: field.join('.'),
      source: 'schema',
    };
  }

  private locate(located: Located, lines: LineMap, error: ErrorObject): ExperimentProblem {
    const path = pointerParts(error.instancePath);
    const params = error.params as Record<string, unknown>;
    let field = path;
    let target: Target = 'value';
    let message: string;
    let suggestion: string | undefined;
    if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      field = [...path, params.additionalProperty];
      suggestion = closest(params.additionalProperty, Object.keys(this.objectProperties(path)));
      message = `is not a known field${suggestion ? ` (did you mean \`${suggestion}\`?)` : ''}`;
      target = 'key';
    } else if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      field = [...path, params.missingProperty];
      message = 'is required';
      target = 'parentKey';
    } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      const allowed = params.allowedValues.filter((value): value is string => typeof value === 'string');
      suggestion = typeof error.data === 'string' ? closest(error.data, allowed) : undefined;
      message = `must be one of ${params.allowedValues.map(formatValue).join(', ')}${suggestion ? ` (did you mean \`${suggestion}\`?)` : ''}`;
    } else if ((error.keyword === 'maximum' || error.keyword === 'minimum') && Math.abs(Number(params.limit)) === Number.MAX_SAFE_INTEGER) {
      // The bound every integer has (experiment/config.py MAX_INTEGER): say what it is, not 9007199254740991.
      message = `is out of range: integers here must lie within ±2^53 − 1 (about ±9.0e15)`;
    } else if (error.keyword === 'const') {
      message = `must be ${formatValue(params.allowedValue)}`;
    } else if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      message = `must be ${this.alternatives(path).join(' or ') || 'a different value'}`;
    } else if (error.keyword === 'type') {
      message = `must be ${String(params.type).split(',').map(plural).join(' or ')}`;
    } else {
      message = error.message ?? `fails ${error.keyword}`;
    }
    const fieldText = field.join('.');
    return {
      message: `${fieldText ? `${fieldText}: ` : ''}${message}`,
      range: spanAt(located, lines, path, target, field),
      severity: 'error',
      field: fieldText,
      source: 'schema',
      ...(suggestion ? { code: DID_YOU_MEAN, replacement: suggestion } : {}),
    };
  }

  // ---- schema navigation ------------------------------------------------------------------------------------------

  private resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
    let current = schema;
    for (let hops = 0; current?.$ref && hops < 20; hops += 1) {
      const match = /^#\/\$defs\/(.+)$/.exec(current.$ref);
      current = match?.[1] ? this.schema.$defs?.[match[1]] : undefined;
    }
    return current;
  }

  /** The schema and its alternatives (anyOf / oneOf / allOf branches), resolved. */
  private branches(schema: JsonSchema | undefined): JsonSchema[] {
    const resolved = this.resolve(schema);
    if (!resolved) return [];
    const nested = [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])];
    return nested.length > 0 ? [resolved, ...nested.flatMap((branch) => this.branches(branch))] : [resolved];
  }

  /** The schema of the value at a key path (undefined where the schema says nothing). */
  schemaAt(path: readonly string[]): JsonSchema | undefined {
    let current: JsonSchema | undefined = this.schema;
    for (const part of path) {
      let next: JsonSchema | undefined;
      for (const branch of this.branches(current)) {
        next = /^\d+$/.test(part) && branch.items ? branch.items : branch.properties?.[part];
        if (next) break;
      }
      if (!next) return undefined;
      current = next;
    }
    return current;
  }

  /** The keys a mapping at `path` may hold, with their schemas. */
  objectProperties(path: readonly string[]): Record<string, JsonSchema> {
    const result: Record<string, JsonSchema> = {};
    for (const branch of this.branches(this.schemaAt(path))) Object.assign(result, branch.properties ?? {});
    return result;
  }

  private requiredKeys(path: readonly string[]): Set<string> {
    return new Set(this.branches(this.schemaAt(path)).flatMap((branch) => branch.required ?? []));
  }

  private alternatives(path: readonly string[]): string[] {
    const out: string[] = [];
    for (const branch of this.branches(this.schemaAt(path)).slice(1)) {
      if (branch.const !== undefined) out.push(formatValue(branch.const));
      else if (branch.enum) out.push(...branch.enum.map(formatValue));
      else if (branch.type === 'array' && branch.items) out.push(`a list of ${this.typeText(branch.items)}s`);
      else if (branch.properties) out.push('a mapping');
      else if (typeof branch.type === 'string') out.push(plural(branch.type));
    }
    return [...new Set(out)];
  }

  private typeText(schema: JsonSchema | undefined): string {
    const branches = this.branches(schema);
    const parts: string[] = [];
    for (const branch of branches.length > 1 ? branches.slice(1) : branches) {
      if (branch.enum) parts.push(branch.enum.map(formatValue).join(' | '));
      else if (branch.const !== undefined) parts.push(formatValue(branch.const));
      else if (branch.properties || branch.type === 'object') parts.push('mapping');
      else if (branch.type === 'array') parts.push(`list of ${branch.items ? this.typeText(branch.items) : 'values'}`);
      else if (typeof branch.type === 'string') {
        const bounds: string[] = [];
        // Every integer is bounded by ±MAX_SAFE_INTEGER in the schema (experiment/config.py MAX_INTEGER); that bound says nothing.
        const told = (bound: number | undefined): bound is number => bound !== undefined && Math.abs(bound) !== Number.MAX_SAFE_INTEGER;
        if (told(branch.minimum)) bounds.push(`≥ ${branch.minimum}`);
        if (branch.exclusiveMinimum !== undefined) bounds.push(`> ${branch.exclusiveMinimum}`);
        if (told(branch.maximum)) bounds.push(`≤ ${branch.maximum}`);
        if (branch.exclusiveMaximum !== undefined) bounds.push(`< ${branch.exclusiveMaximum}`);
        parts.push([branch.type, ...bounds].join(' '));
      }
    }
    return [...new Set(parts)].join(' | ') || 'any';
  }

  /** Hover / completion facts of the key at `path`; undefined when the schema has no such key. */
  fieldInfo(path: readonly string[]): FieldInfo | undefined {
    if (path.length === 0) return undefined;
    const schema = this.schemaAt(path);
    if (!schema) return undefined;
    return this.describe(path, schema, this.requiredKeys(path.slice(0, -1)).has(path[path.length - 1] ?? ''));
  }

  /** Hover / completion facts of a key at `path` whose value `schema` describes (e.g. an environment's option). */
  describe(path: readonly string[], schema: JsonSchema, required: boolean): FieldInfo {
    const branches = this.branches(schema);
    const values: unknown[] = [];
    for (const branch of branches) {
      if (branch.enum) values.push(...branch.enum);
      if (branch.const !== undefined) values.push(branch.const);
      if (branch.type === 'boolean') values.push(true, false);
      if (branch.type === 'null') values.push(null);
    }
    const described = [schema, ...branches].find((s) => s.description !== undefined);
    const defaulted = [schema, ...branches].find((s) => s.default !== undefined);
    return {
      path: [...path],
      description: described?.description,
      default: defaulted?.default,
      typeText: this.typeText(schema),
      values: [...new Set(values)],
      isObject: branches.some((branch) => branch.properties !== undefined),
      required,
    };
  }
}
