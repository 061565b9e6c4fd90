// The libraries that are large to parse (ajv ≈ 230 KB, yaml ≈ 250 KB of bundled source) as a bundle of their own,
// dist/vendor.js, required on first use (lazyRequire.ts): a lazily initialised module inside dist/extension.js would
// still be read and parsed with it at activation.
import Ajv2020 from 'ajv/dist/2020';
import * as yaml from 'yaml';

export { Ajv2020, yaml };
