#!/usr/bin/env node
// Counts the import cycles of src/ and webview/ and prints them: dependency-cruiser reads the imports, each file
// stands for its folder (or, with --features, its feature), and every elementary cycle of that graph is listed. Exits
// non-zero when there is one, so `npm test` fails (it runs the plain count and `--features --types`).
//   node scripts/cycles.mjs            value imports (dependency-cruiser's default: type-only imports are erased)
//   node scripts/cycles.mjs --types    type-only imports too
//   node scripts/cycles.mjs --features src/<feature>/** and webview/<feature>/** are one node. The composition root
//                                      (the files directly in src/: extension.ts, features.ts, services.ts) is not a
//                                      node: it imports every feature to wire it, and a feature may import only types
//                                      from it (the `Services` it is handed); a value import from it fails.
import path from 'node:path';
import { cruise } from 'dependency-cruiser';

const roots = ['src', 'webview'];
const result = await cruise(roots, {
  tsPreCompilationDeps: process.argv.includes('--types'),
  tsConfig: { fileName: 'tsconfig.json' },
  doNotFollow: { path: 'node_modules' },
  includeOnly: '^(src|webview)/',
});

/** The node a file counts for: with --features its feature (`feature:<name>`), or undefined for the composition
 * root; else its folder. */
const byFeature = process.argv.includes('--features');
function nodeOf(file) {
  if (!byFeature) return path.posix.dirname(file);
  const parts = file.split('/');
  return parts.length > 2 ? `feature:${parts[1]}` : undefined;
}
const rootValueImports = [];

/** Folder → folders it imports from (itself excluded). */
const graph = new Map();
for (const module of result.output.modules) {
  const from = nodeOf(module.source);
  if (from === undefined) continue;
  if (!graph.has(from)) graph.set(from, new Set());
  for (const dependency of module.dependencies) {
    const to = nodeOf(dependency.resolved);
    if (to === undefined) {
      const typeOnly = dependency.dependencyTypes.includes('type-only') || dependency.dependencyTypes.includes('type-import');
      if (!typeOnly && dependency.resolved.startsWith('src/')) rootValueImports.push(`${module.source} → ${dependency.resolved}`);
      continue;
    }
    if (to !== from && roots.some((root) => dependency.resolved.startsWith(`${root}/`))) graph.get(from).add(to);
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
const kind = `${byFeature ? 'feature' : 'folder'}-level ${process.argv.includes('--types') ? 'value and type' : 'value'} import cycles`;
console.log(`${kind}: ${cycles.length} (${folders.length} ${byFeature ? 'features' : 'folders'})`);
for (const line of rootValueImports) console.log(`  a feature imports a value from the composition root: ${line}`);
process.exitCode = cycles.length === 0 && rootValueImports.length === 0 ? 0 : 1;
