"""`python -m seed_trainer export-verl EXPERIMENT`: what a verl run of the same experiment needs, for runs beyond one
node. verl-agent (verl with multi-turn environments; the trainer SDAR and SEED build on) reads Hydra overrides: every
setting of ours with a counterpart becomes one, the others are listed with the reason (SEED's own parts — the
self-analysis, the teacher pass and the OPD term — have none in verl-agent).

Three files go to the output folder: `overrides.txt` (one `key=value` per line, verl's own keys first, then
verl-agent's), `submit.sh` (the `ray job submit` command running verl-agent's trainer with them) and `mapping.md`
(each setting → its key, and what has no counterpart). The keys of verl's own section are checked against verl's
`ppo_trainer` config in the tests when verl is installed (docs/trainer.md, "verl hand-off").
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seed_trainer.experiment.config import ExperimentConfig

# verl-agent's names of the environments both have (its `env.env_name`).
VERL_AGENT_ENVIRONMENTS = {"alfworld": "alfworld/AlfredTWEnv", "webshop": "Webshop", "search_qa": "search"}
VERL_AGENT_DATA = "$HOME/data/verl-agent/text"  # where its data preparation writes the placeholder prompts


@dataclass(frozen=True)
class Override:
    key: str
    value: Any
    setting: str  # ours, dotted ("" when it is a fixed choice of the hand-off)
    upstream: bool  # a key of verl's own ppo_trainer config (else verl-agent's)

    def text(self) -> str:
        return f"{self.key}={hydra_value(self.value)}"


@dataclass(frozen=True)
class Unmapped:
    setting: str
    value: Any
    why: str


@dataclass(frozen=True)
class VerlExport:
    overrides: list[Override]
    unmapped: list[Unmapped]
    entrypoint: str
    submit: str


def hydra_value(value: Any) -> str:
    """A value in Hydra's override grammar."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    text = str(value)
    if text and all(c.isalnum() or c in "._-/$" for c in text):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def verl_export(
    config: ExperimentConfig, *, nnodes: int = 1, gpus_per_node: int = 8, address: str = "http://127.0.0.1:8265"
) -> VerlExport:
    """The overrides, the settings without a counterpart and the submit command of `config`."""
    m = _Mapping()
    _the_run(m, config, nnodes, gpus_per_node)
    for section in (
        _the_algorithm,
        _the_model,
        _the_environment,
        _the_rollout,
        _the_update,
        _evaluation_and_checkpoints,
        _sharding,
        _stays_in_seed_studio,
    ):
        section(m, config)
    overrides = [o for o in m.overrides if o.upstream] + [o for o in m.overrides if not o.upstream]
    prepare = (
        "python3 -m examples.data_preprocess.prepare --mode text "
        f"--train_data_size {config.rollout.tasks_per_update} --val_data_size {config.eval.tasks}"
    )
    files = [f"data.train_files={VERL_AGENT_DATA}/train.parquet", f"data.val_files={VERL_AGENT_DATA}/test.parquet"]
    # each override shell-quoted for the worker's bash (Hydra reads its own quoting inside); the data paths stay
    # unquoted so that bash expands $HOME on the worker
    entrypoint = " ".join(
        [prepare, "&&", "python3 -m verl.trainer.main_ppo", *files, *(shlex.quote(o.text()) for o in overrides)]
    )
    submit = f"ray job submit --address={shlex.quote(address)} -- bash -c {shlex.quote(entrypoint)}"
    return VerlExport(overrides, m.unmapped, entrypoint, submit)


class _Mapping:
    """The overrides and the settings without a counterpart, in the order the sections add them."""

    def __init__(self) -> None:
        self.overrides: list[Override] = []
        self.unmapped: list[Unmapped] = []

    def verl(self, key: str, value: Any, setting: str = "") -> None:
        """A key of verl's own ppo_trainer config."""
        self.overrides.append(Override(key, value, setting, True))

    def agent(self, key: str, value: Any, setting: str = "") -> None:
        """A key verl-agent adds."""
        self.overrides.append(Override(key, value, setting, False))

    def none(self, setting: str, value: Any, why: str) -> None:
        """A setting of ours with no counterpart, and why."""
        self.unmapped.append(Unmapped(setting, value, why))


