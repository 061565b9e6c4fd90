// What stands between an experiment's environment and a run, found before the run: an `environment.name` that is no
// built-in environment (the trainer refuses it at start), an extra the trainer's Python lacks (`pip install
// 'seed-trainer[textworld]'`, with a quick fix), and data that is not there (ALFWorld's json_2.1.1/). Warnings, not
// errors: the file is valid; the interpreter or the disk is not ready. Installed extras and the default data folder
// come from the trainer's doctor (trainerDoctor.ts); a data folder written in the file is checked here. No `vscode`.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DoctorReport } from './trainerDoctor';
import { environmentInFile, type EnvironmentEntry } from './environmentCatalog';
import type { ExperimentProblem } from './experimentSchema';
import type { TextRange } from './experimentText';
import { DID_YOU_MEAN, closest } from './schemaErrors';

export const MISSING_EXTRA = 'missing-extra';

function warning(field: string, message: string, range: TextRange, code?: string): ExperimentProblem {
  return { message: `${field}: ${message}`, range, severity: 'warning', field, source: 'environment', ...(code ? { code } : {}) };
}

/** The extra a missing-extra problem asks for (from its message's pip command). */
export function extraOfProblem(message: string): string | undefined {
  return /seed-trainer\[([\w-]+)\]/.exec(message)?.[1];
}

/** The environment name an experiment text names, if it is a built-in one (`undefined` for a custom factory). */
export function namedEnvironment(text: string, catalog: ReadonlyMap<string, EnvironmentEntry>, fallback: string): EnvironmentEntry | undefined {
  const value = environmentInFile(text).name?.value;
  return catalog.get(typeof value === 'string' ? value : fallback);
}

export interface EnvironmentCheck {
  catalog: ReadonlyMap<string, EnvironmentEntry>;
  /** The environment run when the file names none. */
  defaultName: string;
  /** The doctor's report for the trainer's Python; undefined: not asked (untrusted workspace) or it failed. */
  report?: DoctorReport;
}

/** The environment problems of an experiment text (the schema's problems come first, from ExperimentSchema). */
export function environmentProblems(text: string, check: EnvironmentCheck): ExperimentProblem[] {
  const found = environmentInFile(text);
  const name = found.name?.value ?? check.defaultName;
  if (typeof name !== 'string' || name.includes(':')) return []; // the schema objects, or `package.module:Factory`
  const nameRange = found.name?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const entry = check.catalog.get(name);
  if (!entry) {
    const known = [...check.catalog.keys()];
    const suggestion = closest(name, known);
    return [
      warning(
        'environment.name',
        `unknown environment \`${name}\`${suggestion ? ` (did you mean \`${suggestion}\`?)` : ''}; the trainer will refuse it. Built in: ${known.join(', ')}; or \`package.module:Factory\` for an environment of your own`,
        nameRange,
        suggestion ? DID_YOU_MEAN : undefined,
      ),
    ];
  }
  const problems: ExperimentProblem[] = [];
  const reported = check.report?.environments.find((env) => env.name === name);
  if (reported && !reported.installed && entry.install) {
    problems.push(
      warning(
        'environment.name',
        `\`${name}\` needs the \`${entry.extra ?? ''}\` extra, which the trainer's Python (${check.report?.python.executable ?? '?'}) does not have: ${entry.install}`,
        nameRange,
        MISSING_EXTRA,
      ),
    );
  }
  const data = entry.data;
  if (data) {
    const option = found.options.get(data.option);
    if (typeof option?.value === 'string' && option.value) {
      // The trainer resolves a relative folder against its working folder, which the editor cannot know: only an
      // absolute or home-relative one is checked.
      const folder = option.value === '~' || option.value.startsWith('~/') ? path.join(os.homedir(), option.value.slice(1)) : option.value;
      if (path.isAbsolute(folder) && !existsSync(path.join(folder, data.marker))) {
        problems.push(warning(`environment.options.${data.option}`, `no ${data.marker}/ under ${option.value}: ${data.how}`, option.range));
      }
    } else if (reported?.data && !reported.data.found) {
      problems.push(
        warning('environment.name', `\`${name}\` has no data: no ${data.marker}/ under ${reported.data.path} ($${data.variable}): ${data.how}`, nameRange),
      );
    }
  }
  return problems;
}
