// Issue 54 item 9: the walkthrough's Train offered 69 experiment files, test fixtures among them, alphabetically.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EXPERIMENT_SEARCH_EXCLUDE, experimentChoices } from '../../../src/training/core/experimentChoices';
import { repoRoot } from '../support/repoPaths';

const choices = (paths: string[]): string[] => experimentChoices(paths, (p) => p);

/** The experiment files of the checkout's sources, relative (not node_modules, hidden folders, what tests wrote). */
function checkoutExperiments(dir = repoRoot): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    const skipped = entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'test-results';
    if (entry.isDirectory()) return skipped ? [] : checkoutExperiments(full);
    return /\.seed\.ya?ml$/.test(entry.name) ? [path.relative(repoRoot, full).split(path.sep).join('/')] : [];
  });
}

test('no experiment under node_modules, .git, out or dist; test folders only when nothing else is left', () => {
  const files = ['node_modules/pkg/a.seed.yaml', '.git/x.seed.yaml', 'out/test/b.seed.yaml', 'dist/c.seed.yaml', 'test/fixtures/valid/d.seed.yaml', 'tests/e.seed.yaml', 'pkg/fixtures/f.seed.yaml', 'experiments/g.seed.yaml'];
  assert.deepEqual(choices(files), ['experiments/g.seed.yaml']);
  // A workspace of fixtures only (the extension's own tests, a bug report): they are what there is.
  assert.deepEqual(choices(files.filter((f) => f !== 'experiments/g.seed.yaml')), ['tests/e.seed.yaml', 'pkg/fixtures/f.seed.yaml', 'test/fixtures/valid/d.seed.yaml']);
  assert.deepEqual(choices(['node_modules/a.seed.yaml', 'out/b.seed.yaml']), []);
  // Folder names, not parts of names: "latest/", "contest.seed.yaml" and a Windows path are ordinary.
  assert.deepEqual(choices(['latest/a.seed.yaml', 'contest.seed.yaml', 'runs\\Test\\b.seed.yaml', 'runs\\c.seed.yaml']), ['contest.seed.yaml', 'latest/a.seed.yaml', 'runs\\c.seed.yaml']);
  assert.equal(EXPERIMENT_SEARCH_EXCLUDE, '{**/node_modules/**,**/.git/**,**/out/**,**/dist/**}');
});

test('the shallowest first, then by file name, then by path', () => {
  const files = ['z/deep/a.seed.yaml', 'b/household.seed.yaml', 'top.seed.yaml', 'a/household.seed.yaml', 'a/alpha.seed.yaml'];
  assert.deepEqual(choices(files), ['top.seed.yaml', 'a/alpha.seed.yaml', 'a/household.seed.yaml', 'b/household.seed.yaml', 'z/deep/a.seed.yaml']);
  const uris = files.map((p) => ({ fsPath: `/w/${p}`, rel: p }));
  assert.deepEqual(experimentChoices(uris, (u) => u.rel)[0], uris[2], 'the caller’s own objects, reordered');
});

test('this checkout: its examples and templates, not its test fixtures', () => {
  const found = checkoutExperiments();
  assert.ok(found.length > 60, `${found.length} experiment files`);
  const offered = choices(found);
  assert.ok(offered.length > 0 && offered.length < 20, offered.join('\n'));
  assert.ok(offered.every((p) => !p.startsWith('test/')), offered.join('\n'));
  assert.ok(offered.indexOf('examples/household-demo.seed.yaml') < offered.findIndex((p) => p.startsWith('resources/templates/')), 'examples/ before resources/templates/ (shallower)');
});
