/**
 * TypeScript types of the run-directory records and of the experiment, generated from schemas/*.schema.json with
 * json-schema-to-typescript, so the reader's types and the schemas it validates against cannot drift apart. One module
 * per schema, in src/runs/shared/generated/; `$ref`s to a `$defs` entry become the named type of that entry, imported
 * from the module of its schema (common.schema.json's definitions are shared by the others). `scripts/schemaTypes.mjs`
 * writes the modules; test/unit/repo/schemaTypes.test.ts checks that the committed ones are what this produces.
 *
 * What TypeScript cannot say is left to the validator: `if`/`then` rules, `dependentRequired`, patterns and bounds.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { metricNamesModule } from './metricNames.mjs';

// json-schema-to-typescript is CommonJS; require() also resolves it from NODE_PATH.
const require = createRequire(import.meta.url);

export const OUTPUT_DIR = 'src/runs/shared/generated';
export const COMMAND = 'npm run schema-types';

const ID_PREFIX = 'urn:seed-studio:schema:';

/** The type name of each record (the schema's root), by the schema's file stem; a new schema must be named here. */
const ROOT_NAMES = {
  'checkpoint-manifest': 'CheckpointManifest',
  control: 'ControlRequest',
  doctor: 'DoctorReport',
  eval: 'EvalReport',
  event: 'RunEvent',
  experiment: 'ExperimentConfig',
  lock: 'RunLock',
  metric: 'MetricRow',
  'onnx-export': 'OnnxExportMeta',
  premise: 'PremiseReport',
  run: 'RunManifest',
  skill: 'SkillRecord',
  tags: 'RunTags',
  'trajectory-index': 'TrajectoryIndexRow',
  trajectory: 'Trajectory',
  whatif: 'WhatIfFile',
};

/** `$defs` entries whose type name is not their key in PascalCase (to keep the names the code already used). */
const DEF_NAMES = {
  'eval#summary': 'EvalSummary',
  'trajectory#step': 'TrajectoryStep',
  'trajectory#tokens': 'EncodedTokens',
};

/**
 * Properties their schema leaves open whose content another schema's type describes, by `stem#pointer`: run.json's
 * `config` is the resolved experiment. The run schema checks only that it is an object (a run holds the experiment as
 * the trainer of its day wrote it), so the type is the experiment as recorded (APPENDED below), never validated.
 */
const PROPERTY_TYPES = {
  'run#/properties/config': { name: 'RecordedExperiment', from: 'experiment' },
};

/** Declarations a schema's module ends with: types of its records that the schema cannot state. */
const APPENDED = {
  experiment: `/**
 * An experiment as a run recorded it (run.json \`config\`): resolved by the trainer that started the run, every default
 * filled in. A run started before a field existed lacks it, at any depth, so every field is optional here; a value the
 * schema has dropped since can still be there, so code that maps one to behaviour keeps a fallback.
 */
export type RecordedExperiment = Recorded<ExperimentConfig>;

/** \`T\` with every field optional, all the way down (lists and scalars as they are). */
type Recorded<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: Recorded<T[K]> } : T;
`,
};

/** Keywords that only annotate: an `allOf` entry left with nothing else (its rule was an `if`/`then`) adds no type. */
const ANNOTATIONS = new Set(['description', '$comment']);

/** Pattern-keyed metric values: a template-literal index signature, which a JSON Schema cannot name (`undefined`: the
 * named metrics are optional properties, which the signature must admit). */
const METRIC_KEY = '[metric: `${string}/${string}`]: number | null | undefined;';

const camel = (stem) => stem.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
const pascal = (key) => key.replace(/(^|[-_])([a-z0-9])/g, (_, __, c) => c.toUpperCase()).replace(/^[a-z]/, (c) => c.toUpperCase());

function defName(stem, key) {
  return DEF_NAMES[`${stem}#${key}`] ?? pascal(key);
}

/** The stem and `$defs` key a `$ref` points at, or undefined for any other reference. */
function refTarget(ref, stem) {
  const match = /^(?:urn:seed-studio:schema:([a-z-]+))?#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
  return match ? { stem: match[1] ?? stem, key: match[2] } : undefined;
}

/**
 * A copy of `node` ready for the generator: each `$ref` to a `$defs` entry replaced by its type name (the other
 * keywords kept, so the description stays on the property), the conditional keywords dropped, `title` too (the
 * generator would name types after it) and the `x-` extensions (the experiment schema's catalogs for the editor);
 * `imports` collects the names taken from other schemas' modules, `typedAt` the PROPERTY_TYPES entries met.
 */
function prepare(node, stem, imports, where, typedAt) {
  if (Array.isArray(node)) return node.map((item, i) => prepare(item, stem, imports, `${where}/${i}`, typedAt));
  if (node === null || typeof node !== 'object') return node;
  const typed = PROPERTY_TYPES[`${stem}${where}`];
  if (typed) {
    typedAt.add(`${stem}${where}`);
    // The description stays on the property; what the schema says of its content is the other type's business.
    if (typed.from !== stem) imports.set(typed.name, typed.from);
    return { ...(node.description === undefined ? {} : { description: node.description }), tsType: typed.name };
  }
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref') {
      const target = refTarget(value, stem);
      if (!target) throw new Error(`schemas/${stem}.schema.json ${where}: $ref ${JSON.stringify(value)} is not a $defs entry of a run-format schema`);
      const name = defName(target.stem, target.key);
      if (target.stem !== stem) imports.set(name, target.stem);
      out.tsType = name;
    } else if (key === 'if' || key === 'then' || key === 'else' || key === 'dependentRequired' || key === 'title' || key.startsWith('x-')) {
      continue; // rules for the validator, names for the generator, and data for the editor (`x-algorithms`): no types
    } else if (key === 'allOf') {
      const kept = value.map((item, i) => prepare(item, stem, imports, `${where}/allOf/${i}`, typedAt)).filter((item) => Object.keys(item).some((k) => !ANNOTATIONS.has(k)));
      if (kept.length > 0) out.allOf = kept;
    } else if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, prepare(sub, stem, imports, `${where}/${key}/${name}`, typedAt)]));
    } else {
      out[key] = prepare(value, stem, imports, `${where}/${key}`, typedAt);
    }
  }
  // An object with no declared keys (onnx-export's `inputs`) is open: a string-keyed record of unknown values, not `{}`.
  if (out.type === 'object' && !out.properties && !out.patternProperties && out.additionalProperties === undefined) out.additionalProperties = true;
  return out;
}

