"""The analyzer interface and its result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from seed_trainer.algo.json_repair import SkillParse, parse_skill_reply
from seed_trainer.rl.rollout import Episode

if TYPE_CHECKING:
    from seed_trainer.rl.teacher import Insert


@dataclass(frozen=True)
class Analysis:
    """One trajectory's analysis: the reply (None when none came) and its format verification.

    When the request itself failed, `parse` is invalid and its `reason` says why (e.g. `HTTP 503 after 5 attempts`).
    """

    raw: str | None
    parse: SkillParse
    attempts: int = 1

    @classmethod
    def from_reply(cls, raw: str, attempts: int = 1) -> Analysis:
        return cls(raw, parse_skill_reply(raw), attempts)

    @classmethod
    def failed(cls, reason: str, attempts: int = 1) -> Analysis:
        return cls(None, SkillParse(valid=False, skill="", summary="", reason=reason), attempts)


class AnalyzerError(RuntimeError):
    """The analyzer cannot work at all (a refused API key, an unreachable endpoint, a missing setting): the stage
    fails with this one-line message. `code` is stable (`analyzer_auth`, `analyzer_unreachable`, …)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Analyzer(Protocol):
    source: str  # `self` | `external` | `oracle` | `static`: the skill record's (and trajectory's) `source`
    model: str | None  # the skill record's `model`
    insert: Insert  # how Stage 2's teacher prompt holds the skill (rl/teacher.py): `insert_skill`, or SDAR's

    def analyze(self, episodes: Sequence[Episode]) -> list[Analysis]:
        """One analysis per episode, in order."""
        ...