def _the_run(m: _Mapping, config: ExperimentConfig, nnodes: int, gpus_per_node: int) -> None:
    """The run: its name, length, cluster size, loggers and seeds."""
    m.verl("trainer.project_name", "seed-studio")
    m.verl("trainer.experiment_name", config.name, "name")
    m.verl("trainer.total_training_steps", config.updates, "updates")
    m.verl("trainer.nnodes", nnodes)
    m.verl("trainer.n_gpus_per_node", gpus_per_node)
    m.verl("trainer.logger", ["console", *config.report_to], "report_to")  # verl logs to the same backends
    m.verl("trainer.critic_warmup", 0)
    m.verl("data.seed", config.seed, "seed")
    m.agent("env.seed", config.seed, "seed")
    m.none("runs_dir", config.runs_dir, "verl writes checkpoints under trainer.default_local_dir on the cluster")


def _the_algorithm(m: _Mapping, config: ExperimentConfig) -> None:
    """The algorithm: GRPO on per-step samples; SEED's additions have no counterpart."""
    rl = config.rl
    m.verl("algorithm.adv_estimator", "grpo", "algorithm")
    m.verl("algorithm.norm_adv_by_std_in_grpo", rl.advantage == "mean_std_norm", "rl.advantage")
    m.verl("algorithm.use_kl_in_reward", False)
    if config.algorithm != "grpo":
        m.none(
            "algorithm",
            config.algorithm,
            "verl-agent trains GRPO; the self-analysis, the teacher pass and the OPD term "
            "(SEED, OPSD, SDAR's skill context) are not part of it — the export is the GRPO backbone of the experiment",
        )
    m.none(
        "opd",
        {
            "lambda": config.opd.lambda_,
            "beta": config.opd.beta,
            "skill_source": config.opd.skill_source,
            "estimator": config.opd.estimator,
            "skill_control": config.opd.skill_control,
            "expected_top_k": config.opd.expected_top_k,
        },
        "SEED's on-policy distillation term (and so its gradient estimator and its skill controls) has no verl-agent "
        "counterpart",
    )
    m.none(
        "rl.advantage_stats",
        rl.advantage_stats,
        "verl-agent's GRPO groups by task uid; its statistics are not configurable",
    )


def _the_model(m: _Mapping, config: ExperimentConfig) -> None:
    """The model."""
    m.verl("actor_rollout_ref.model.path", str(config.resolved_model().path), "model.path")
    m.verl(
        "actor_rollout_ref.model.enable_gradient_checkpointing",
        config.model.gradient_checkpointing,
        "model.gradient_checkpointing",
    )
    m.verl("actor_rollout_ref.model.use_remove_padding", True)
    if config.model.lora is not None:
        lora = config.model.lora
        m.verl("actor_rollout_ref.model.lora_rank", lora.r, "model.lora.r")
        m.verl("actor_rollout_ref.model.lora_alpha", lora.alpha, "model.lora.alpha")
        m.verl("actor_rollout_ref.model.target_modules", lora.target_modules, "model.lora.target_modules")
        if lora.dropout:
            m.none("model.lora.dropout", lora.dropout, "verl's LoRA has no dropout setting")
    if config.model.dtype not in ("auto", "bfloat16"):
        m.none(
            "model.dtype",
            config.model.dtype,
            "verl's FSDP keeps fp32 master weights and computes in bf16 (our `auto` on "
            "CUDA); other compute dtypes are not carried over",
        )
    if config.model.device != "auto":
        m.none("model.device", config.model.device, "verl runs on GPUs only")


def _the_environment(m: _Mapping, config: ExperimentConfig) -> None:
    """The environment."""
    env_name = VERL_AGENT_ENVIRONMENTS.get(config.environment.name)
    if env_name is None:
        m.none(
            "environment.name",
            config.environment.name,
            "verl-agent has no such environment; register one in its agent_system/environments before running",
        )
    else:
        m.agent("env.env_name", env_name, "environment.name")
    if config.environment.task_types:
        m.none("environment.task_types", config.environment.task_types, "verl-agent samples from every task type")
    if config.environment.options:
        m.none(
            "environment.options",
            config.environment.options,
            "environment options are verl-agent's `env.<name>.*` keys, named differently per environment",
        )


