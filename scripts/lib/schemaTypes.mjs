/**
 * TypeScript types of the run-directory records, generated from schemas/*.schema.json with json-schema-to-typescript,
 * so the reader's types and the schemas it validates against cannot drift apart. One module per schema, in
 * src/runs/shared/generated/; `$ref`s to a `$defs` entry become the named type of that entry, imported from the
 * module of its schema (common.schema.json's definitions are shared by the others). `scripts/schemaTypes.mjs` writes
 * the modules; test/unit/schemaTypes.test.ts checks that the committed ones are what this produces.
 *
 * What TypeScript cannot say is left to the validator: `if`/`then` rules, `dependentRequired`, patterns and bounds.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// json-schema-to-typescript is CommonJS; require() also resolves it from NODE_PATH.
const require = createRequire(import.meta.url);

export const OUTPUT_DIR = 'src/runs/shared/generated';
export const COMMAND = 'npm run schema-types';

const ID_PREFIX = 'urn:seed-studio:schema:';

/** Schemas that get no types: the experiment file has its own reader (src/experiments/core), not a record type. */
const SKIPPED = new Set(['experiment']);

/** The type name of each record (the schema's root), by the schema's file stem; a new schema must be named here. */
const ROOT_NAMES = {
  'checkpoint-manifest': 'CheckpointManifest',
  control: 'ControlRequest',
  doctor: 'DoctorReport',
  eval: 'EvalReport',
  event: 'RunEvent',
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

/** Pattern-keyed metric values: a template-literal index signature, which a JSON Schema cannot name. */
const METRIC_KEY = '[metric: `${string}/${string}`]: number | null;';

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
 * keywords kept, so the description stays on the property), the conditional keywords dropped, and `title` too (the
 * generator would name types after it); `imports` collects the names taken from other schemas' modules.
 */
function prepare(node, stem, imports, where) {
  if (Array.isArray(node)) return node.map((item, i) => prepare(item, stem, imports, `${where}/${i}`));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref') {
      const target = refTarget(value, stem);
      if (!target) throw new Error(`schemas/${stem}.schema.json ${where}: $ref ${JSON.stringify(value)} is not a $defs entry of a run-format schema`);
      const name = defName(target.stem, target.key);
      if (target.stem !== stem) imports.set(name, target.stem);
      out.tsType = name;
    } else if (key === 'if' || key === 'then' || key === 'else' || key === 'dependentRequired' || key === 'title') {
      continue;
    } else if (key === 'allOf') {
      const kept = value.map((item, i) => prepare(item, stem, imports, `${where}/allOf/${i}`)).filter((item) => Object.keys(item).length > 0);
      if (kept.length > 0) out.allOf = kept;
    } else if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, prepare(sub, stem, imports, `${where}/${key}/${name}`)]));
    } else {
      out[key] = prepare(value, stem, imports, `${where}/${key}`);
    }
  }
  // An object with no declared keys (run.json's `config`) is open: a string-keyed record of unknown values, not `{}`.
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
  const replaced = text.replace(/^ {2}\[k: string\]: .*;$/m, `  ${METRIC_KEY}`);
  if (replaced === text) throw new Error('schemas/metric.schema.json: the generated MetricRow has no pattern index signature to replace');
  return replaced;
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
  const stems = readdirSync(schemasDir)
    .filter((name) => name.endsWith('.schema.json'))
    .map((name) => name.slice(0, -'.schema.json'.length))
    .filter((stem) => !SKIPPED.has(stem))
    .sort();
  for (const stem of stems) {
    const schema = JSON.parse(readFileSync(path.join(schemasDir, `${stem}.schema.json`), 'utf8'));
    if (schema.$id !== ID_PREFIX + stem) throw new Error(`schemas/${stem}.schema.json: $id must be ${ID_PREFIX}${stem}`);
    const imports = new Map();
    const prepared = prepare(schema, stem, imports, '#');
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
    files.set(`${camel(stem)}.ts`, [header, ...(importLines.length ? [...importLines, '\n'] : ['\n']), parts.join('\n')].join(''));
  }
  return files;
}
