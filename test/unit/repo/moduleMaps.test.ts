// The module maps a newcomer reads first cannot rot silently: every path that docs/extension.md's "Where the code is"
// and docs/trainer.md's "Map" name exists, every feature folder of src/ and webview/ is in the first, and every trainer
// module is in the second (runlog/'s are listed in docs/run-format.md instead).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repoPaths';

/** The text of the `## heading` section of a doc, up to the next `## `; fails when the heading is gone. */
function section(doc: string, heading: string): string {
  const text = readFileSync(path.join(repoRoot, 'docs', doc), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/${doc} has no "## ${heading}" section`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Every `code span` of the text that is a plain path: no spaces, no placeholders (`<feature>`), no globs. */
function codePaths(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!).filter((span) => /^[\w.-]+(\/[\w.-]*)+$|^[\w.-]+\.py$/.test(span));
}

const missing = (base: string, paths: readonly string[]) => paths.filter((p) => !existsSync(path.join(base, p)));

test('docs/extension.md "Where the code is": every path it names exists, and it names every folder of src/ and webview/', () => {
  const text = section('extension.md', 'Where the code is');
  // Paths from the repository root; a bare `shared/` or `core/` names a kind of folder, not a place.
  const named = codePaths(text).filter((p) => /^(src|webview|trainer|test|scripts)\//.test(p));
  assert.ok(named.length > 20, `only ${named.length} paths found: has the section's format changed?`);
  assert.deepEqual(missing(repoRoot, named), [], 'named in docs/extension.md but not in the repository');
  const folders = ['src', 'webview'].flatMap((root) =>
    readdirSync(path.join(repoRoot, root), { withFileTypes: true }).map((entry) => `${root}/${entry.name}${entry.isDirectory() ? '/' : ''}`),
  );
  assert.deepEqual(
    folders.filter((entry) => !named.includes(entry)),
    [],
    'in the repository but not in docs/extension.md',
  );
});

test('docs/trainer.md "Map": every module it names exists, and it names every trainer module', () => {
  const packageRoot = path.join(repoRoot, 'trainer', 'seed_trainer');
  // The table's rows only: the paths there are relative to trainer/seed_trainer/.
  const rows = section('trainer.md', 'Map')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .join('\n');
  const named = codePaths(rows).filter((p) => p.endsWith('.py') || p.endsWith('/'));
  assert.ok(named.length > 40, `only ${named.length} paths found: has the table's format changed?`);
  assert.deepEqual(missing(packageRoot, named), [], 'named in docs/trainer.md but not in trainer/seed_trainer');
  const modules: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(packageRoot, relative), { withFileTypes: true })) {
      const name = `${relative}${entry.name}`;
      if (entry.isDirectory() && entry.name !== '__pycache__') {
        modules.push(`${name}/`);
        if (name !== 'runlog' && name !== 'assets') walk(`${name}/`);
      } else if (entry.name.endsWith('.py') && entry.name !== '__init__.py') {
        modules.push(name);
      }
    }
  };
  walk('');
  // A package counts as named when one of its modules is.
  const isNamed = (module: string) => (module.endsWith('/') ? named.some((p) => p.startsWith(module)) : named.includes(module));
  assert.deepEqual(
    modules.filter((module) => !isNamed(module)),
    [],
    'in trainer/seed_trainer but not in docs/trainer.md',
  );
});
