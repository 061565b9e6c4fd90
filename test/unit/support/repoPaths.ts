// Paths the unit tests share: the repo root seen from the compiled helper (out/test/unit/support/repoPaths.js) and
// the trainer's Python.
import { existsSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');

/** The interpreter `npm test` set up (SEED_PYTHON) or the repo's .venv; the tests that need it fail without it. */
export function trainerPython(): string {
  const python = process.env.SEED_PYTHON ?? path.join(repoRoot, '.venv', 'bin', 'python');
  if (!existsSync(python) && !process.env.SEED_PYTHON) {
    throw new Error(`no trainer interpreter at ${python}: run \`npm run setup\` or set SEED_PYTHON`);
  }
  return python;
}
