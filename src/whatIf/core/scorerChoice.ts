// Which scorer a what-if runs on: onnxruntime-node in the extension host when the run has an ONNX export that fits
// (seedStudio.whatIf.maxOnnxSizeMB), else the trainer on the run's device — offered, with the reason, never silently.
//
// The default limit, 4096 MB: a Qwen2.5-0.5B export is 2.4 GB in float32 (bench/extension/qwen_shaped_export.py) and
// onnxruntime holds about its size in memory plus one pass's logits (~0.2 GB at 330 tokens × 152k vocabulary), which
// a 16 GB laptop runs at ~6 s a forward pass on 2 cores (bench/results/whatif.json). The next size, 1.5B, is ~6 GB and
// ~3× slower a pass: a 30-step trajectory would take about 20 minutes on a laptop CPU — the trainer's GPU is the
// better path there.

export const DEFAULT_MAX_ONNX_MB = 4096;
const MAX_ONNX_SETTING = 'seedStudio.whatIf.maxOnnxSizeMB';

export type ScorerChoice = { path: 'onnxruntime-node'; exportDir: string } | { path: 'trainer'; reason: string };

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * @param exportDir the export chosen for the trajectory (undefined: the run has none)
 * @param modelBytes its model.onnx plus external data (onnxModelBytes)
 * @param label how to name the export in the reason (its path relative to the run)
 */
export function chooseScorer(exportDir: string | undefined, modelBytes: number | undefined, maxMegabytes: number, label = exportDir): ScorerChoice {
  if (exportDir === undefined || modelBytes === undefined) return { path: 'trainer', reason: 'This run has no ONNX export to rescore with in the editor.' };
  if (modelBytes > maxMegabytes * 1024 ** 2) {
    return { path: 'trainer', reason: `${label} is ${formatBytes(modelBytes)}, above ${MAX_ONNX_SETTING} (${maxMegabytes} MB): too large for onnxruntime-node here.` };
  }
  return { path: 'onnxruntime-node', exportDir };
}
