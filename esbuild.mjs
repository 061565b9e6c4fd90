// Builds the extension host bundles (node/cjs, `vscode` external; see buildExtension), one browser bundle per webview folder
// (webview/<name>/main.ts → dist/webview/<name>.js, and its style.css → dist/webview/<name>.css; webview/shared is
// imported, not bundled on its own),
// and the tests (one file per source file, not bundled) into out/test. `tsc --noEmit` does the type checking.
import * as esbuild from 'esbuild';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { globSync } from 'glob';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const hostOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // onnxruntime-node is a native module (what-if rescoring): required from node_modules at run time, never bundled.
  external: ['vscode', 'onnxruntime-node'],
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

// Bundles of their own, each required on first use and sharing nothing with the others but stateless code.
const standaloneBundles = {
  ...hostOptions,
  entryPoints: [
    // The experiment validator's worker thread (ExperimentService starts it).
    { in: 'src/experiments/core/validationWorker.ts', out: 'experimentWorker' },
    // What-if rescoring (tokenizers, template engine, onnxruntime-node): required on first use (whatIfSession.ts).
    { in: 'src/whatIf/core/rescore.ts', out: 'whatIf' },
    // ajv and yaml: required on first use from dist/vendor.js (src/common/core/lazyRequire.ts), not parsed at activation.
    { in: 'src/common/core/vendor.ts', out: 'vendor' },
  ],
  outdir: 'dist',
};

/**
 * The extension itself is two bundles. dist/extension.js (src/extension.ts) holds what activation and the first
 * paint need: the runs layer, the Runs and Trainer views, the trainer host. dist/features.js (src/features.ts: the
 * panels, the experiment language, the training commands, skill review, …) is required on first use
 * (src/lazyFeatures/featureStandIns.ts). A module of src/ that the first bundle holds is not copied into the second: the second
 * takes it from the first at run time (dist/extension.js exports every such module in `__modules`), so each module,
 * its state and its classes exist once. First a pass that only finds the modules of the first bundle, then the two.
 */
async function buildExtension() {
  const probe = await esbuild.build({ ...hostOptions, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', write: false, sourcemap: false, metafile: true });
  const shared = Object.keys(probe.metafile.inputs).filter((file) => file.startsWith('src/') && file !== 'src/extension.ts');
  const entry = [
    "export * from './src/extension';",
    ...shared.map((file, i) => `import * as m${i} from './${file}';`),
    `export const __modules = { ${shared.map((file, i) => `${JSON.stringify(file)}: m${i}`).join(', ')} };`,
  ].join('\n');
  const sharedPaths = new Map(shared.map((file) => [path.resolve(file), file]));
  const fromExtensionBundle = {
    name: 'modules-from-the-extension-bundle',
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.namespace !== 'file' || args.pluginData === 'resolving') return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'resolving' });
        const file = sharedPaths.get(resolved.path);
        return file ? { path: file, namespace: 'extension-bundle' } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'extension-bundle' }, (args) => ({
        contents: `module.exports = require('./extension.js').__modules[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
      build.onResolve({ filter: /^\.\/extension\.js$/, namespace: 'extension-bundle' }, () => ({ path: './extension.js', external: true }));
    },
  };
  await Promise.all([
    esbuild.build({ ...hostOptions, stdin: { contents: entry, resolveDir: '.', sourcefile: 'extension-entry.ts', loader: 'ts' }, outfile: 'dist/extension.js' }),
    esbuild.build({ ...hostOptions, entryPoints: ['src/features.ts'], outfile: 'dist/features.js', plugins: [fromExtensionBundle] }),
  ]);
}

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
const configs = [standaloneBundles, tests, srcForTests, ...(webviewEntries.length ? [webviewBundles] : [])];
if (watch) {
  // The two-bundle extension is rebuilt whole whenever the file-by-file build of src/ is (its split depends on them all).
  const rebuildExtension = { name: 'rebuild-extension', setup: (build) => build.onEnd(() => buildExtension().catch((error) => console.error(error))) };
  const watched = configs.map((config) => (config === srcForTests ? { ...config, plugins: [rebuildExtension] } : config));
  const contexts = await Promise.all(watched.map((config) => esbuild.context(config)));
  await Promise.all(contexts.map((context) => context.watch()));
  console.log('esbuild: watching');
} else {
  await Promise.all([buildExtension(), ...configs.map((config) => esbuild.build(config))]);
  console.log(`esbuild: extension (2 bundles), ${webviewEntries.filter((e) => e.in.endsWith('.ts')).length} webview bundle(s), tests → dist/, out/`);
}
