// The built-in environments as the trainer describes them (trainer/seed_trainer/envs/catalog.py, exported into the
// experiment schema as `x-environments` on `environment.name`): names, summaries, the extra and data each needs, and
// their options as schema fragments — for completion, hover and the environment diagnostics. There is no second list
// here: a new environment or option in the trainer reaches the editor with the regenerated schema. No `vscode` import.
import { loadYaml } from '../../common/core/lazyRequire';
import type { ExperimentSchema, FieldInfo, JsonSchema } from './experimentSchema';
import { LineMap, type TextRange } from './experimentText';

interface DataNeed {
  /** Environment variable naming the data folder, e.g. ALFWORLD_DATA. */
  variable: string;
  default: string;
  /** Folder that must exist under the data folder. */
  marker: string;
  /** Environment option that points elsewhere. */
  option: string;
  how: string;
}

export interface EnvironmentEntry {
  name: string;
  summary: string;
  options: Record<string, JsonSchema>;
  /** The seed-trainer extra it needs, and the pip command that installs it. */
  extra?: string;
  install?: string;
  data?: DataNeed;
}

const OPTIONS_PATH = ['environment', 'options'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The catalog the schema carries, in the trainer's order; entries that do not have the expected shape are left out. */
export function environmentCatalog(schema: ExperimentSchema): Map<string, EnvironmentEntry> {
  const raw = schema.schemaAt(['environment', 'name'])?.['x-environments'];
  const catalog = new Map<string, EnvironmentEntry>();
  if (!Array.isArray(raw)) return catalog;
  for (const value of raw as unknown[]) {
    if (!isRecord(value) || typeof value.name !== 'string' || typeof value.summary !== 'string' || !isRecord(value.options)) continue;
    const name = value.name;
    const data = value.data;
    catalog.set(name, {
      name,
      summary: value.summary,
      options: value.options as Record<string, JsonSchema>,
      ...(typeof value.extra === 'string' ? { extra: value.extra } : {}),
      ...(typeof value.install === 'string' ? { install: value.install } : {}),
      ...(isRecord(data) && typeof data.variable === 'string' && typeof data.marker === 'string' ? { data: data as unknown as DataNeed } : {}),
    });
  }
  return catalog;
}

/** The environment an experiment runs when it names none. */
export function defaultEnvironment(schema: ExperimentSchema): string {
  const value = schema.fieldInfo(['environment', 'name'])?.default;
  return typeof value === 'string' ? value : 'household';
}

/** Hover / completion facts of `environment.options.<key>` of an environment. */
export function optionInfo(schema: ExperimentSchema, entry: EnvironmentEntry, key: string): FieldInfo | undefined {
  const option = entry.options[key];
  return option ? schema.describe([...OPTIONS_PATH, key], option, false) : undefined;
}

/** Markdown for an environment: what it is, what it needs, its options. */
export function environmentMarkdown(entry: EnvironmentEntry): string {
  const parts = [`**${entry.name}** — ${entry.summary}`];
  if (entry.install) parts.push(`Needs the \`${entry.extra ?? ''}\` extra in the trainer's Python: \`${entry.install}\``);
  if (entry.data) parts.push(`Data: \`${entry.data.marker}/\` under \`$${entry.data.variable}\` (default \`${entry.data.default}\`); ${entry.data.how}.`);
  const options = Object.keys(entry.options);
  if (options.length > 0) parts.push(`Options: ${options.map((o) => `\`${o}\``).join(', ')}`);
  return parts.join('\n\n');
}

interface LocatedValue {
  value: unknown;
  /** The value's span (the key's when the value is empty). */
  range: TextRange;
}

export interface EnvironmentInFile {
  /** `environment.name`; undefined when the file names none (the default environment runs). */
  name?: LocatedValue;
  /** `environment.options.<key>` as written. */
  options: Map<string, LocatedValue>;
}

type YamlNode = { value?: unknown; range?: [number, number, number]; items?: Array<{ key?: YamlNode; value?: YamlNode | null }> };

/** `environment.name` and the options of an experiment text, located; tolerant of text being edited. */
export function environmentInFile(text: string): EnvironmentInFile {
  const found: EnvironmentInFile = { options: new Map() };
  let document;
  try {
    document = loadYaml().parseDocument(text, { prettyErrors: false, uniqueKeys: false });
  } catch {
    return found;
  }
  const lines = new LineMap(text);
  const locate = (node: YamlNode | null | undefined, fallback: YamlNode | undefined): LocatedValue | undefined => {
    const range = node?.range ?? fallback?.range;
    if (!range) return undefined;
    const value = node && typeof node === 'object' && 'toJSON' in node ? (node as { toJSON(): unknown }).toJSON() : node?.value;
    return { value, range: lines.span(range[0], range[1]) };
  };
  const environment = document.get('environment', true) as YamlNode | undefined;
  for (const pair of environment?.items ?? []) {
    const key = pair.key?.value;
    if (key === 'name') {
      const name = locate(pair.value, pair.key);
      if (name) found.name = name;
    }
    if (key !== 'options') continue;
    for (const option of pair.value?.items ?? []) {
      const located = typeof option.key?.value === 'string' ? locate(option.value, option.key) : undefined;
      if (located) found.options.set(option.key?.value as string, located);
    }
  }
  return found;
}
