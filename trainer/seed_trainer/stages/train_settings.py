"""The Stage-2 loop's settings, resolved once before the first update (`loop_settings`): what the rollout, the log-prob
scoring and the teacher pass are called with (the gate and the analyzer's skill insertion included), whether π_old's
log-probs are the sampling ones, and the skills' source. Each phase's settings are a frozen dataclass whose fields are
named as the parameters of the function they are passed to by name (rl/rollout.py `play_episodes`, through
`play_episodes_with`; compute/policy.py `Policy.score`; rl/teacher.py `teacher_pass`, through `teacher_pass_with`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from seed_trainer.algo.skills import insert_skill
from seed_trainer.analyzers import Analyzer
from seed_trainer.compute.policy import Policy
from seed_trainer.envs.base import TaskSource
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.rl.rollout import Episode, play_episodes
from seed_trainer.rl.teacher import Insert, teacher_pass
from seed_trainer.rl.update import LossSettings

if TYPE_CHECKING:
    from seed_trainer.compute.engines import Generator


@dataclass(frozen=True)
class RolloutSettings:
    """`play_episodes`'s, after the policy, task source and specs (the engine, if any, is passed beside them)."""

    group_size: int
    max_steps: int
    history_length: int  # rollout.history
    max_prompt_tokens: int
    max_response_tokens: int
    temperature: float
    generation_batch_size: int
    with_logprobs: bool  # keep the sampled tokens' log-probs: π_old's own, or the engine's to check against π_old
    memory: bool  # rollout.memory: the prompt's line of places searched
    prompt_format: str  # rollout.prompt_format: one step prompt, or the episode as one conversation


@dataclass(frozen=True)
class ScoringSettings:
    """`Policy.score`'s, for π_old and the reference."""

    temperature: float  # rollout.temperature: the distribution the rollout sampled from
    micro_batch_size: int
    max_tokens: int | None  # rl.micro_batch_tokens


@dataclass(frozen=True)
class TeacherSettings:
    """`teacher_pass`'s, after the policy and episodes (the skill of each episode is the update's own)."""

    max_prompt_tokens: int
    temperature: float
    micro_batch_size: int
    max_tokens: int | None  # rl.micro_batch_tokens
    insert: Insert  # how the teacher prompt holds the skill: the analyzer's (the static bank's is SDAR's)
    estimator: str  # opd.estimator
    beta: float  # the gate's: 0 under the ungated baseline (algo/variants.py)
    top_k: int | None  # opd.expected_top_k


@dataclass(frozen=True)
class LoopSettings:
    rollout: RolloutSettings
    scoring: ScoringSettings
    teacher: TeacherSettings
    reuse_sampling_logprobs: bool  # π_old's log-probs are the ones sampling returned
    skill_source: str | None  # the trajectory records' skill `source`; None: the algorithm uses no skills


def loop_settings(
    config: ExperimentConfig,
    loss: LossSettings,
    analyzer: Analyzer | None,
    *,
    engine: bool,
    device: torch.device,
    compute_dtype: torch.dtype,
) -> LoopSettings:
    """What every phase of the loop is called with, from the experiment, the algorithm's loss settings (the gate's β),
    Stage 2's analyzer (None: no skills), whether a rollout engine generates, and where and in what dtype the policy
    computes. π_old's log-probs are the sampling ones under `rl.old_logprobs: rollout`, and under `auto` where the
    policy itself samples on the CPU in float32 (scoring again would give the same numbers)."""
    ro, rl = config.rollout, config.rl
    reuse_sampling_logprobs = rl.old_logprobs == "rollout" or (
        rl.old_logprobs == "auto" and not engine and device.type == "cpu" and compute_dtype == torch.float32
    )
    rollout = RolloutSettings(
        group_size=ro.group_size,
        max_steps=ro.max_steps,
        history_length=ro.history,
        max_prompt_tokens=ro.max_prompt_tokens,
        max_response_tokens=ro.max_response_tokens,
        temperature=ro.temperature,
        generation_batch_size=ro.generation_batch_size,
        with_logprobs=reuse_sampling_logprobs or engine,
        memory=ro.memory,
        prompt_format=ro.prompt_format,
    )
    scoring = ScoringSettings(
        temperature=ro.temperature, micro_batch_size=rl.micro_batch_size, max_tokens=rl.micro_batch_tokens
    )
    teacher = TeacherSettings(
        max_prompt_tokens=ro.max_prompt_tokens,
        temperature=ro.temperature,
        micro_batch_size=rl.micro_batch_size,
        max_tokens=rl.micro_batch_tokens,
        insert=analyzer.insert if analyzer is not None else insert_skill,
        estimator=loss.opd_estimator,
        beta=loss.opd_beta,
        top_k=config.opd.expected_top_k,
    )
    skill_source = analyzer.source if analyzer is not None else None
    return LoopSettings(rollout, scoring, teacher, reuse_sampling_logprobs, skill_source)


def play_episodes_with(
    rollout: RolloutSettings, policy: Policy, source: TaskSource, specs: Sequence[Any], engine: Generator | None
) -> list[Episode]:
    """The update's episodes, sampled from π_old (by `engine` where there is one) with the loop's rollout settings."""
    return play_episodes(
        policy,
        source,
        specs,
        group_size=rollout.group_size,
        max_steps=rollout.max_steps,
        history_length=rollout.history_length,
        max_prompt_tokens=rollout.max_prompt_tokens,
        max_response_tokens=rollout.max_response_tokens,
        temperature=rollout.temperature,
        generation_batch_size=rollout.generation_batch_size,
        with_logprobs=rollout.with_logprobs,
        generator=engine,
        memory=rollout.memory,
        prompt_format=rollout.prompt_format,
    )


def teacher_pass_with(
    teacher: TeacherSettings,
    policy: Policy,
    episodes: Sequence[Episode],
    skill_of: Callable[[Episode], str | None] | None,
) -> None:
    """The teacher's log-probs of the episodes' steps under the skill `skill_of` gives each (None: the episode's own
    valid analysis), with the loop's teacher settings (the gate's β and the analyzer's skill insertion included)."""
    teacher_pass(
        policy,
        episodes,
        max_prompt_tokens=teacher.max_prompt_tokens,
        temperature=teacher.temperature,
        micro_batch_size=teacher.micro_batch_size,
        max_tokens=teacher.max_tokens,
        insert=teacher.insert,
        skill_of=skill_of,
        estimator=teacher.estimator,
        beta=teacher.beta,
        top_k=teacher.top_k,
    )
