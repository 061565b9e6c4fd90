#!/usr/bin/env node
// Writes the TypeScript types of the run-directory records and the experiment, generated from schemas/*.schema.json
// (scripts/lib/schemaTypes.mjs), into src/runs/shared/generated/, and removes modules no schema produces any more.
//   node scripts/schemaTypes.mjs          write them
//   node scripts/schemaTypes.mjs --check  write nothing; exit 1 and name the stale files when they differ
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMAND, OUTPUT_DIR, generateSchemaTypes } from './lib/schemaTypes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, OUTPUT_DIR);
const check = process.argv.includes('--check');

const files = await generateSchemaTypes(root);
const present = existsSync(outDir) ? readdirSync(outDir).filter((name) => name.endsWith('.ts')) : [];
const stale = [
  ...[...files].filter(([name, text]) => !existsSync(path.join(outDir, name)) || readFileSync(path.join(outDir, name), 'utf8') !== text).map(([name]) => name),
  ...present.filter((name) => !files.has(name)),
];

if (check) {
  if (stale.length > 0) {
    console.error(`${OUTPUT_DIR}: ${stale.join(', ')} out of date: run \`${COMMAND}\``);
    process.exit(1);
  }
  console.log(`${OUTPUT_DIR}: ${files.size} modules up to date`);
} else {
  mkdirSync(outDir, { recursive: true });
  for (const name of present) if (!files.has(name)) rmSync(path.join(outDir, name));
  for (const [name, text] of files) writeFileSync(path.join(outDir, name), text);
  console.log(`${OUTPUT_DIR}: ${files.size} modules written, ${stale.length} changed`);
}
