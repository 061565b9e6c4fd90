// Builds the extension host bundle (node/cjs, `vscode` external), one browser bundle per webview folder
// (webview/<name>/main.ts → dist/webview/<name>.js, and its style.css → dist/webview/<name>.css; webview/shared is
// imported, not bundled on its own),
// and the tests (one file per source file, not bundled) into out/test. `tsc --noEmit` does the type checking.
import * as esbuild from 'esbuild';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { globSync } from 'glob';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const hostBundle = {
  // The experiment validator's worker thread is a bundle of its own (ExperimentService starts it).
  entryPoints: [
    { in: 'src/extension.ts', out: 'extension' },
    { in: 'src/experiments/core/validationWorker.ts', out: 'experimentWorker' },
    // What-if rescoring (tokenizers, template engine, onnxruntime-node): required on first use (whatIfSession.ts).
    { in: 'src/whatIf/core/rescore.ts', out: 'whatIf' },
    // ajv and yaml: required on first use from dist/vendor.js (src/common/core/lazyRequire.ts), not parsed at activation.
    { in: 'src/common/core/vendor.ts', out: 'vendor' },
  ],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outdir: 'dist',
  // onnxruntime-node is a native module (what-if rescoring): required from node_modules at run time, never bundled.
  external: ['vscode', 'onnxruntime-node'],
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

const webviewEntries = existsSync('webview')
  ? readdirSync('webview', { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'shared' && existsSync(path.join('webview', entry.name, 'main.ts')))
      // A view's stylesheet sits beside it (webview/<name>/style.css → dist/webview/<name>.css).
      .flatMap((entry) => [
        { in: path.join('webview', entry.name, 'main.ts'), out: entry.name },
        ...(existsSync(path.join('webview', entry.name, 'style.css')) ? [{ in: path.join('webview', entry.name, 'style.css'), out: entry.name }] : []),
      ])
  : [];

const webviewBundles = {
  entryPoints: webviewEntries,
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  outdir: 'dist/webview',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

// Tests are compiled file by file so mocha / node:test load them as ordinary modules; `vscode` stays a require.
const tests = {
  entryPoints: globSync('test/**/*.ts', { ignore: ['test/fixtures/**'] }),
  bundle: false,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outbase: '.',
  outdir: 'out',
  sourcemap: true,
  logLevel: 'warning',
};

const srcForTests = {
  entryPoints: globSync('src/**/*.ts'),
  bundle: false,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outbase: '.',
  outdir: 'out',
  sourcemap: true,
  logLevel: 'warning',
};

rmSync('dist', { recursive: true, force: true });
rmSync('out/test', { recursive: true, force: true });
rmSync('out/src', { recursive: true, force: true });
const configs = [hostBundle, tests, srcForTests, ...(webviewEntries.length ? [webviewBundles] : [])];
if (watch) {
  const contexts = await Promise.all(configs.map((config) => esbuild.context(config)));
  await Promise.all(contexts.map((context) => context.watch()));
  console.log('esbuild: watching');
} else {
  await Promise.all(configs.map((config) => esbuild.build(config)));
  console.log(`esbuild: host bundle, ${webviewEntries.filter((e) => e.in.endsWith('.ts')).length} webview bundle(s), tests → dist/, out/`);
}
