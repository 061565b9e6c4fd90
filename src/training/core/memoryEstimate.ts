// An estimate of the GPU memory one training process of an experiment needs, for "SEED: Train" to warn before a
// launch that cannot fit. It is an estimate, and says so: the training state is exact arithmetic on the parameter
// count (the trainer's memory.training_bytes: 18 bytes per parameter for a full fine-tune, compute-dtype base + 16
// bytes per adapter parameter for LoRA; sharded over N GPUs with distributed.strategy fsdp, memory.
// sharded_training_bytes; docs/trainer.md "Memory"); activations, logits and the rollout KV cache are
// rough (transformer activation sizes per token as in Korthikanti et al. 2022 with fused attention, no
// fragmentation, no CUDA context). Parameters are counted from the model folder's safetensors headers, so any
// architecture counts exactly. Defaults of unset experiment fields come from schemas/experiment.schema.json.
// No `vscode` import.
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';

export const GIB = 2 ** 30;
/** fp32 weight + fp32 gradient + AdamW's two fp32 moments (seed_trainer/compute/memory.py MASTER_BYTES). */
const MASTER_BYTES = 16;
/** Per layer and token, activations kept for the backward pass in a 16-bit dtype with fused attention. */
const ACTIVATION_BYTES_PER_HIDDEN = 34;

export interface ModelShape {
  parameters: number;
  /** 2-D weights by name (rows, columns): what LoRA adapters attach to. */
  matrices: Array<{ name: string; rows: number; cols: number }>;
  hiddenSize?: number;
  layers?: number;
  vocabSize?: number;
  /** Key/value width per token and layer (heads × head dim). */
  kvWidth?: number;
  /** Parameters of the largest decoder layer (`….layers.N.…` tensors): what FSDP all-gathers at a time. */
  largestLayerParameters?: number;
}

/** The tensors of one safetensors file (its JSON header: name → dtype, shape, offsets). */
function safetensorsHeader(file: string): Record<string, { shape?: number[] }> {
  const fd = openSync(file, 'r');
  try {
    const size = Buffer.alloc(8);
    if (readSync(fd, size, 0, 8, 0) !== 8) throw new Error(`${file}: shorter than a safetensors header`);
    const length = Number(size.readBigUInt64LE(0));
    if (!Number.isSafeInteger(length) || length <= 0 || length > 100 * 2 ** 20) throw new Error(`${file}: implausible safetensors header length ${length}`);
    const header = Buffer.alloc(length);
    if (readSync(fd, header, 0, length, 8) !== length) throw new Error(`${file}: truncated safetensors header`);
    return JSON.parse(header.toString('utf8')) as Record<string, { shape?: number[] }>;
  } finally {
    closeSync(fd);
  }
}

/** The model folder's parameters (safetensors, one file or an index of shards) and its config.json sizes. */
export function readModelShape(dir: string): ModelShape {
  const index = path.join(dir, 'model.safetensors.index.json');
  const files = existsSync(index)
    ? [...new Set(Object.values((JSON.parse(readFileSync(index, 'utf8')) as { weight_map?: Record<string, string> }).weight_map ?? {}))].map((f) => path.join(dir, f))
    : [path.join(dir, 'model.safetensors')];
  if (files.length === 0 || !files.every((file) => existsSync(file))) throw new Error(`${dir}: no safetensors weights (model.safetensors or its index) to count parameters from`);
  let parameters = 0;
  const matrices: ModelShape['matrices'] = [];
  const layers = new Map<string, number>();
  for (const file of files) {
    for (const [name, tensor] of Object.entries(safetensorsHeader(file))) {
      if (name === '__metadata__' || !Array.isArray(tensor.shape)) continue;
      const count = tensor.shape.reduce((a, b) => a * b, 1);
      parameters += count;
      if (tensor.shape.length === 2) matrices.push({ name, rows: tensor.shape[0]!, cols: tensor.shape[1]! });
      const layer = /^(.*\.layers\.\d+)\./.exec(name)?.[1];
      if (layer) layers.set(layer, (layers.get(layer) ?? 0) + count);
    }
  }
  const shape: ModelShape = { parameters, matrices };
  if (layers.size > 0) shape.largestLayerParameters = Math.max(...layers.values());
  const configFile = path.join(dir, 'config.json');
  if (existsSync(configFile)) {
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    const num = (key: string): number | undefined => (typeof config[key] === 'number' ? (config[key] as number) : undefined);
    const hidden = num('hidden_size');
    const heads = num('num_attention_heads');
    const kvHeads = num('num_key_value_heads') ?? heads;
    const headDim = num('head_dim') ?? (hidden && heads ? hidden / heads : undefined);
    if (hidden) shape.hiddenSize = hidden;
    const layers = num('num_hidden_layers');
    if (layers) shape.layers = layers;
    const vocab = num('vocab_size');
    if (vocab) shape.vocabSize = vocab;
    if (kvHeads && headDim) shape.kvWidth = kvHeads * headDim;
  }
  return shape;
}

