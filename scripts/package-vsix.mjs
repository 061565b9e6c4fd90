#!/usr/bin/env node
// Per-platform VSIXs: `vsce package --target T` with .vscodeignore plus that platform's onnxruntime-node binaries
// (bin/napi-v6/<os>/<arch>/), so each VSIX carries only the native code it runs. Prints each VSIX's size as JSON.
//
//   node scripts/package-vsix.mjs [linux-x64 darwin-arm64 win32-x64 …]     (default: this machine's target)
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './lib/proc.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const targets = process.argv.slice(2).length ? process.argv.slice(2) : [`${process.platform}-${process.arch}`];
const base = readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8');
const sizes = {};
for (const target of targets) {
  const [os, arch] = target.split('-');
  const binaries = `node_modules/onnxruntime-node/bin/napi-v6/${os}/${arch}`;
  if (!existsSync(path.join(repoRoot, binaries))) throw new Error(`${target}: onnxruntime-node ships no ${binaries}`);
  const ignoreFile = path.join(repoRoot, 'out', `.vscodeignore-${target}`);
  writeFileSync(ignoreFile, `${base}\n!${binaries}/**\n`);
  const out = path.join(repoRoot, 'out', `seed-studio-${target}.vsix`);
  try {
    // --dependencies: vsce takes node_modules into account, and the ignore file (everything out, then the listed
    // paths back in) keeps only onnxruntime-node's JavaScript, its runtime dependency and this target's binaries —
    // every other dependency is bundled into dist/ already.
    run('npx', ['vsce', 'package', '--target', target, '--dependencies', '--ignoreFile', ignoreFile, '--out', out], { cwd: repoRoot });
  } finally {
    rmSync(ignoreFile, { force: true });
  }
  sizes[target] = { vsix: path.relative(repoRoot, out), mib: Math.round((statSync(out).size / 2 ** 20) * 10) / 10 };
}
console.log(JSON.stringify(sizes, null, 2));
