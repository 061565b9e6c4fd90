// Libraries that cost tens of milliseconds to load (ajv, yaml), loaded on first use instead of when the extension's
// bundle loads, so activation does not pay for them (bench/extension/extension.mjs measures it). Types come from the usual
// imports. The values: in the built extension from dist/vendor.js, a bundle of their own beside the bundle that asks
// (src/common/core/vendor.ts; esbuild.mjs) — bundled into dist/extension.js they would be parsed at activation even
// when initialised lazily; compiled file by file (the tests' out/), from the packages.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type Ajv2020Class from 'ajv/dist/2020';
import type * as YamlModule from 'yaml';

interface Vendor {
  Ajv2020: typeof Ajv2020Class;
  yaml: typeof YamlModule;
}

let vendor: Vendor | undefined;

/** A require esbuild leaves alone (the name is not a literal), resolved at run time. */
function runtimeRequire(name: string): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load (see above)
  return require(name);
}

function loadVendor(): Vendor {
  if (vendor) return vendor;
  const bundled = path.join(__dirname, 'vendor.js');
  if (path.basename(__dirname) === 'dist' && existsSync(bundled)) {
    vendor = runtimeRequire(bundled) as Vendor;
  } else {
    const packages = ['ajv/dist/2020', 'yaml'];
    vendor = { Ajv2020: (runtimeRequire(packages[0]!) as { default: typeof Ajv2020Class }).default, yaml: runtimeRequire(packages[1]!) as typeof YamlModule };
  }
  return vendor;
}

export function loadAjv2020(): typeof Ajv2020Class {
  return loadVendor().Ajv2020;
}

export function loadYaml(): typeof YamlModule {
  return loadVendor().yaml;
}
