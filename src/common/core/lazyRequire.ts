// Libraries that cost tens of milliseconds to initialise (ajv, yaml), loaded on first use instead of when the
// extension's bundle loads, so activation does not pay for them (bench/extension.mjs measures it). Types come from
// the usual imports; the values from require(), which esbuild bundles as lazily initialised modules.
import type Ajv2020Class from 'ajv/dist/2020';
import type * as YamlModule from 'yaml';

let ajv: typeof Ajv2020Class | undefined;
let yaml: typeof YamlModule | undefined;

export function loadAjv2020(): typeof Ajv2020Class {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load (see above)
  ajv ??= (require('ajv/dist/2020') as { default: typeof Ajv2020Class }).default;
  return ajv;
}

export function loadYaml(): typeof YamlModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load (see above)
  yaml ??= require('yaml') as typeof YamlModule;
  return yaml;
}
