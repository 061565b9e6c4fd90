// Imports a TypeScript module of src/ from a script: esbuild (a dev dependency, installed by setup) compiles it with
// its imports into one ES module in memory, so a script uses the code the extension is built from, never a copy.
import path from 'node:path';
import { build } from 'esbuild';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** The module at `relative` (from the repository root, e.g. 'src/runs/shared/pairedChange.ts'). */
export async function loadTs(relative) {
  const result = await build({
    entryPoints: [path.join(repoRoot, relative)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}
