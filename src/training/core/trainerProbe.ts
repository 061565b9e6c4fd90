// Runs resources/probe_environment.py with an interpreter and parses its report. No `vscode` import: unit-tested
// in plain Node against a real Python.
import { execFile } from 'node:child_process';

export interface CudaDevice {
  index: number;
  name: string;
  total_memory_bytes: number;
  /** Free memory when probed (absent when the device could not be queried). */
  free_memory_bytes?: number;
  /** Compute capability, e.g. `9.0`. */
  capability?: string;
}

/** `NVIDIA H200 (139.8 GiB, 139.1 GiB free)` */
function describeDevice(device: CudaDevice): string {
  const free = device.free_memory_bytes === undefined ? '' : `, ${formatBytes(device.free_memory_bytes)} free`;
  return `${device.name} (${formatBytes(device.total_memory_bytes)}${free})`;
}

export interface TrainerProbeReport {
  python: { executable: string; version: string };
  trainer: { importable: boolean; version?: string; error?: string };
  torch: {
    importable: boolean;
    version?: string;
    error?: string;
    cuda?: { available: boolean; built_with: string | null; devices: CudaDevice[]; reason?: string };
  };
}

export type ProbeResult =
  | { ok: true; interpreter: string; report: TrainerProbeReport }
  | { ok: false; interpreter: string; error: string };

export function probeInterpreter(interpreter: string, probeScript: string, timeoutMs = 60_000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(interpreter, [probeScript], { timeout: timeoutMs, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) {
        const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : error.message;
        resolve({ ok: false, interpreter, error: `${reason}${stderr ? `\n${stderr.trim()}` : ''}` });
        return;
      }
      try {
        resolve({ ok: true, interpreter, report: parseProbeReport(stdout) });
      } catch (parseError) {
        resolve({ ok: false, interpreter, error: (parseError as Error).message });
      }
    });
  });
}

export function parseProbeReport(stdout: string): TrainerProbeReport {
  const lastLine = stdout.trim().split('\n').pop() ?? '';
  let value: unknown;
  try {
    value = JSON.parse(lastLine);
  } catch {
    throw new Error(`the probe printed no JSON report (last line: ${JSON.stringify(lastLine.slice(0, 200))})`);
  }
  const report = value as Partial<TrainerProbeReport>;
  if (!report.python || !report.trainer || !report.torch) {
    throw new Error('the probe report lacks python, trainer or torch');
  }
  return report as TrainerProbeReport;
}

function formatBytes(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/** One line for a notification. */
export function summarizeProbe(result: ProbeResult): string {
  if (!result.ok) return `Python interpreter ${result.interpreter} could not be probed: ${result.error.split('\n')[0]}`;
  const { python, trainer, torch } = result.report;
  const parts = [`Python ${python.version}`];
  parts.push(trainer.importable ? `seed_trainer ${trainer.version}` : 'seed_trainer not importable');
  if (!torch.importable) parts.push('torch not importable');
  else {
    parts.push(`torch ${torch.version}`);
    const cuda = torch.cuda;
    parts.push(
      cuda?.available
        ? `CUDA: ${cuda.devices.map(describeDevice).join(', ')}`
        : `CUDA: none (${cuda?.reason ?? 'unknown'})`,
    );
  }
  return parts.join(' · ');
}

/** The full report, line by line, for the output channel. */
export function describeProbe(result: ProbeResult): string[] {
  if (!result.ok) return [`Interpreter: ${result.interpreter}`, `Probe failed: ${result.error}`];
  const { python, trainer, torch } = result.report;
  const lines = [`Interpreter: ${python.executable} (Python ${python.version})`];
  lines.push(
    trainer.importable
      ? `Trainer: seed_trainer ${trainer.version}`
      : `Trainer: not importable — ${trainer.error ?? 'unknown'} (run "pip install -e trainer" with this interpreter)`,
  );
  if (!torch.importable) {
    lines.push(`PyTorch: not importable — ${torch.error ?? 'unknown'}`);
    return lines;
  }
  lines.push(`PyTorch: ${torch.version} (CUDA build: ${torch.cuda?.built_with ?? 'none'})`);
  if (torch.cuda?.available) {
    for (const device of torch.cuda.devices) {
      lines.push(`  cuda:${device.index} ${describeDevice(device)}${device.capability ? `, compute capability ${device.capability}` : ''}`);
    }
  } else {
    lines.push(`CUDA: not available — ${torch.cuda?.reason ?? 'unknown'}; training falls back to the CPU`);
  }
  return lines;
}