def _the_rollout(m: _Mapping, config: ExperimentConfig) -> None:
    """The rollout."""
    ro = config.rollout
    m.verl("data.train_batch_size", ro.tasks_per_update, "rollout.tasks_per_update")
    m.agent("env.rollout.n", ro.group_size, "rollout.group_size")
    m.agent("env.max_steps", ro.max_steps, "rollout.max_steps")
    m.agent("env.history_length", ro.history, "rollout.history")
    m.verl("data.max_prompt_length", ro.max_prompt_tokens, "rollout.max_prompt_tokens")
    m.verl("data.max_response_length", ro.max_response_tokens, "rollout.max_response_tokens")
    m.verl("data.return_raw_chat", True)
    m.verl("actor_rollout_ref.rollout.name", "vllm", "rollout.engine")  # verl always generates with an engine
    m.verl(
        "actor_rollout_ref.rollout.gpu_memory_utilization",
        ro.vllm.gpu_memory_utilization,
        "rollout.vllm.gpu_memory_utilization",
    )
    m.verl("actor_rollout_ref.rollout.free_cache_engine", ro.vllm.sleep, "rollout.vllm.sleep")
    m.verl("actor_rollout_ref.rollout.temperature", ro.temperature, "rollout.temperature")
    m.none("rollout.generation_batch_size", ro.generation_batch_size, "vLLM schedules its own batches")
    m.none(
        "rollout.memory",
        ro.memory,
        "verl-agent's prompts have no line of places searched: a policy trained with it sees other prompts there",
    )
    m.none(
        "rollout.prompt_format",
        ro.prompt_format,
        "verl-agent's prompt is the `step` format (one prompt per step, a history window); it has no `chat` format",
    )


def _the_update(m: _Mapping, config: ExperimentConfig) -> None:
    """The update."""
    rl = config.rl
    m.verl("actor_rollout_ref.actor.optim.lr", rl.lr, "rl.lr")
    m.verl("actor_rollout_ref.actor.optim.weight_decay", rl.weight_decay, "rl.weight_decay")
    m.verl("actor_rollout_ref.actor.grad_clip", rl.grad_clip, "rl.grad_clip")
    m.verl("actor_rollout_ref.actor.clip_ratio", rl.clip, "rl.clip")
    m.verl("actor_rollout_ref.actor.clip_ratio_c", rl.dual_clip, "rl.dual_clip")
    m.verl("actor_rollout_ref.actor.use_kl_loss", rl.kl_coef > 0, "rl.kl_coef")
    m.verl("actor_rollout_ref.actor.kl_loss_coef", rl.kl_coef, "rl.kl_coef")
    m.verl("actor_rollout_ref.actor.kl_loss_type", "low_var_kl", "rl.kl_estimator")  # k3
    m.verl("actor_rollout_ref.actor.entropy_coeff", rl.entropy_coef, "rl.entropy_coef")
    m.verl("actor_rollout_ref.actor.ppo_epochs", rl.ppo_epochs, "rl.ppo_epochs")
    m.verl("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", rl.micro_batch_size, "rl.micro_batch_size")
    # the old log-probs' and the reference's passes: verl's validate_config refuses to start without their sizes
    m.verl("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu", rl.micro_batch_size, "rl.micro_batch_size")
    m.verl("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu", rl.micro_batch_size, "rl.micro_batch_size")
    if rl.micro_batch_tokens is not None:
        m.verl("actor_rollout_ref.actor.use_dynamic_bsz", True, "rl.micro_batch_tokens")
        m.verl("actor_rollout_ref.actor.ppo_max_token_len_per_gpu", rl.micro_batch_tokens, "rl.micro_batch_tokens")
    m.none(
        "rl.mini_batch_size",
        rl.mini_batch_size,
        "verl counts a mini-batch in prompts (×n), ours in step samples: set "
        "actor_rollout_ref.actor.ppo_mini_batch_size for the cluster by hand",
    )
    m.agent("actor_rollout_ref.actor.use_invalid_action_penalty", rl.invalid_penalty > 0, "rl.invalid_penalty")
    m.agent("actor_rollout_ref.actor.invalid_action_penalty_coef", rl.invalid_penalty, "rl.invalid_penalty")
    m.none(
        "rl.reward_scale",
        rl.reward_scale,
        "verl-agent's environments pay their own episode reward (ALFWorld: 10·success)",
    )
    m.none("rl.old_logprobs", rl.old_logprobs, "verl always recomputes the old log-probs with the actor")
    m.none("rl.max_skipped_steps", rl.max_skipped_steps, "verl has no limit on skipped non-finite steps")