export interface TrainingSettings {
  dtype: 'auto' | 'float32' | 'bfloat16' | 'float16';
  gradientCheckpointing: boolean;
  lora: { r: number; targetModules: string[] | 'all-linear' } | undefined;
  microBatchSize: number;
  microBatchTokens: number | undefined;
  maxPromptTokens: number;
  maxResponseTokens: number;
  generationBatchSize: number;
  /** distributed.strategy: how several processes hold the model (`fsdp` shards a full fine-tune). */
  strategy: 'replicate' | 'fsdp';
}

type Section = Record<string, unknown>;

function defaultsOf(schema: Section, definition: string): Section {
  const properties = ((schema.$defs as Section | undefined)?.[definition] as Section | undefined)?.properties as Record<string, Section> | undefined;
  const out: Section = {};
  for (const [key, value] of Object.entries(properties ?? {})) out[key] = value.default;
  return out;
}

/** The settings the estimate reads, from a parsed experiment with the schema's defaults for what it leaves out. */
export function trainingSettings(experiment: unknown, schema: Section): TrainingSettings {
  const root = (experiment && typeof experiment === 'object' ? experiment : {}) as Section;
  const section = (name: string, definition: string): Section => ({ ...defaultsOf(schema, definition), ...((root[name] && typeof root[name] === 'object' ? root[name] : {}) as Section) });
  const model = section('model', 'ModelConfig');
  const rollout = section('rollout', 'RolloutConfig');
  const rl = section('rl', 'RlConfig');
  const distributed = section('distributed', 'DistributedConfig');
  const lora = model.lora && typeof model.lora === 'object' ? { ...defaultsOf(schema, 'LoraConfig'), ...(model.lora as Section) } : undefined;
  const number = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
  const targets = lora?.target_modules;
  return {
    dtype: (['float32', 'bfloat16', 'float16'].includes(String(model.dtype)) ? model.dtype : 'auto') as TrainingSettings['dtype'],
    gradientCheckpointing: model.gradient_checkpointing === true,
    lora: lora ? { r: number(lora.r, 16), targetModules: Array.isArray(targets) ? targets.map(String) : 'all-linear' } : undefined,
    microBatchSize: number(rl.micro_batch_size, 8),
    microBatchTokens: typeof rl.micro_batch_tokens === 'number' ? rl.micro_batch_tokens : undefined,
    maxPromptTokens: number(rollout.max_prompt_tokens, 2048),
    maxResponseTokens: number(rollout.max_response_tokens, 512),
    generationBatchSize: number(rollout.generation_batch_size, 64),
    strategy: distributed.strategy === 'fsdp' ? 'fsdp' : 'replicate',
  };
}

const EMBEDDING = /(^|\.)(embed_tokens|wte|wpe|embeddings?|lm_head|embed_out|output)\.weight$/;

/** Parameters of the LoRA adapters: r × (in + out) for each targeted 2-D weight ("all-linear": all but embeddings and the output layer). */
export function loraParameters(shape: ModelShape, lora: NonNullable<TrainingSettings['lora']>): number {
  let count = 0;
  for (const matrix of shape.matrices) {
    if (!matrix.name.endsWith('.weight') || EMBEDDING.test(matrix.name)) continue;
    const module = matrix.name.split('.').slice(-2, -1)[0] ?? '';
    if (lora.targetModules !== 'all-linear' && !lora.targetModules.includes(module)) continue;
    count += lora.r * (matrix.rows + matrix.cols);
  }
  return count;
}

export interface MemoryEstimate {
  /** Weights, gradients, optimizer state and reference per process: exact given the parameter count. */
  stateBytes: number;
  /** Processes the estimate is for, and whether their training state is sharded (FSDP) rather than replicated. */
  processes: number;
  sharded: boolean;
  /** Activations and logits of one micro-batch in the backward pass (rough); undefined without config.json sizes. */
  activationBytes: number | undefined;
  /** KV cache of one generation batch (rough); undefined without config.json sizes. */
  kvCacheBytes: number | undefined;
  /** state + the larger of the two peaks (training and generation do not overlap). */
  totalBytes: number;
  parameters: number;
  trainableParameters: number;
  computeBytes: number;
  /** One line for the user, "about … (estimate: …)". */
  summary: string;
}

