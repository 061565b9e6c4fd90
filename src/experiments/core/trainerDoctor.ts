// Asks an interpreter what it can run: `python -m seed_trainer.doctor --json` in the trainer folder the extension
// ships (so it answers before the trainer is installed, with the standard library alone), its report checked against
// schemas/doctor.schema.json (the trainer's tests check its side against the same file). Cached per interpreter and
// environment; never run at activation, only when an experiment names an environment that needs an extra or data, or
// when Set Up Trainer offers the extras. No `vscode` import.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020';
import { loadAjv2020 } from '../../common/core/lazyRequire';

import type { DoctorReport } from '../../runs/shared/generated/doctor';

export type { DoctorReport };

export type DoctorResult = { ok: true; interpreter: string; report: DoctorReport } | { ok: false; interpreter: string; error: string };

const validators = new Map<string, ValidateFunction>();

function validatorFor(schemaFile: string): ValidateFunction {
  let validate = validators.get(schemaFile);
  if (!validate) {
    const Ajv2020 = loadAjv2020();
    validate = new Ajv2020({ allErrors: false, strict: false, allowUnionTypes: true }).compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);
    validators.set(schemaFile, validate);
  }
  return validate;
}

/** The report on the last line of the doctor's output, checked against the schema; throws saying what is wrong. */
export function parseDoctorReport(stdout: string, schemaFile: string): DoctorReport {
  const lastLine = stdout.trim().split('\n').pop() ?? '';
  let value: unknown;
  try {
    value = JSON.parse(lastLine);
  } catch {
    throw new Error(`the trainer's doctor printed no JSON report (last line: ${JSON.stringify(lastLine.slice(0, 200))})`);
  }
  const validate = validatorFor(schemaFile);
  if (!validate(value)) {
    const first = validate.errors?.[0];
    throw new Error(`the trainer's doctor report does not follow doctor.schema.json: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim());
  }
  return value as DoctorReport;
}

export interface DoctorOptions {
  /** The extension's trainer folder (holds seed_trainer/). */
  trainerSource: string;
  schemaFile: string;
  /** Added to this process's environment (the `seedStudio.trainer.env` setting: ALFWORLD_DATA may be there). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

export function runDoctor(python: string, options: DoctorOptions): Promise<DoctorResult> {
  return new Promise((resolve) => {
    execFile(
      python,
      ['-m', 'seed_trainer.doctor', '--json'],
      { cwd: options.trainerSource, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 30_000, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) {
          const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : error.message;
          resolve({ ok: false, interpreter: python, error: `${reason}${stderr ? `\n${stderr.trim()}` : ''}` });
          return;
        }
        try {
          resolve({ ok: true, interpreter: python, report: parseDoctorReport(stdout, options.schemaFile) });
        } catch (parseError) {
          resolve({ ok: false, interpreter: python, error: (parseError as Error).message });
        }
      },
    );
  });
}

/** One doctor run per interpreter and environment until invalidated (Set Up Trainer, a changed setting); a failed
 *  run is not kept, so the next question asks again. */
export class DoctorCache {
  private readonly results = new Map<string, Promise<DoctorResult>>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly run: (python: string, env: Record<string, string>) => Promise<DoctorResult>) {}

  get(python: string, env: Record<string, string> = {}): Promise<DoctorResult> {
    const key = JSON.stringify([python, Object.entries(env).sort()]);
    let result = this.results.get(key);
    if (!result) {
      result = this.run(python, env);
      this.results.set(key, result);
      void result.then((r) => {
        if (!r.ok && this.results.get(key) === result) this.results.delete(key);
      });
    }
    return result;
  }

  /** Forget every report and tell the listeners (open experiments are checked again). */
  invalidate(): void {
    this.results.clear();
    for (const listener of this.listeners) listener();
  }

  onInvalidate(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

/** The cache of an installed extension: its own trainer folder and schema. */
export function doctorFor(extensionRoot: string): DoctorCache {
  const trainerSource = path.join(extensionRoot, 'trainer');
  const schemaFile = path.join(extensionRoot, 'schemas', 'doctor.schema.json');
  return new DoctorCache((python, env) => runDoctor(python, { trainerSource, schemaFile, env }));
}
