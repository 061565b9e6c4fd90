#!/usr/bin/env node
// Counts the folder-level import cycles of src/ and webview/ and prints them: dependency-cruiser reads the imports,
// each file stands for its folder, and every elementary cycle of the folder graph is listed. Exits non-zero when
// there is one, so `npm test` fails.
//   node scripts/cycles.mjs            value imports (dependency-cruiser's default: type-only imports are erased)
//   node scripts/cycles.mjs --types    type-only imports too
import path from 'node:path';
import { cruise } from 'dependency-cruiser';

const roots = ['src', 'webview'];
const result = await cruise(roots, {
  tsPreCompilationDeps: process.argv.includes('--types'),
  tsConfig: { fileName: 'tsconfig.json' },
  doNotFollow: { path: 'node_modules' },
  includeOnly: '^(src|webview)/',
});

/** Folder → folders it imports from (itself excluded). */
const graph = new Map();
for (const module of result.output.modules) {
  const from = path.posix.dirname(module.source);
  if (!graph.has(from)) graph.set(from, new Set());
  for (const dependency of module.dependencies) {
    const to = path.posix.dirname(dependency.resolved);
    if (to !== from && roots.some((root) => to === root || to.startsWith(`${root}/`))) graph.get(from).add(to);
  }
}

// Elementary cycles, each found once from its smallest folder (a plain DFS: the folder graph has a few dozen nodes).
const folders = [...graph.keys()].sort();
const cycles = [];
for (const start of folders) {
  const stack = [start];
  const walk = (node) => {
    for (const next of graph.get(node) ?? []) {
      if (next === start) cycles.push([...stack]);
      else if (next > start && !stack.includes(next)) {
        stack.push(next);
        walk(next);
        stack.pop();
      }
    }
  };
  walk(start);
}

for (const cycle of cycles) console.log(`  ${[...cycle, cycle[0]].join(' → ')}`);
console.log(`folder-level import cycles: ${cycles.length} (${folders.length} folders)`);
process.exitCode = cycles.length === 0 ? 0 : 1;
