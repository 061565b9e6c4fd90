// The record and experiment types in src/runs/shared/generated/ are what scripts/lib/schemaTypes.mjs generates from
// schemas/ now (regenerate with `npm run schema-types`), and the generator refuses a schema it cannot name or resolve.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { repoRoot } from '../support/repoPaths';

interface Module {
  OUTPUT_DIR: string;
  COMMAND: string;
  generateSchemaTypes: (root: string) => Promise<Map<string, string>>;
}

async function load(): Promise<Module> {
  return (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'lib', 'schemaTypes.mjs')).href)) as Module;
}

/** The committed modules' generation, done once for the tests that read it (formatting takes a while). */
let committedOutput: Promise<Map<string, string>> | undefined;
async function generated(): Promise<Map<string, string>> {
  committedOutput ??= load().then(({ generateSchemaTypes }) => generateSchemaTypes(repoRoot));
  return committedOutput;
}

/** A temporary root with common.schema.json and the schema `stem` (saved as `as`, its $id to match), changed by `change`. */
function schemasWith(stem: string, change: (schema: Record<string, unknown>) => void, as = stem): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'schema-types-'));
  mkdirSync(path.join(root, 'schemas'));
  cpSync(path.join(repoRoot, 'schemas', 'common.schema.json'), path.join(root, 'schemas', 'common.schema.json'));
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', `${stem}.schema.json`), 'utf8')) as Record<string, unknown>;
  schema.$id = `urn:seed-studio:schema:${as}`;
  change(schema);
  writeFileSync(path.join(root, 'schemas', `${as}.schema.json`), JSON.stringify(schema));
  return root;
}

test('the committed generated types are the generator output for the committed schemas', async () => {
  const { OUTPUT_DIR, COMMAND } = await load();
  const files = await generated();
  const dir = path.join(repoRoot, OUTPUT_DIR);
  const committed = readdirSync(dir).filter((name) => name.endsWith('.ts')).sort();
  assert.deepEqual(committed, [...files.keys()].sort(), `${OUTPUT_DIR} has other modules than the schemas give: run \`${COMMAND}\``);
  for (const [name, text] of files) {
    assert.equal(readFileSync(path.join(dir, name), 'utf8'), text, `${OUTPUT_DIR}/${name} is stale: run \`${COMMAND}\``);
  }
});

test('a change to a schema changes its generated type', async () => {
  const { generateSchemaTypes } = await load();
  const root = schemasWith('tags', (schema) => {
    (schema.properties as Record<string, unknown>).color = { type: 'string', enum: ['red', 'green'], description: 'The label colour.' };
  });
  try {
    const tags = (await generateSchemaTypes(root)).get('tags.ts') ?? '';
    assert.match(tags, /\/\*\*\n {3}\* The label colour\.\n {3}\*\/\n {2}color\?: 'red' \| 'green';/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a shared definition is imported from its module, not copied', async () => {
  const files = await generated();
  const trajectory = files.get('trajectory.ts') ?? '';
  assert.match(trajectory, /^import type \{ [^}]*\bTask\b[^}]*\} from '\.\/common';$/m);
  assert.doesNotMatch(trajectory, /export (interface|type) Task\b/);
  assert.match(files.get('common.ts') ?? '', /export interface Task \{/);
});

test('a schema without a type name, or with a reference outside the run-format $defs, is refused by name', async () => {
  const { generateSchemaTypes } = await load();
  const unnamed = schemasWith('tags', () => {}, 'labels');
  const badRef = schemasWith('lock', (schema) => {
    (schema.properties as Record<string, { $ref?: string }>).since = { $ref: 'https://example.com/time.json' };
  });
  try {
    await assert.rejects(generateSchemaTypes(unnamed), /schemas\/labels\.schema\.json: no type name for it/);
    await assert.rejects(generateSchemaTypes(badRef), /schemas\/lock\.schema\.json #\/properties\/since: \$ref "https:\/\/example\.com\/time\.json" is not a \$defs entry/);
  } finally {
    rmSync(unnamed, { recursive: true, force: true });
    rmSync(badRef, { recursive: true, force: true });
  }
});

test("the experiment schema gets types: its root, a type per section, and run.json's config as the experiment recorded", async () => {
  const files = await generated();
  const experiment = files.get('experiment.ts') ?? '';
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as { $defs: Record<string, unknown>; allOf: unknown[] };
  assert.ok(schema.allOf.length > 0, 'the schema has if/then rules, each under an allOf entry with a description');
  // Those entries leave no `{ [k: string]: unknown } & …` intersection: the root is a closed interface.
  assert.match(experiment, /^export interface ExperimentConfig \{$/m);
  assert.doesNotMatch(experiment, /\[k: string\]: unknown;\n\} &/);
  for (const section of Object.keys(schema.$defs)) assert.match(experiment, new RegExp(`^export interface ${section} \\{$`, 'm'), section);
  assert.match(experiment, /^ {2}opd\?: OpdConfig;$/m);
  assert.match(experiment, /^ {2}estimator\?: 'sample' \| /m);
  assert.match(experiment, /^export type RecordedExperiment = Recorded<ExperimentConfig>;$/m);
  const run = files.get('run.ts') ?? '';
  assert.match(run, /^import type \{ RecordedExperiment \} from '\.\/experiment';$/m);
  assert.match(run, /\* The resolved experiment [^\n]*\n {3}\*\/\n {2}config: RecordedExperiment;$/m, 'typed, its description kept');
});

test('an allOf entry that only describes its if/then rule, and x- extension data, add nothing to the type', async () => {
  const { generateSchemaTypes } = await load();
  const root = schemasWith('tags', (schema) => {
    schema.allOf = [{ description: 'a source needs a time', if: { required: ['source'] }, then: { required: ['time'] } }];
    // Editor data, not a schema: a $ref in it would be refused if it were read as one.
    (schema.properties as Record<string, Record<string, unknown>>).source!['x-examples'] = [{ $ref: 'https://example.com/not-a-def' }];
  });
  try {
    const tags = (await generateSchemaTypes(root)).get('tags.ts') ?? '';
    assert.match(tags, /^export interface RunTags \{$/m);
    assert.doesNotMatch(tags, /\[k: string\]|example\.com/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a typed property its schema no longer has, or a type no schema exports, is refused by name", async () => {
  const { generateSchemaTypes } = await load();
  const noConfig = schemasWith('run', (schema) => {
    delete (schema.properties as Record<string, unknown>).config;
    schema.required = (schema.required as string[]).filter((name) => name !== 'config');
  });
  const noExperiment = schemasWith('run', () => {});
  try {
    await assert.rejects(generateSchemaTypes(noConfig), /PROPERTY_TYPES: schemas\/run\.schema\.json has no \/properties\/config to type as RecordedExperiment/);
    await assert.rejects(generateSchemaTypes(noExperiment), /PROPERTY_TYPES: the module of schemas\/experiment\.schema\.json exports no RecordedExperiment/);
  } finally {
    rmSync(noConfig, { recursive: true, force: true });
    rmSync(noExperiment, { recursive: true, force: true });
  }
});
