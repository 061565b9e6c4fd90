// Which run.json files of a workspace are runs to list: the `seedStudio.runs.include` / `exclude` globs, relative to
// a workspace folder. The default lists the workspace's runs folders (`runs/<id>/run.json`, at any depth) and never
// a test fixture, a checkpoint's copy or a dependency: a fixture claiming a live trainer on another host must not
// light up the status bar. Runs the extension starts are followed whatever the rules. No `vscode` import.
import picomatch from 'picomatch';

export interface DiscoveryRules {
  include: readonly string[];
  exclude: readonly string[];
}

export const DEFAULT_DISCOVERY: DiscoveryRules = {
  include: ['**/runs/*/run.json'],
  exclude: ['**/node_modules/**', '**/.git/**', '**/fixtures/**', '**/checkpoints/**'],
};

function patterns(value: unknown, fallback: readonly string[]): string[] {
  if (!Array.isArray(value)) return [...fallback];
  return value.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim());
}

/** The rules from the two settings' values (anything that is not a list of strings falls back to the default). */
export function discoveryRules(include: unknown, exclude: unknown): DiscoveryRules {
  return { include: patterns(include, DEFAULT_DISCOVERY.include), exclude: patterns(exclude, DEFAULT_DISCOVERY.exclude) };
}

/** One glob of several (`{a,b}`), as VS Code's file search takes it; undefined for none. */
export function joinGlobs(globs: readonly string[]): string | undefined {
  if (globs.length === 0) return undefined;
  return globs.length === 1 ? globs[0] : `{${globs.join(',')}}`;
}

/** Decides for a path relative to a workspace folder (`/`-separated) whether it is a run.json to list. */
export class RunDiscovery {
  // Compiled on first use: compiling the globs takes milliseconds, and the model is made at activation, the scan after.
  private matchers: { included: (file: string) => boolean; excluded: (file: string) => boolean } | undefined;

  constructor(readonly rules: DiscoveryRules = DEFAULT_DISCOVERY) {}

  matches(relativePath: string): boolean {
    const options = { dot: true };
    const { include, exclude } = this.rules;
    this.matchers ??= {
      included: include.length > 0 ? picomatch([...include], options) : () => false,
      excluded: exclude.length > 0 ? picomatch([...exclude], options) : () => false,
    };
    const file = relativePath.replace(/\\/g, '/').replace(/^\.\//, '');
    return this.matchers.included(file) && !this.matchers.excluded(file);
  }
}