def _evaluation_and_checkpoints(m: _Mapping, config: ExperimentConfig) -> None:
    """Evaluation and checkpoints."""
    ev = config.eval
    m.verl("trainer.test_freq", ev.every or -1, "eval.every")
    m.verl("data.val_batch_size", ev.tasks, "eval.tasks")
    m.verl("actor_rollout_ref.rollout.val_kwargs.n", ev.episodes_per_task, "eval.episodes_per_task")
    m.verl("actor_rollout_ref.rollout.val_kwargs.do_sample", not ev.greedy, "eval.greedy")
    m.verl("actor_rollout_ref.rollout.val_kwargs.temperature", ev.temperature, "eval.temperature")
    m.none("eval.splits", ev.splits, "verl-agent validates on its environment's evaluation split")
    m.verl("trainer.save_freq", config.checkpoint.every, "checkpoint.every")
    m.verl("trainer.max_actor_ckpt_to_keep", config.checkpoint.keep_last, "checkpoint.keep_last")


def _sharding(m: _Mapping, config: ExperimentConfig) -> None:
    """Sharding: verl shards the actor and the reference with FSDP whatever our setting; ours picks FSDP2 explicitly."""
    if config.distributed.strategy == "fsdp":
        m.verl("actor_rollout_ref.actor.strategy", "fsdp2", "distributed.strategy")
        m.verl("actor_rollout_ref.ref.strategy", "fsdp2", "distributed.strategy")
    else:
        m.none(
            "distributed.strategy",
            config.distributed.strategy,
            "verl always shards the actor and the reference (actor_rollout_ref.actor.strategy, FSDP by default); "
            "a whole replica per process has no counterpart there",
        )


def _stays_in_seed_studio(m: _Mapping, config: ExperimentConfig) -> None:
    """Stage 1 and the analyzer stay in SEED Studio."""
    m.none("analyzer", config.analyzer.kind, "the analyzer (Stage 1, and self-analysis in Stage 2) is SEED's")
    m.none("collect", None, "Stage-1 collection runs in SEED Studio (`collect`)")
    m.none("sft", None, "Stage-1 SFT runs in SEED Studio (`sft`); its model/ is the model.path to export")
    if config.sdar.skill_bank:
        m.none("sdar.skill_bank", config.sdar.skill_bank, "verl-agent has no skill-bank context")


def _cell(value: Any) -> str:
    """A value as a Markdown table cell (code span; `|` escaped); empty for None."""
    if value is None:
        return ""
    text = repr(value) if isinstance(value, dict) else hydra_value(value)
    return "`" + text.replace("|", "\\|") + "`"


def render_files(export: VerlExport, experiment: str) -> dict[str, str]:
    """The three files' text, by name."""
    overrides = [
        f"# verl Hydra overrides for {experiment} (python -m seed_trainer export-verl)",
        "# verl's own ppo_trainer keys",
    ]
    overrides += [o.text() for o in export.overrides if o.upstream]
    overrides += ["# verl-agent's keys (its env.* section and invalid-action penalty)"]
    overrides += [o.text() for o in export.overrides if not o.upstream]
    submit = [
        "#!/bin/sh",
        f"# {experiment} on a Ray cluster running verl-agent (python -m seed_trainer export-verl); run from a",
        "# verl-agent checkout (its data preparation and trainer), RAY_ADDRESS or --address pointing at the head node.",
        "set -e",
        export.submit.replace(" -- bash -c ", " -- \\\n  bash -c "),
    ]
    mapping = [f"# {experiment} → verl-agent", "", "| setting | verl key | value |", "|---|---|---|"]
    mapping += [f"| {o.setting or '(hand-off)'} | `{o.key}` | {_cell(o.value)} |" for o in export.overrides]
    mapping += ["", "## No counterpart", "", "| setting | value | why |", "|---|---|---|"]
    mapping += [f"| {u.setting} | {_cell(u.value)} | {u.why} |" for u in export.unmapped]
    return {
        "overrides.txt": "\n".join(overrides) + "\n",
        "submit.sh": "\n".join(submit) + "\n",
        "mapping.md": "\n".join(mapping) + "\n",
    }


def default_out_dir(experiment: Path) -> Path:
    stem = experiment.name.removesuffix(".yaml").removesuffix(".seed")
    return experiment.parent / f"{stem}-verl"


def write_export(export: VerlExport, experiment: Path, out_dir: Path) -> list[Path]:
    """Writes (or replaces) the three files in `out_dir`; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_files(export, experiment.name).items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    (out_dir / "submit.sh").chmod(0o755)
    return written
