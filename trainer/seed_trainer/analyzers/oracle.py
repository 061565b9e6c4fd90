"""The `oracle` analyzer: an environment that knows the ground truth writes the reply (`TaskSource.oracle_analysis`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from seed_trainer.algo.skills import insert_skill
from seed_trainer.analyzers.base import Analysis, AnalyzerError
from seed_trainer.rl.rollout import Episode


class OracleAnalyzer:
    source = "oracle"
    insert = staticmethod(insert_skill)

    def __init__(self, task_source: Any) -> None:
        if task_source is None or not callable(getattr(task_source, "oracle_analysis", None)):
            name = getattr(task_source, "name", type(task_source).__name__)
            raise AnalyzerError(
                "analyzer_config", f"analyzer `oracle`: environment {name!r} has no oracle_analysis(spec, episode)"
            )
        self.task_source = task_source
        self.model = f"oracle:{getattr(task_source, 'name', type(task_source).__name__)}"

    def analyze(self, episodes: Sequence[Episode]) -> list[Analysis]:
        # The reply goes through the same format verification as any analyzer's.
        return [Analysis.from_reply(self.task_source.oracle_analysis(episode.spec, episode)) for episode in episodes]
