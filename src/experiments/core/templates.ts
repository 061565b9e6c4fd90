// The templates of "SEED: New Experiment" (resources/templates/*.seed.yaml). A template's first line names it:
// `# SEED template: <label> — <description>`; `{{name}}` is replaced by the experiment's name. No `vscode` import.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ExperimentTemplate {
  id: string;
  label: string;
  description: string;
  file: string;
}

const HEADER = /^#\s*SEED template:\s*(.+?)\s+—\s+(.+)$/;

export function listTemplates(dir: string): ExperimentTemplate[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.seed.yaml'))
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
      const match = HEADER.exec(first.trim());
      return {
        id: name.slice(0, -'.seed.yaml'.length),
        label: match?.[1] ?? name,
        description: match?.[2] ?? '',
        file,
      };
    });
}

const EXPERIMENT_SUFFIX = /(\.seed)?\.ya?ml$/i;

/** A valid experiment name from free text (letters, digits, `-`, `_`, `.`); a typed file extension is dropped. */
export function experimentName(text: string): string {
  let name = text.trim();
  // "demo.seed.yaml" names the experiment "demo": the extension is added once, when the file is named.
  while (EXPERIMENT_SUFFIX.test(name)) name = name.replace(EXPERIMENT_SUFFIX, '');
  return name.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'experiment';
}

/** The file name of an experiment called `name`: `<name>.seed.yaml`, never with the extension twice. */
export function experimentFileName(name: string): string {
  return `${experimentName(name)}.seed.yaml`;
}

/** What the New Experiment name box says under a name: the file it will be saved as (never a refusal). */
export function savedAsHint(text: string): string {
  const name = experimentName(text);
  return name === text.trim() ? `Saved as ${experimentFileName(text)}` : `Saved as ${experimentFileName(text)} (experiment name ${name})`;
}

/** The template's text for an experiment called `name` (its header line kept as a comment). */
export function instantiateTemplate(template: ExperimentTemplate, name: string): string {
  return readFileSync(template.file, 'utf8').replace(/\{\{name\}\}/g, experimentName(name));
}
