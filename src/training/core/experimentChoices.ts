// Which experiment files "SEED: Train" offers when none is open (the walkthrough's Train button too), and in which
// order. A repository checkout of SEED Studio holds 69 `*.seed.yaml`, most of them test fixtures: the picker offered
// them all, alphabetically. No `vscode` import.

/** Folders whose experiments are never offered: dependencies, version control, build output. */
const NEVER_OFFERED = new Set(['node_modules', '.git', 'out', 'dist']);
/** Folders whose experiments are offered only when the workspace has no other. */
const TEST_FOLDERS = new Set(['test', 'tests', 'fixtures']);

/** The exclude glob for the file search, so that the search's result limit is not spent on files never offered. */
export const EXPERIMENT_SEARCH_EXCLUDE = `{${[...NEVER_OFFERED].map((folder) => `**/${folder}/**`).join(',')}}`;

/**
 * The experiments to offer, from each file's path relative to its workspace folder (`/` or `\` separated): none under
 * node_modules, .git, out or dist; none under a folder named test, tests or fixtures unless nothing else is left; the
 * shallowest first, then by file name, then by path.
 */
export function experimentChoices<T>(files: readonly T[], relativePath: (file: T) => string): T[] {
  const described = files.map((file) => {
    const parts = relativePath(file).split(/[/\\]+/).filter(Boolean);
    const folders = parts.slice(0, -1).map((folder) => folder.toLowerCase());
    return { file, path: parts.join('/'), name: parts[parts.length - 1] ?? '', depth: folders.length, folders };
  });
  const offered = described.filter((d) => !d.folders.some((folder) => NEVER_OFFERED.has(folder)));
  const ordinary = offered.filter((d) => !d.folders.some((folder) => TEST_FOLDERS.has(folder)));
  const shown = ordinary.length > 0 ? ordinary : offered;
  return shown
    .sort((a, b) => a.depth - b.depth || a.name.localeCompare(b.name) || a.path.localeCompare(b.path))
    .map((d) => d.file);
}
