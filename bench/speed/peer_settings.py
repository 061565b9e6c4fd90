"""The settings of the peer comparison (bench/speed/peer_trl.py, issue 53) and how each maps onto both trainers.

One `PeerSettings` makes both sides: our experiment (`ours_experiment`) and TRL's `GRPOConfig` keyword arguments
(`trl_config_kwargs`). What each side will actually run is then read back from the objects the trainers built
(`work_of_ours`, `work_of_trl`) in one vocabulary, and `mismatches` names every field where they differ: the comparison
refuses to report a ratio at unequal work. Standard library only (TRL's side is read with getattr), so the project's
tests check it without TRL.

The mapping (TRL 1.16 defaults that differ from ours are set, never left):
- `beta` (TRL default 0: no KL, no reference) ↔ `rl.kl_coef`, both the k3 estimator exp(r) − r − 1, r = ref − logp;
  TRL's `use_bias_correction_kl` (default on) multiplies the KL term by the differentiable ratio π/π_old, which ours
  does not: off.
- `loss_type` "dapo" (Σ over the generation batch's completion tokens / their count) ↔ our token-mean over the
  mini-batch: the same when one optimizer step takes the whole update (ours: mini_batch_size ≥ prompts × group).
- `epsilon` = `epsilon_high` ↔ `rl.clip`; our dual clip has no TRL counterpart: set to DUAL_CLIP_OFF, which never binds
  (ours clamps the log-ratio to ±20, so the ratio stays below e^20 ≈ 4.9e8 < DUAL_CLIP_OFF).
- `entropy_coef` ↔ `rl.entropy_coef` (both −coef × token-mean entropy at the sampling temperature).
- `num_iterations` 1, `steps_per_generation` = `gradient_accumulation_steps` = 1 ↔ `rl.ppo_epochs` 1 and one
  mini-batch: one optimizer step per update on both.
- `scale_rewards` "group" ↔ `rl.advantage` mean_std_norm (one step per episode: steps and trajectories agree); TRL
  divides by std + 1e-4, ours by std + 1e-6 (the equal-batch check measures what that changes).
- the reward: TRL's reward function's value ↔ our step score reward_scale·won − invalid_penalty·[invalid]: scale 1,
  penalty 0.
- `gradient_checkpointing` (TRL default on), `lr_scheduler_type` (TRL default linear decay), `weight_decay` (TRL
  default 0), `max_grad_norm` ↔ ours; plain sampling (`top_p` 1, `top_k` 0, no `min_p`, `repetition_penalty` 1) as ours.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

DUAL_CLIP_OFF = 1e9
DTYPES = {"fp32": "float32", "bf16": "bfloat16"}


@dataclass(frozen=True)
class PeerSettings:
    prompts: int = 2  # prompts per update (ours: tasks_per_update)
    group: int = 4  # completions per prompt
    max_new_tokens: int = 32
    dtype: str = "fp32"  # fp32 | bf16 (bf16: autocast over fp32 master weights on both)
    threads: int = 1
    temperature: float = 1.0
    beta: float = 0.01
    epsilon: float = 0.2
    entropy_coef: float = 0.001
    lr: float = 1e-6
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ours_experiment(
    settings: PeerSettings, model_path: str, updates: int, *, micro_batch_size: int | None = None
) -> dict:
    """Our experiment: GRPO (no analysis, no teacher) on the one-step sum task, every update one optimizer step."""
    batch = settings.prompts * settings.group
    return {
        "name": "peer-ours",
        "seed": settings.seed,
        "algorithm": "grpo",
        "updates": updates,
        "model": {"path": model_path, "device": "cpu", "dtype": DTYPES[settings.dtype]},
        "environment": {"name": "peer_task:SumTasks"},
        "rollout": {
            "tasks_per_update": settings.prompts,
            "group_size": settings.group,
            "max_steps": 1,
            "history": 0,
            "max_prompt_tokens": 4096,  # never cut: TRL does not truncate prompts
            "max_response_tokens": settings.max_new_tokens,
            "temperature": settings.temperature,
            "generation_batch_size": batch,
        },
        "rl": {
            "clip": settings.epsilon,
            "dual_clip": DUAL_CLIP_OFF,
            "kl_coef": settings.beta,
            "entropy_coef": settings.entropy_coef,
            "lr": settings.lr,
            "weight_decay": settings.weight_decay,
            "grad_clip": settings.grad_clip,
            "ppo_epochs": 1,
            "mini_batch_size": batch,
            "micro_batch_size": micro_batch_size or batch,  # TRL scores the whole batch in one pass
            "advantage": "mean_std_norm",
            "reward_scale": 1.0,
            "invalid_penalty": 0.0,
        },
        "eval": {"every": 0},
        "checkpoint": {"every": max(updates, 1), "keep_last": 1},
    }


def trl_config_kwargs(settings: PeerSettings, output_dir: str, updates: int) -> dict:
    """GRPOConfig's keyword arguments for the same work: one generation and one optimizer step per update."""
    return {
        "output_dir": output_dir,
        "seed": settings.seed,
        "max_steps": updates,
        "per_device_train_batch_size": settings.prompts * settings.group,
        "gradient_accumulation_steps": 1,
        "steps_per_generation": 1,
        "num_generations": settings.group,
        "num_iterations": 1,
        "max_completion_length": settings.max_new_tokens,
        "temperature": settings.temperature,
        "top_p": 1.0,
        "top_k": 0,
        "min_p": None,
        "repetition_penalty": 1.0,
        "beta": settings.beta,
        "use_bias_correction_kl": False,
        "loss_type": "dapo",
        "epsilon": settings.epsilon,
        "epsilon_high": settings.epsilon,
        "entropy_coef": settings.entropy_coef,
        "scale_rewards": "group",
        "learning_rate": settings.lr,
        "lr_scheduler_type": "constant",
        "warmup_steps": 0,
        "weight_decay": settings.weight_decay,
        "max_grad_norm": settings.grad_clip,
        "activation_checkpointing": False,  # transformers 5: the name of TRL's `gradient_checkpointing` (default on)
        "bf16": settings.dtype == "bf16",
        "fp16": False,
        "use_cpu": True,
        "shuffle_dataset": False,
        "mask_truncated_completions": False,
        "importance_sampling_level": "token",
        "report_to": "none",
        "logging_steps": 1,
        "save_strategy": "no",
        "dataloader_num_workers": 0,
        "disable_tqdm": True,
    }


