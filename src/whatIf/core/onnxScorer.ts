// Log-probs of response tokens under an exported model, with onnxruntime-node. The runtime (a native module of
// ~20 MB) is required on first use only, never at activation (bench/extension/extension.mjs measures activation).
import type * as Ort from 'onnxruntime-node';
import { WhatIfError } from './errors';

let ort: typeof Ort | undefined;

function loadOrt(): typeof Ort {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load of a native module
    ort ??= require('onnxruntime-node') as typeof Ort;
  } catch (error) {
    throw new WhatIfError(
      'runtime',
      `onnxruntime-node cannot load on ${process.platform}-${process.arch} (${(error as Error).message.split('\n')[0]}): install the SEED Studio VSIX built for this platform.`,
    );
  }
  return ort;
}

export type ExecutionProvider = 'cuda' | 'cpu';

export class OnnxScorer {
  private constructor(
    private readonly session: Ort.InferenceSession,
    readonly provider: ExecutionProvider,
    /** Why the CUDA execution provider was asked for and not used (the CPU ran instead). */
    readonly cudaFallback?: string,
  ) {}

  /** Opens the model on the CUDA execution provider when asked and its libraries load, else on the CPU. */
  static async open(modelPath: string, options: { preferCuda?: boolean; threads?: number } = {}): Promise<OnnxScorer> {
    const runtime = loadOrt();
    const base: Ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all' };
    if (options.threads) base.intraOpNumThreads = options.threads;
    let cudaFallback: string | undefined;
    if (options.preferCuda) {
      try {
        return new OnnxScorer(await runtime.InferenceSession.create(modelPath, { ...base, executionProviders: ['cuda'] }), 'cuda');
      } catch (error) {
        // No CUDA provider libraries (onnxruntime-node installed with ONNXRUNTIME_NODE_INSTALL=skip ships none), or no
        // GPU: the CPU runs it, and the caller says so.
        cudaFallback = `the CUDA execution provider did not load (${(error as Error).message.split('\n')[0]})`;
      }
    }
    return new OnnxScorer(await runtime.InferenceSession.create(modelPath, { ...base, executionProviders: ['cpu'] }), 'cpu', cudaFallback);
  }

  /** log softmax(logits / temperature) of each response token, predicted from the prompt and the tokens before it
   * (the trainer's response_logprobs). */
  async responseLogprobs(promptIds: readonly number[], responseIds: ArrayLike<number>, temperature: number): Promise<Float32Array> {
    const runtime = loadOrt();
    const length = promptIds.length + responseIds.length;
    const ids = new BigInt64Array(length);
    promptIds.forEach((id, i) => (ids[i] = BigInt(id)));
    for (let j = 0; j < responseIds.length; j++) ids[promptIds.length + j] = BigInt(responseIds[j]!);
    const mask = new BigInt64Array(length).fill(1n);
    const out = await this.session.run({
      input_ids: new runtime.Tensor('int64', ids, [1, length]),
      attention_mask: new runtime.Tensor('int64', mask, [1, length]),
    });
    const logits = out.logits;
    if (!logits || logits.dims.length !== 3) throw new Error('the model has no logits output [batch, sequence, vocab]');
    try {
      const vocab = logits.dims[2]!;
      const data = logits.data as Float32Array;
      const logp = new Float32Array(responseIds.length);
      for (let j = 0; j < responseIds.length; j++) {
        const row = (promptIds.length - 1 + j) * vocab;
        logp[j] = pickedLogSoftmax(data, row, vocab, responseIds[j]!, temperature);
      }
      return logp;
    } finally {
      logits.dispose();
    }
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/** log softmax(row / T)[picked] in float64 over one row of `vocab` logits starting at `offset`. */
function pickedLogSoftmax(data: Float32Array, offset: number, vocab: number, picked: number, temperature: number): number {
  const row = data.subarray(offset, offset + vocab);
  let max = -Infinity;
  for (const value of row) max = Math.max(max, value);
  const scaledMax = max / temperature;
  let sum = 0;
  for (const value of row) sum += Math.exp(value / temperature - scaledMax);
  return row[picked]! / temperature - scaledMax - Math.log(sum);
}