/**
 * Per process of a full fine-tune sharded over `shards` processes (seed_trainer/compute/memory.py sharded_training_bytes):
 * the 16 bytes of master weight, gradient and AdamW moments split N ways; the frozen reference and the unsharded
 * inference copy whole in the compute dtype; two decoder layers all-gathered, each with its fp32 gradient.
 */
export function shardedStateBytes(parameters: number, largestLayer: number, computeBytes: number, shards: number): number {
  return Math.ceil((parameters * MASTER_BYTES) / shards) + parameters * 2 * computeBytes + 2 * largestLayer * (computeBytes + 4);
}

/** The estimate for one process of a run of `processes` (several: under torchrun, sharded with `strategy: fsdp`). */
export function estimateTrainingMemory(shape: ModelShape, settings: TrainingSettings, processes = 1): MemoryEstimate {
  const computeBytes = settings.dtype === 'float32' ? 4 : 2; // auto: bfloat16 or float16 on a CUDA device
  const trainable = settings.lora ? loraParameters(shape, settings.lora) : shape.parameters;
  // LoRA is never sharded (the experiment schema refuses fsdp with LoRA); one process has nothing to shard.
  const sharded = settings.strategy === 'fsdp' && !settings.lora && processes > 1;
  // seed_trainer/compute/memory.py training_bytes: LoRA keeps the frozen base in the compute dtype; a full fine-tune keeps
  // fp32 master weights, gradients and AdamW moments plus a frozen reference copy in the compute dtype.
  const stateBytes = sharded
    ? shardedStateBytes(shape.parameters, shape.largestLayerParameters ?? 0, computeBytes, processes)
    : settings.lora ? shape.parameters * computeBytes + trainable * MASTER_BYTES : shape.parameters * (MASTER_BYTES + computeBytes);
  const sequence = settings.maxPromptTokens + settings.maxResponseTokens;
  const tokens = settings.microBatchTokens ?? settings.microBatchSize * sequence;
  const { hiddenSize: hidden, layers, vocabSize: vocab, kvWidth } = shape;
  let activationBytes: number | undefined;
  let kvCacheBytes: number | undefined;
  if (hidden && layers && vocab) {
    const perLayer = ACTIVATION_BYTES_PER_HIDDEN * hidden * (computeBytes / 2);
    // With checkpointing only each layer's input is kept, and one layer's activations exist at a time.
    const kept = settings.gradientCheckpointing ? tokens * (layers * hidden * computeBytes + perLayer) : tokens * layers * perLayer;
    const logits = tokens * vocab * (computeBytes + 4); // logits in the compute dtype + the fp32 log-softmax
    activationBytes = kept + logits;
    if (kvWidth) kvCacheBytes = settings.generationBatchSize * sequence * layers * 2 * kvWidth * computeBytes;
  }
  const totalBytes = stateBytes + Math.max(activationBytes ?? 0, kvCacheBytes ?? 0);
  const parts = [`${gib(stateBytes)} weights, gradients, optimizer state and reference (${(shape.parameters / 1e9).toFixed(2)} B parameters${settings.lora ? `, ${(trainable / 1e6).toFixed(1)} M in LoRA adapters` : ''}${sharded ? `, sharded over ${processes} GPUs` : ''})`];
  if (activationBytes !== undefined) parts.push(`${gib(activationBytes)} activations and logits for ${tokens.toLocaleString('en-US')} tokens per micro-batch`);
  if (kvCacheBytes !== undefined) parts.push(`${gib(kvCacheBytes)} KV cache while generating`);
  const summary = `about ${gib(totalBytes)} per GPU (an estimate: ${parts.join('; ')}${activationBytes === undefined ? '; activations not counted: the model has no config.json sizes' : ''})`;
  return { stateBytes, processes, sharded, activationBytes, kvCacheBytes, totalBytes, parameters: shape.parameters, trainableParameters: trainable, computeBytes, summary };
}

/** What to warn about when the GPUs picked cannot hold the estimate (one process per GPU). */
export function fitWarnings(estimate: Pick<MemoryEstimate, 'totalBytes'>, gpus: ReadonlyArray<{ index: number; name: string; totalBytes: number; freeBytes?: number }>): string[] {
  const warnings: string[] = [];
  for (const gpu of gpus) {
    const available = gpu.freeBytes ?? gpu.totalBytes;
    if (estimate.totalBytes > available) {
      warnings.push(`cuda:${gpu.index} (${gpu.name}) has ${gib(available)} ${gpu.freeBytes === undefined ? 'in all' : 'free'}, the run needs ${gib(estimate.totalBytes)}`);
    }
  }
  return warnings;
}

function gib(bytes: number): string {
  return `${(bytes / GIB).toFixed(bytes < GIB ? 2 : 1)} GiB`;
}
