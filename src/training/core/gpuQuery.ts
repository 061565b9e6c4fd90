// The GPUs of this machine and their free memory, from `nvidia-smi --query-gpu` (what "SEED: Train" shows when it
// asks which GPUs to train on). The parse is strict and located: an output it does not understand is an error that
// quotes the line, never a silently wrong list. No `vscode` import (unit-tested on captured outputs).
import { execFile } from 'node:child_process';

const NVIDIA_SMI_ARGS = ['--query-gpu=index,name,memory.total,memory.used,memory.free', '--format=csv,noheader,nounits'] as const;

export interface GpuInfo {
  index: number;
  name: string;
  /** Bytes (nvidia-smi reports MiB). */
  totalBytes: number;
  usedBytes?: number;
  /** Absent when nvidia-smi cannot say (`[N/A]`, e.g. a MIG-enabled device). */
  freeBytes?: number;
}

export type GpuQuery = { ok: true; gpus: GpuInfo[] } | { ok: false; reason: string };

const MIB = 2 ** 20;

function mib(field: string, what: string, line: number): number | undefined {
  const value = field.trim();
  if (/^\[?N\/A\]?$|^\[Not Supported\]$|^\[Insufficient Permissions\]$/i.test(value)) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new Error(`nvidia-smi output, line ${line}: ${what} is ${JSON.stringify(value)}, not a number of MiB`);
  return Number(value) * MIB;
}

/** The rows of `nvidia-smi --query-gpu=index,name,memory.total,memory.used,memory.free --format=csv,noheader,nounits`. */
export function parseNvidiaSmi(stdout: string): GpuInfo[] {
  const gpus: GpuInfo[] = [];
  const lines = stdout.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    if (/^No devices were found/i.test(line)) return;
    const fields = line.split(',');
    // A GPU name may contain a comma: the index is the first field and the three numbers the last three.
    if (fields.length < 5) throw new Error(`nvidia-smi output, line ${i + 1}: expected index, name, total, used, free; got ${JSON.stringify(line.slice(0, 200))}`);
    const index = fields[0]!.trim();
    if (!/^\d+$/.test(index)) throw new Error(`nvidia-smi output, line ${i + 1}: the index is ${JSON.stringify(index)}`);
    const [total, used, free] = fields.slice(-3) as [string, string, string];
    const totalBytes = mib(total, 'memory.total', i + 1);
    if (totalBytes === undefined) throw new Error(`nvidia-smi output, line ${i + 1}: no total memory for GPU ${index}`);
    const usedBytes = mib(used, 'memory.used', i + 1);
    const freeBytes = mib(free, 'memory.free', i + 1);
    gpus.push({
      index: Number(index),
      name: fields.slice(1, -3).join(',').trim(),
      totalBytes,
      ...(usedBytes !== undefined ? { usedBytes } : {}),
      ...(freeBytes !== undefined ? { freeBytes } : {}),
    });
  });
  return gpus;
}

type Exec = (file: string, args: readonly string[], options: { timeout: number }, callback: (error: Error | null, stdout: string, stderr: string) => void) => void;

/** Asks nvidia-smi; no driver, a failing nvidia-smi or an unreadable output is a reason, not an exception. */
export function queryGpus(options: { binary?: string; timeoutMs?: number; exec?: Exec } = {}): Promise<GpuQuery> {
  const binary = options.binary ?? 'nvidia-smi';
  const run: Exec = options.exec ?? ((file, args, opts, callback) => execFile(file, [...args], { ...opts, encoding: 'utf8' }, callback));
  return new Promise((resolve) => {
    run(binary, NVIDIA_SMI_ARGS, { timeout: options.timeoutMs ?? 10_000 }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const said = `${stdout ?? ''}\n${stderr ?? ''}`.split('\n').map((l) => l.trim()).find(Boolean);
        if (code === 'ENOENT') resolve({ ok: false, reason: `${binary} not found (no NVIDIA driver on this machine)` });
        else if (/No devices were found/i.test(said ?? '')) resolve({ ok: true, gpus: [] });
        else resolve({ ok: false, reason: `${binary} failed: ${said ?? error.message}` });
        return;
      }
      try {
        resolve({ ok: true, gpus: parseNvidiaSmi(stdout) });
      } catch (parseError) {
        resolve({ ok: false, reason: (parseError as Error).message });
      }
    });
  });
}

export function formatGiB(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}
