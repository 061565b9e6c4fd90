#!/usr/bin/env node
// `npm run lint:python`: ruff's lint and format check over trainer/ and bench/ (settings in ruff.toml). Exits non-zero
// when either finds something; `ruff check --fix` and `ruff format` (same interpreter) apply the fixes.
import { spawnSync } from 'node:child_process';
import { ensurePython, repoRoot } from './setup.mjs';

const python = process.env.SEED_PYTHON || ensurePython();
let failed = false;
for (const args of [['check', 'trainer', 'bench'], ['format', '--check', 'trainer', 'bench']]) {
  console.log(`ruff ${args.join(' ')}`);
  const result = spawnSync(python, ['-m', 'ruff', ...args], { cwd: repoRoot, stdio: 'inherit' });
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
