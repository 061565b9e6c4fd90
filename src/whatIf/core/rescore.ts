// What-if rescoring of one trajectory: for a skill text, the student and teacher log-probs of every step's response
// tokens under an ONNX export, then Δ and g = σ(β·Δ) — the trainer's teacher pass, without Python or a GPU.
// Everything is checked before the first forward pass; the student log-probs do not depend on the skill and are
// computed once per step however many skills are compared.
import { WhatIfError } from './errors';
import { gateOf, summarizeGates, type GateArrays, type GateSummary } from '../../runs/shared/gate';
import { loadOnnxExport, type OnnxExport } from './onnxExport';
import { OnnxScorer, type ExecutionProvider } from './onnxScorer';
import { PromptEncoder } from './promptTokens';
import { checkSkillText } from './skillInsertion';

export interface RescoreStep {
  t: number;
  /** h_t: the step's user turn before the chat template. */
  prompt: string;
  responseIds: ArrayLike<number>;
  /** The recorded response text (special tokens left out): checked against the export's tokenizer when given. */
  response?: string;
}

export interface RescoredStep extends GateArrays {
  t: number;
  studentLogp: Float32Array;
  teacherLogp: Float32Array;
  teacherPromptTokens: number;
}

export interface RescoreResult {
  skill: string;
  beta: number;
  temperature: number;
  steps: RescoredStep[];
  summary: GateSummary;
  provider: ExecutionProvider;
  millis: number;
}

export interface RescoreOptions {
  signal?: AbortSignal;
  /** Called after each forward pass with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

export class Rescorer {
  private readonly studentCache = new Map<number, Float32Array>();

  private constructor(
    readonly bundle: OnnxExport,
    private readonly encoder: PromptEncoder,
    private readonly scorer: OnnxScorer,
    private readonly steps: readonly RescoreStep[],
  ) {}

  /**
   * Opens `exportDir` for the steps of one trajectory. `runId`, when given, must be the run the export was made from.
   * Throws a WhatIfError for an export of another run or model, a trajectory the model cannot hold, or a step
   * without a prompt.
   */
  static async open(exportDir: string, steps: readonly RescoreStep[], options: { runId?: string; preferCuda?: boolean } = {}): Promise<Rescorer> {
    const bundle = loadOnnxExport(exportDir);
    const { meta } = bundle;
    if (meta.prompt.skill.insertion !== 'after_task_line') {
      throw new WhatIfError('export', `This export is of a ${meta.prompt.algorithm} run, whose skills are a static prefix, not a hindsight skill: there is no gate to recompute.`);
    }
    if (options.runId !== undefined && meta.run !== null && meta.run.id !== options.runId) {
      throw new WhatIfError('mismatch', `${exportDir} was exported from run ${meta.run.id}, not from ${options.runId}: its prompt settings and weights are another run's.`);
    }
    const encoder = new PromptEncoder(bundle, meta.prompt.skill);
    for (const step of steps) checkStep(step, bundle, encoder);
    const scorer = await OnnxScorer.open(bundle.modelPath, { preferCuda: options.preferCuda });
    return new Rescorer(bundle, encoder, scorer, steps);
  }

  /** Why the CUDA execution provider was asked for and the CPU runs instead; undefined when it was not asked for or runs. */
  get cudaFallback(): string | undefined {
    return this.scorer.cudaFallback;
  }

  get settings(): OnnxExport['meta']['prompt'] {
    return this.bundle.meta.prompt;
  }

  /** The gates of every step under `skill`. Cancelled through `signal` between forward passes (nothing kept). */
  async rescore(skill: string, options: RescoreOptions = {}): Promise<RescoreResult> {
    checkSkillText(skill);
    const { max_prompt_tokens: limit, temperature, beta } = this.settings;
    const context = this.bundle.meta.context_length;
    const started = performance.now();
    const pending = this.steps.filter((step) => !this.studentCache.has(step.t)).length;
    const total = this.steps.length + pending;
    let done = 0;
    const tick = () => {
      if (options.signal?.aborted) throw new WhatIfError('cancelled', 'Rescoring was cancelled.');
    };
    const out: RescoredStep[] = [];
    for (const step of this.steps) {
      tick();
      let studentLogp = this.studentCache.get(step.t);
      if (!studentLogp) {
        studentLogp = await this.scorer.responseLogprobs(this.encoder.studentIds(step.prompt, limit), step.responseIds, temperature);
        options.onProgress?.(++done, total);
        tick();
      }
      const teacherIds = this.encoder.teacherIds(step.prompt, skill, limit);
      if (context !== null && teacherIds.length + step.responseIds.length > context) {
        throw new WhatIfError('context', `Step ${step.t}: ${teacherIds.length} prompt and ${step.responseIds.length} response tokens exceed the model's context of ${context} tokens.`);
      }
      const teacherLogp = await this.scorer.responseLogprobs(teacherIds, step.responseIds, temperature);
      options.onProgress?.(++done, total);
      // Student log-probs become reusable only once the whole rescoring went through.
      out.push({ t: step.t, studentLogp, teacherLogp, teacherPromptTokens: teacherIds.length, ...gateOf(teacherLogp, studentLogp, beta) });
    }
    for (const step of out) this.studentCache.set(step.t, step.studentLogp);
    return { skill, beta, temperature, steps: out, summary: summarizeGates(out), provider: this.scorer.provider, millis: performance.now() - started };
  }

  async close(): Promise<void> {
    await this.scorer.close();
  }
}

function checkStep(step: RescoreStep, bundle: OnnxExport, encoder: PromptEncoder): void {
  if (typeof step.prompt !== 'string' || !step.prompt) {
    throw new WhatIfError('trajectory', `Step ${step.t} has no recorded prompt: this trajectory was written by a trainer that did not record step prompts, so its teacher prompt cannot be rebuilt.`);
  }
  const { vocab_size: vocab, context_length: context, prompt } = bundle.meta;
  for (let i = 0; i < step.responseIds.length; i++) {
    const id = step.responseIds[i]!;
    if (!Number.isInteger(id) || id < 0 || id >= vocab) {
      throw new WhatIfError('mismatch', `Step ${step.t}: token id ${id} is outside this model's vocabulary of ${vocab}: the trajectory was sampled by another model.`);
    }
  }
  if (step.response !== undefined && encoder.decode(step.responseIds) !== step.response) {
    throw new WhatIfError('mismatch', `Step ${step.t}: the export's tokenizer does not decode the recorded tokens to the recorded response: the trajectory was sampled with another tokenizer.`);
  }
  if (context !== null && encoder.studentIds(step.prompt, prompt.max_prompt_tokens).length + step.responseIds.length > context) {
    throw new WhatIfError('context', `Step ${step.t}: its prompt and ${step.responseIds.length} response tokens exceed the model's context of ${context} tokens.`);
  }
}
