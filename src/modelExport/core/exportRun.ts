// One export through the trainer (no vscode): `python -m seed_trainer export --checkpoint DIR --format F --out OUT`,
// run as every short trainer command is (src/python/core/trainerCommand.ts: the trainer's environment, output line by
// line, SIGTERM when cancelled). The trainer writes into `.tmp-<out name>` and renames it to OUT at the very end, so
// OUT is never half-written; a killed trainer (SIGTERM ends Python without its cleanup) leaves that temporary folder,
// and the exports/ folder it created, behind: both are removed here after a cancel.
import { existsSync, readdirSync, rmSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { runTrainerCommand } from '../../python/core/trainerCommand';
import { exportArgs, partialExportDir, type ExportFormat } from './exportChoices';
import { exportFailure, parseExportLine, type ExportLine } from './exportProgress';

export interface ExportRunOptions {
  python: string;
  env?: Record<string, string>;
  weightsDir: string;
  format: ExportFormat;
  out: string;
  signal?: AbortSignal;
  /** Each line of the trainer's output as it comes, classified (undefined: blank). */
  onLine?: (line: ExportLine | undefined, raw: string, stream: 'stdout' | 'stderr') => void;
}

export type ExportOutcome =
  | { status: 'exported'; dir: string; seconds: number }
  | { status: 'cancelled'; removed: string[] }
  | { status: 'failed'; reason: string; missingExtra?: 'export' };

/** Runs the export to its end; rejects with a TrainerStartError when the interpreter cannot start. */
export async function runExport(options: ExportRunOptions): Promise<ExportOutcome> {
  const started = performance.now();
  const exportsDir = path.dirname(options.out);
  const hadExportsDir = existsSync(exportsDir);
  let exported: string | undefined;
  const take = (stream: 'stdout' | 'stderr') => (raw: string) => {
    const line = parseExportLine(raw, stream);
    if (line?.kind === 'exported') exported = line.path;
    options.onLine?.(line, raw, stream);
  };
  const result = await runTrainerCommand({
    python: options.python,
    args: exportArgs(options.weightsDir, options.format, options.out),
    onStdout: take('stdout'),
    onStderr: take('stderr'),
    ...(options.env ? { env: options.env } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // Finished before the cancel reached it: the export is whole and stays.
  if (result.code === 0 && exported !== undefined) return { status: 'exported', dir: exported, seconds: (performance.now() - started) / 1000 };
  if (result.cancelled) return { status: 'cancelled', removed: removePartial(options.out, hadExportsDir) };
  if (result.code === 0) return { status: 'failed', reason: 'the trainer finished without saying where it wrote the export' };
  return { status: 'failed', ...exportFailure(result.code, result.signal, result.stderr) };
}

/** Removes what a killed export leaves: its temporary folder, and exports/ when this export created it and it is
 * empty now. Returns the folders removed. */
export function removePartial(out: string, hadExportsDir: boolean): string[] {
  const removed: string[] = [];
  const partial = partialExportDir(out);
  if (existsSync(partial)) {
    rmSync(partial, { recursive: true, force: true, maxRetries: 3 });
    removed.push(partial);
  }
  const exportsDir = path.dirname(out);
  if (!hadExportsDir && existsSync(exportsDir) && readdirSync(exportsDir).length === 0) {
    rmdirSync(exportsDir);
    removed.push(exportsDir);
  }
  return removed;
}
