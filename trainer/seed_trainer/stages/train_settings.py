"""The Stage-2 loop's settings, resolved once before the first update from the experiment, the policy, the rollout
engine and the analyzer: what the rollout, the log-prob scoring and the teacher pass are called with (the gate and the
static bank's skill insertion included), whether π_old's log-probs are the sampling ones, and the skills' source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from seed_trainer.analyzers import Analyzer
from seed_trainer.analyzers.static_bank import StaticBankAnalyzer
from seed_trainer.compute.policy import Policy
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.rl.update import LossSettings

if TYPE_CHECKING:
    from seed_trainer.compute.engines import Generator


@dataclass(frozen=True)
class LoopSettings:
    rollout: dict[str, Any]  # play_episodes's, after the policy, task source and specs
    scoring: dict[str, Any]  # policy.score's, for π_old and the reference
    teacher: dict[str, Any]  # teacher_pass's, after the policy and episodes
    reuse_sampling_logprobs: bool  # π_old's log-probs are the ones sampling returned
    skill_source: str | None  # the trajectory records' skill `source`; None: the algorithm uses no skills

    @classmethod
    def resolve(
        cls,
        config: ExperimentConfig,
        policy: Policy,
        engine: Generator | None,
        settings: LossSettings,
        analyzer: Analyzer | None,
    ) -> LoopSettings:
        ro, rl = config.rollout, config.rl
        reuse_sampling_logprobs = rl.old_logprobs == "rollout" or (
            rl.old_logprobs == "auto"
            and engine is None
            and policy.device.type == "cpu"
            and policy.compute_dtype == torch.float32
        )
        rollout = dict(
            group_size=ro.group_size,
            max_steps=ro.max_steps,
            history_length=ro.history,
            max_prompt_tokens=ro.max_prompt_tokens,
            max_response_tokens=ro.max_response_tokens,
            temperature=ro.temperature,
            generation_batch_size=ro.generation_batch_size,
            with_logprobs=reuse_sampling_logprobs or engine is not None,
            generator=engine,
        )
        scoring = dict(
            temperature=ro.temperature, micro_batch_size=rl.micro_batch_size, max_tokens=rl.micro_batch_tokens
        )
        teacher = dict(
            max_prompt_tokens=ro.max_prompt_tokens,
            temperature=ro.temperature,
            micro_batch_size=rl.micro_batch_size,
            max_tokens=rl.micro_batch_tokens,
            **({"insert": analyzer.insert} if isinstance(analyzer, StaticBankAnalyzer) else {}),
            estimator=settings.opd_estimator,
            beta=settings.opd_beta,  # 0 under the ungated baseline (algo/variants.py)
            top_k=config.opd.expected_top_k,
        )
        source = analyzer.source if analyzer is not None else None
        return cls(rollout, scoring, teacher, reuse_sampling_logprobs, source)
