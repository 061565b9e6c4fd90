import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { describeProbe, parseProbeReport, probeInterpreter, summarizeProbe } from '../../../src/training/core/trainerProbe';
import { repoRoot, trainerPython } from '../support/repoPaths';

const probeScript = path.join(repoRoot, 'resources', 'probe_environment.py');

test('probing the trainer interpreter reports the trainer, torch and CUDA (or why not)', async () => {
  const result = await probeInterpreter(trainerPython(), probeScript);
  assert.ok(result.ok, result.ok ? '' : result.error);
  const { report } = result;
  assert.match(report.python.version, /^3\.\d+/);
  assert.equal(report.trainer.importable, true, report.trainer.error);
  assert.match(report.trainer.version ?? '', /^\d+\.\d+\.\d+/);
  assert.equal(report.torch.importable, true, report.torch.error);
  const cuda = report.torch.cuda!;
  assert.ok(cuda.available ? cuda.devices.length > 0 : (cuda.reason ?? '').length > 0);
  assert.match(summarizeProbe(result), /seed_trainer .* · torch /);
});

test('a missing interpreter is reported, not thrown', async () => {
  const result = await probeInterpreter(path.join(repoRoot, 'no-such-python'), probeScript);
  assert.equal(result.ok, false);
  assert.match(summarizeProbe(result), /could not be probed: not found/);
  assert.match(describeProbe(result).join('\n'), /Probe failed/);
});

test('an interpreter without the trainer says how to install it', () => {
  const report = parseProbeReport(
    'noise\n{"python":{"executable":"/p","version":"3.11.7"},"trainer":{"importable":false,"error":"ModuleNotFoundError"},"torch":{"importable":false,"error":"ModuleNotFoundError"}}\n',
  );
  const lines = describeProbe({ ok: true, interpreter: '/p', report });
  assert.match(lines.join('\n'), /pip install -e trainer/);
  assert.throws(() => parseProbeReport('Traceback ...'), /printed no JSON report/);
});

test('CUDA devices are named with their memory in the summary and the details', () => {
  const report = parseProbeReport(
    JSON.stringify({
      python: { executable: '/p', version: '3.11.7' },
      trainer: { importable: true, version: '0.1.0' },
      torch: {
        importable: true,
        version: '2.13.0+cu128',
        cuda: {
          available: true,
          built_with: '12.8',
          devices: [
            { index: 0, name: 'NVIDIA H200', total_memory_bytes: 150_118_400_000, free_memory_bytes: 149_000_000_000, capability: '9.0' },
            { index: 1, name: 'NVIDIA H200', total_memory_bytes: 150_118_400_000 },
          ],
        },
      },
    }),
  );
  const result = { ok: true as const, interpreter: '/p', report };
  assert.match(summarizeProbe(result), /CUDA: NVIDIA H200 \(139\.8 GiB, 138\.8 GiB free\), NVIDIA H200 \(139\.8 GiB\)$/);
  assert.match(describeProbe(result).join('\n'), /cuda:0 NVIDIA H200 \(139\.8 GiB, 138\.8 GiB free\), compute capability 9\.0/);
});
