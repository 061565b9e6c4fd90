// Validation of run records against schemas/*.schema.json (JSON Schema 2020-12, ajv). Errors name the file, the
// line and the field path, spelled as the trainer spells them (errors.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { loadAjv2020 } from '../../common/core/lazyRequire';
import { RunFormatError, formatFieldPath, pointerToParts, type RunErrorLocation } from './errors';
import type { RecordValidator } from './jsonl';
import type { CheckpointManifest } from '../shared/generated/checkpointManifest';
import type { ControlRequest } from '../shared/generated/control';
import type { EvalReport } from '../shared/generated/eval';
import type { RunEvent } from '../shared/generated/event';
import type { RunLock } from '../shared/generated/lock';
import type { MetricRow } from '../shared/generated/metric';
import { METRIC_SCHEMA_KEYWORDS } from '../shared/generated/metricNames';
import type { OnnxExportMeta } from '../shared/generated/onnxExport';
import type { PremiseReport } from '../shared/generated/premise';
import type { RunManifest } from '../shared/generated/run';
import type { SkillRecord } from '../shared/generated/skill';
import type { RunTags } from '../shared/generated/tags';
import type { Trajectory } from '../shared/generated/trajectory';
import type { TrajectoryIndexRow } from '../shared/generated/trajectoryIndex';
import type { WhatIfFile } from '../shared/generated/whatif';

const SCHEMA_ID_PREFIX = 'urn:seed-studio:schema:';
export const RECORD_SCHEMAS = ['run', 'event', 'metric', 'trajectory', 'trajectory-index', 'skill', 'eval', 'control', 'checkpoint-manifest', 'lock', 'onnx-export', 'whatif', 'tags', 'premise'] as const;
export type RecordKind = (typeof RECORD_SCHEMAS)[number];

/** The type a valid record of each kind has: the one generated from the same schema. */
export interface RecordTypes {
  run: RunManifest;
  event: RunEvent;
  metric: MetricRow;
  trajectory: Trajectory;
  'trajectory-index': TrajectoryIndexRow;
  skill: SkillRecord;
  eval: EvalReport;
  control: ControlRequest;
  'checkpoint-manifest': CheckpointManifest;
  lock: RunLock;
  'onnx-export': OnnxExportMeta;
  whatif: WhatIfFile;
  tags: RunTags;
  premise: PremiseReport;
}

const MARKER = 'run.schema.json';

/**
 * The schemas folder: `<extensionRoot>/schemas` when given, else the first `schemas/` holding run.schema.json at or
 * above `start` (the compiled module's folder: dist/ in the extension, out/src/runs/core/ in tests).
 */
export function findSchemasDir(options: { extensionRoot?: string; start?: string } = {}): string {
  if (options.extensionRoot !== undefined) {
    const dir = path.join(options.extensionRoot, 'schemas');
    if (existsSync(path.join(dir, MARKER))) return dir;
    throw new Error(`no run-format schemas in ${dir} (expected ${MARKER})`);
  }
  const start = path.resolve(options.start ?? __dirname);
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'schemas');
    if (existsSync(path.join(candidate, MARKER))) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(`no run-format schemas (${MARKER}) found in schemas/ at or above ${start}`);
}

function fieldOf(error: ErrorObject, value: unknown): string | undefined {
  const parts = pointerToParts(error.instancePath, value);
  const params = error.params as Record<string, unknown>;
  if ((error.keyword === 'required' || error.keyword === 'dependentRequired') && typeof params.missingProperty === 'string') {
    parts.push(params.missingProperty);
  } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    parts.push(params.additionalProperty);
  }
  return formatFieldPath(parts) || undefined;
}

/** Whether `schema` discriminates by a `const` property that `data`, an object, holds another value of. */
function contradictsConst(schema: unknown, data: unknown): boolean {
  if (!schema || typeof schema !== 'object' || !data || typeof data !== 'object' || Array.isArray(data)) return false;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (!properties) return false;
  return Object.entries(properties).some(([key, property]) => {
    if (!property || typeof property !== 'object' || !('const' in property) || !(key in data)) return false;
    return JSON.stringify((property as { const: unknown }).const) !== JSON.stringify((data as Record<string, unknown>)[key]);
  });
}

/**
 * The error to report. Where a `oneOf` fails, ajv lists the first error of every branch, then the `oneOf` itself: the
 * branches that a `const` property of the value rules out (`"status": "ok"` is not the `"status": "n/a"` branch, so
 * its missing `reason` is no news) and the combinator's own errors are passed over, leaving the branch the value
 * meant. Falls back to the first error.
 */
function primaryError(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return errors.find((error) => error.keyword !== 'oneOf' && error.keyword !== 'anyOf' && !contradictsConst(error.parentSchema, error.data)) ?? errors[0];
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `${error.message ?? 'invalid'}: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (error.keyword === 'const') return `must be ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === 'additionalProperties') return 'is not a known field';
  if (error.keyword === 'required' || error.keyword === 'dependentRequired') return 'is required';
  return error.message ?? `fails ${error.keyword}`;
}

/** The run-format schemas, compiled once. */
export class RunSchemas {
  private readonly validators: Map<RecordKind, ValidateFunction>;

  private constructor(readonly dir: string, documents: Record<string, unknown>[]) {
    const Ajv2020 = loadAjv2020();
    // verbose: each error carries its schema and data, which primaryError reads.
    // allowMatchingProperties: a listed metric name matches the metric schema's pattern of any namespaced name too
    const ajv = new Ajv2020({ allErrors: false, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true, allowMatchingProperties: true });
    ajv.addVocabulary([...METRIC_SCHEMA_KEYWORDS]); // annotations of the metric names (units, charts): nothing to check
    for (const document of documents) ajv.addSchema(document);
    this.validators = new Map();
    for (const kind of RECORD_SCHEMAS) {
      const validate = ajv.getSchema(SCHEMA_ID_PREFIX + kind);
      if (!validate) throw new Error(`${dir}: no schema with $id ${SCHEMA_ID_PREFIX}${kind}`);
      this.validators.set(kind, validate);
    }
  }

  /** Loads every `*.schema.json` of the run format from `dir` (default: findSchemasDir()). */
  static load(dir: string = findSchemasDir()): RunSchemas {
    const documents: Record<string, unknown>[] = [];
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.schema.json')).sort()) {
      const document = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as Record<string, unknown>;
      if (typeof document.$id === 'string' && document.$id.startsWith(SCHEMA_ID_PREFIX) && document.$id !== `${SCHEMA_ID_PREFIX}experiment`) {
        documents.push(document);
      }
    }
    return new RunSchemas(dir, documents);
  }

  /** Returns `value` typed when valid; throws a `schema` RunFormatError (file, line, field) when not. */
  validate<K extends RecordKind>(kind: K, value: unknown, where: RunErrorLocation): RecordTypes[K] {
    const validate = this.validators.get(kind);
    if (!validate) throw new Error(`unknown record kind ${kind}`);
    if (validate(value)) return value as RecordTypes[K];
    const error = primaryError(validate.errors ?? []);
    if (!error) throw new RunFormatError('schema', where, `not a valid ${kind} record`);
    throw new RunFormatError('schema', { ...where, field: fieldOf(error, value) }, describe(error));
  }

  /** A JSONL line validator for `kind` records of one file. */
  validator<K extends RecordKind>(kind: K, where: { file: string; path?: string }): RecordValidator<RecordTypes[K]> {
    return (value, line) => this.validate(kind, value, { ...where, line });
  }
}