def work_of_ours(config) -> dict[str, Any]:
    """What our trainer will run, from its ExperimentConfig (or anything with the same attributes)."""
    rl, rollout = config.rl, config.rollout
    batch = rollout.tasks_per_update * rollout.group_size
    return {
        "prompts_per_update": rollout.tasks_per_update,
        "group_size": rollout.group_size,
        "max_new_tokens": rollout.max_response_tokens,
        "dtype": config.model.dtype,
        "sampling": f"temperature {rollout.temperature}, no top-k/top-p/min-p, no repetition penalty",
        "kl": f"k3, coefficient {rl.kl_coef}, no ratio correction",
        "loss_aggregation": "token-mean over the update's completion tokens",
        "clip": f"{rl.clip} / {rl.clip}, two-sided off",
        "dual_clip": "off" if rl.dual_clip >= DUAL_CLIP_OFF else f"c = {rl.dual_clip}",
        "entropy": f"coefficient {rl.entropy_coef}, every token",
        "optimizer_steps_per_update": rl.ppo_epochs * math.ceil(batch / rl.mini_batch_size),
        "optimizer": f"AdamW lr {rl.lr} constant, weight decay {rl.weight_decay}, grad-norm clip {rl.grad_clip}",
        "advantage": "group mean/std" if rl.advantage == "mean_std_norm" else f"ours:{rl.advantage}",
        "reward": "the task reward" if (rl.reward_scale, rl.invalid_penalty) == (1.0, 0.0) else "scaled or penalised",
        "gradient_checkpointing": bool(config.model.gradient_checkpointing),
        "tuning": "full" if config.model.lora is None else "lora",
        "truncated_completions": "trained on",
        "episode_steps": rollout.max_steps,
    }


def _trl_dtype(args) -> str:
    return "bfloat16" if getattr(args, "bf16", False) else "float16" if getattr(args, "fp16", False) else "float32"


def _plain(value) -> str:
    """An enum's value (TrainingArguments turns `lr_scheduler_type` into one), or the value itself."""
    return str(getattr(value, "value", value))


def work_of_trl(args, *, peft: bool = False) -> dict[str, Any]:
    """What TRL's GRPOTrainer will run, from its GRPOConfig (read attribute by attribute), in `work_of_ours`' words."""
    g = lambda name, default=None: getattr(args, name, default)  # noqa: E731
    generation_batch = g("generation_batch_size") or g("per_device_train_batch_size") * g("steps_per_generation", 1)
    plain = (g("top_p"), g("top_k") or 0, g("min_p"), g("repetition_penalty")) == (1.0, 0, None, 1.0)
    sampling = f"temperature {g('temperature')}, " + (
        "no top-k/top-p/min-p, no repetition penalty" if plain else "with filters or penalties"
    )
    high = g("epsilon_high") if g("epsilon_high") is not None else g("epsilon")
    steps = g("steps_per_generation", 1) * g("num_iterations", 1) / g("gradient_accumulation_steps", 1)
    return {
        "prompts_per_update": generation_batch // g("num_generations"),
        "group_size": g("num_generations"),
        "max_new_tokens": g("max_completion_length"),
        "dtype": _trl_dtype(args),
        "sampling": sampling,
        "kl": f"k3, coefficient {g('beta')}, "
        + ("ratio-corrected" if g("use_bias_correction_kl") else "no ratio correction"),
        "loss_aggregation": "token-mean over the update's completion tokens"
        if g("loss_type") == "dapo"
        else f"trl:{g('loss_type')}",
        "clip": f"{g('epsilon')} / {high}, " + ("two-sided off" if g("delta") is None else f"two-sided {g('delta')}"),
        "dual_clip": "off",
        "entropy": f"coefficient {g('entropy_coef')}, "
        + (
            "every token"
            if g("top_entropy_quantile", 1.0) == 1.0 and not g("use_adaptive_entropy")
            else "adaptive or top-quantile"
        ),
        "optimizer_steps_per_update": steps,
        "optimizer": f"AdamW lr {g('learning_rate')} "
        + (
            "constant"
            if _plain(g("lr_scheduler_type")) == "constant" and not (g("warmup_steps") or g("warmup_ratio"))
            else "scheduled"
        )
        + f", weight decay {g('weight_decay')}, grad-norm clip {g('max_grad_norm')}",
        "advantage": "group mean/std" if g("scale_rewards") in ("group", True) else f"trl:{g('scale_rewards')}",
        "reward": "the task reward" if not g("reward_weights") else "weighted",
        "gradient_checkpointing": bool(g("activation_checkpointing", g("gradient_checkpointing"))),
        "tuning": "lora" if peft else "full",
        "truncated_completions": "masked" if g("mask_truncated_completions") else "trained on",
        "episode_steps": 1,
    }


def mismatches(ours: dict[str, Any], trl: dict[str, Any]) -> list[str]:
    """One line per field where the two sides would do different work (empty: a fair comparison)."""
    return [f"{key}: ours {ours.get(key)!r}, TRL {trl.get(key)!r}" for key in ours if ours.get(key) != trl.get(key)]
