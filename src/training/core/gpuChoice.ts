// What "SEED: Train" shows when it asks for GPUs: each GPU with its free memory against the experiment's memory
// estimate (memoryEstimate.ts), and the warning before a launch that will not fit. No `vscode` import.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILTIN_PREFIX, looksLocal } from '../../experiments/core/modelPath';
import { loadYaml } from '../../common/core/lazyRequire';
import type { CudaDevice } from './trainerProbe';
import { formatGiB, type GpuInfo } from './gpuQuery';
import { estimateTrainingMemory, fitWarnings, readModelShape, trainingSettings, type MemoryEstimate } from './memoryEstimate';

/** `estimate` is for one process; `forProcesses(n)` for each of n (smaller per GPU when the experiment shards). */
export type ExperimentEstimate = { ok: true; estimate: MemoryEstimate; forProcesses: (n: number) => MemoryEstimate } | { ok: false; reason: string };

/** The folder of the experiment's policy: a built-in (shipped with the trainer) or a local folder; a hub id has none. */
function policyFolder(modelPath: string, experimentDir: string, builtinRoot: string): string | undefined {
  if (modelPath.startsWith(BUILTIN_PREFIX)) return path.join(builtinRoot, modelPath.slice(BUILTIN_PREFIX.length));
  if (!looksLocal(modelPath, experimentDir)) return undefined;
  const expanded = modelPath === '~' || modelPath.startsWith('~/') ? path.join(os.homedir(), modelPath.slice(1)) : modelPath;
  return path.resolve(experimentDir, expanded);
}

/** The memory estimate of an experiment text, or why there is none (a hub id, no safetensors), with the extension's schema and built-ins. */
export function experimentEstimate(text: string, file: string, extensionRoot: string): ExperimentEstimate {
  const schema = JSON.parse(readFileSync(path.join(extensionRoot, 'schemas', 'experiment.schema.json'), 'utf8')) as Record<string, unknown>;
  const builtinRoot = path.join(extensionRoot, 'trainer', 'seed_trainer', 'assets');
  let data: unknown;
  try {
    data = loadYaml().parse(text);
  } catch (error) {
    return { ok: false, reason: `the experiment does not parse: ${(error as Error).message.split('\n')[0]}` };
  }
  const modelPath = (data as { model?: { path?: unknown } } | null)?.model?.path;
  if (typeof modelPath !== 'string' || !modelPath) return { ok: false, reason: 'the experiment has no model.path' };
  const folder = policyFolder(modelPath, path.dirname(file), builtinRoot);
  if (!folder) return { ok: false, reason: `no estimate: model.path ${modelPath} is a hub id, not a local folder whose weights can be counted` };
  try {
    const shape = readModelShape(folder);
    const settings = trainingSettings(data, schema);
    return { ok: true, estimate: estimateTrainingMemory(shape, settings), forProcesses: (n) => estimateTrainingMemory(shape, settings, n) };
  } catch (error) {
    return { ok: false, reason: `no estimate for model.path ${modelPath}: ${(error as Error).message}` };
  }
}

/** nvidia-smi's list when it answered, else the devices torch saw in the interpreter probe (free memory when known). */
export function gpusOf(query: { ok: true; gpus: GpuInfo[] } | { ok: false; reason: string }, probed: readonly CudaDevice[]): GpuInfo[] {
  if (query.ok) return query.gpus;
  return probed.map((device) => ({
    index: device.index,
    name: device.name,
    totalBytes: device.total_memory_bytes,
    ...(device.free_memory_bytes !== undefined ? { freeBytes: device.free_memory_bytes } : {}),
  }));
}

export interface GpuPickItem {
  index: number;
  label: string;
  description: string;
  /** Whether the estimate fits in its free memory (true without an estimate). */
  fits: boolean;
}

export function gpuPickItems(gpus: readonly GpuInfo[], estimate: MemoryEstimate | undefined): GpuPickItem[] {
  return gpus.map((gpu) => {
    const memory = gpu.freeBytes !== undefined ? `${formatGiB(gpu.freeBytes)} free of ${formatGiB(gpu.totalBytes)}` : `${formatGiB(gpu.totalBytes)} (free memory unknown)`;
    const fits = !estimate || fitWarnings(estimate, [gpu]).length === 0;
    return { index: gpu.index, label: `cuda:${gpu.index}`, description: `${gpu.name} · ${memory}${fits ? '' : ' · too little for this run'}`, fits };
  });
}

/** The warning to confirm before launching on `picked`, or undefined when the estimate fits (or there is none). */
export function launchWarning(estimate: MemoryEstimate | undefined, picked: readonly GpuInfo[]): string | undefined {
  if (!estimate) return undefined;
  const problems = fitWarnings(estimate, picked);
  if (problems.length === 0) return undefined;
  const layout = estimate.sharded
    ? `Each of the ${estimate.processes} GPUs holds 1/${estimate.processes} of the fp32 training state (distributed.strategy: fsdp) and a whole copy of the weights in the compute dtype.`
    : 'Each GPU holds a whole replica of the model under torchrun (distributed.strategy: fsdp shards a full fine-tune).';
  return `This run may not fit: ${problems.join('; ')}. The run needs ${estimate.summary}. ${layout}`;
}
