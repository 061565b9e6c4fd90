"""The `self` analyzer: the policy writes the skill (greedy), with the prompt Stage 2 uses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from seed_trainer.algo.skills import insert_skill
from seed_trainer.analyzers.base import Analysis
from seed_trainer.analyzers.self_analysis import self_analyze
from seed_trainer.compute.policy import Policy
from seed_trainer.rl.rollout import Episode

if TYPE_CHECKING:
    from seed_trainer.compute.engines import Generator


class PolicyAnalyzer:
    source = "self"
    insert = staticmethod(insert_skill)

    def __init__(
        self,
        policy: Policy,
        *,
        max_tokens: int,
        max_prompt_tokens: int,
        model: str | None = None,
        batch_size: int = 32,
        generator: Generator | None = None,
    ) -> None:
        """`batch_size` and `generator` (the engine that generates instead of the policy): as `self_analyze`."""
        self.policy, self.max_tokens, self.max_prompt_tokens, self.model = policy, max_tokens, max_prompt_tokens, model
        self.batch_size, self.generator = batch_size, generator

    def analyze(self, episodes: Sequence[Episode]) -> list[Analysis]:
        replies = self_analyze(
            self.policy,
            episodes,
            max_tokens=self.max_tokens,
            max_prompt_tokens=self.max_prompt_tokens,
            batch_size=self.batch_size,
            generator=self.generator,
        )
        return [Analysis(raw, parse) for raw, parse in replies]