const OPTIONS = {
  bannerComment: '',
  additionalProperties: false, // unspecified: no index signature (a reader still tolerates unknown fields at run time)
  declareExternallyReferenced: false,
  unreachableDefinitions: false,
  unknownAny: true,
  strictIndexSignatures: false, // tsconfig's noUncheckedIndexedAccess already adds `| undefined` to a lookup
  ignoreMinAndMaxItems: true,
  format: true,
  style: { printWidth: 120, singleQuote: true, tabWidth: 2, trailingComma: 'all' },
};

async function compileType(compile, schema, name) {
  // `$id` and `$schema` are the document's, not the type's; the `$defs` are compiled one by one, each under its name.
  const root = { ...schema };
  for (const key of ['$id', '$schema', '$defs']) delete root[key];
  return compile(root, name, OPTIONS);
}

/** The metric row's pattern-keyed values as the code reads them (see METRIC_KEY). */
function metricIndex(text, stem) {
  if (stem !== 'metric') return text;
  // [^;]* spans lines: the union of the named metrics' types is long enough for the formatter to break it
  const replaced = text.replace(/^ {2}\[k: string\]:[^;]*;$/m, `  ${METRIC_KEY}`);
  if (replaced === text) throw new Error('schemas/metric.schema.json: the generated MetricRow has no pattern index signature to replace');
  return replaced;
}

/** Each PROPERTY_TYPES entry whose schema is given named a property of it (`typedAt`), of a type its `from` exports. */
function checkPropertyTypes(files, typedAt) {
  for (const [at, { name, from }] of Object.entries(PROPERTY_TYPES)) {
    const [stem, pointer] = at.split('#');
    if (!files.has(`${camel(stem)}.ts`)) continue; // a schemas folder without that schema (the generator's tests)
    if (!typedAt.has(at)) throw new Error(`scripts/lib/schemaTypes.mjs PROPERTY_TYPES: schemas/${stem}.schema.json has no ${pointer} to type as ${name}`);
    if (!new RegExp(`^export (type|interface) ${name}\\b`, 'm').test(files.get(`${camel(from)}.ts`) ?? '')) {
      throw new Error(`scripts/lib/schemaTypes.mjs PROPERTY_TYPES: the module of schemas/${from}.schema.json exports no ${name}`);
    }
  }
}

/** The generated modules: file name (in OUTPUT_DIR, the schema's stem in camelCase) → text. `root` is the repository root. */
export async function generateSchemaTypes(root) {
  let compile;
  try {
    ({ compile } = require('json-schema-to-typescript'));
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error('json-schema-to-typescript is not installed: it is a devDependency, run `npm install`');
  }
  const schemasDir = path.join(root, 'schemas');
  const files = new Map();
  const typedAt = new Set();
  const stems = readdirSync(schemasDir)
    .filter((name) => name.endsWith('.schema.json'))
    .map((name) => name.slice(0, -'.schema.json'.length))
    .sort();
  for (const stem of stems) {
    const schema = JSON.parse(readFileSync(path.join(schemasDir, `${stem}.schema.json`), 'utf8'));
    if (schema.$id !== ID_PREFIX + stem) throw new Error(`schemas/${stem}.schema.json: $id must be ${ID_PREFIX}${stem}`);
    const imports = new Map();
    const prepared = prepare(schema, stem, imports, '#', typedAt);
    const parts = [];
    if (stem !== 'common') {
      const name = ROOT_NAMES[stem];
      if (!name) throw new Error(`schemas/${stem}.schema.json: no type name for it in scripts/lib/schemaTypes.mjs ROOT_NAMES`);
      parts.push(metricIndex(await compileType(compile, prepared, name), stem));
    }
    for (const [key, def] of Object.entries(prepared.$defs ?? {})) {
      parts.push(await compileType(compile, def, defName(stem, key)));
    }
    const importLines = [...new Set(imports.values())]
      .sort()
      .map((from) => {
        const names = [...imports].filter(([, s]) => s === from).map(([n]) => n).sort();
        return `import type { ${names.join(', ')} } from './${camel(from)}';\n`;
      });
    const header = `// Generated from schemas/${stem}.schema.json by \`${COMMAND}\` (scripts/schemaTypes.mjs): do not edit.\n`;
    if (APPENDED[stem]) parts.push(APPENDED[stem]);
    files.set(`${camel(stem)}.ts`, [header, ...(importLines.length ? [...importLines, '\n'] : ['\n']), parts.join('\n')].join(''));
    // the metric names as data (scripts/lib/metricNames.mjs): the dashboard's charts are derived from them
    if (stem === 'metric') files.set('metricNames.ts', [header, '\n', metricNamesModule(schema)].join(''));
  }
  checkPropertyTypes(files, typedAt);
  return files;
}
