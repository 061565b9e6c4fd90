"""`household`: the built-in text world in the style of ALFWorld, registered as the environment `household`.

Six task types (pick & place, look at an object in light, clean / heat / cool then place, pick two), procedurally
generated rooms with closed containers, ALFWorld-like commands and observations, the admissible actions at every
step, a step limit and a `won` flag; every task is a pure function of (split, seed). Splits: `train`, `valid_seen`,
`valid_unseen` (layouts and object–receptacle combinations never in train) and `dev` (for tuning). See world.py.

Options (`environment.options` of an experiment): `max_steps` (default 30), the environment's own step limit.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from seed_trainer.envs.household import world
from seed_trainer.envs.household.catalogue import SPLITS, TASK_TYPES
from seed_trainer.envs.household.demonstrator import Demonstrator, demonstrate, plan
from seed_trainer.envs.household.env import DEFAULT_MAX_STEPS, HouseholdEnv
from seed_trainer.envs.household.oracle_analysis import analysis_reply
from seed_trainer.envs.household.world import Instance


@dataclass(frozen=True)
class HouseholdSpec:
    """A task specification: the split, the instance seed and the task type (the instance is generated from them)."""

    split: str
    seed: int
    task_type: str

    @property
    def instance(self) -> Instance:
        return _instance(self.split, self.seed, self.task_type)


@functools.lru_cache(maxsize=4096)
def _instance(split: str, seed: int, task_type: str) -> Instance:
    return world.generate(split, seed, task_type)


def _instance_seed(split: str, seed: int, index: int) -> int:
    digest = hashlib.sha256(f"sample|{split}|{seed}|{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


class HouseholdTasks:
    """The TaskSource of the household environment."""

    name = "household"
    task_types: Sequence[str] = TASK_TYPES
    splits: Sequence[str] = SPLITS

    def __init__(self, max_steps: int = DEFAULT_MAX_STEPS, **options: Any):
        if options:
            raise ValueError(f"environment.options: unknown option(s) for household: {', '.join(sorted(options))}")
        if int(max_steps) < 1:
            raise ValueError("environment.options.max_steps: must be at least 1")
        self.max_steps = int(max_steps)

    def sample(self, split: str, count: int, seed: int, task_types: Sequence[str] | None = None) -> list[HouseholdSpec]:
        """`count` tasks of `split`, task types in turn (balanced), deterministic in (`split`, `seed`)."""
        if split not in SPLITS:
            raise ValueError(f"household: unknown split {split!r} (known: {', '.join(SPLITS)})")
        types = list(task_types) if task_types else list(TASK_TYPES)
        unknown = [t for t in types if t not in TASK_TYPES]
        if unknown:
            raise ValueError(f"household: unknown task type(s) {', '.join(unknown)} (known: {', '.join(TASK_TYPES)})")
        offset = _instance_seed(split, seed, -1) % len(types)
        return [
            HouseholdSpec(split, _instance_seed(split, seed, i), types[(offset + i) % len(types)]) for i in range(count)
        ]

    def make(self, spec: HouseholdSpec) -> HouseholdEnv:
        return HouseholdEnv(spec.instance, max_steps=self.max_steps)

    def oracle_analysis(self, spec: HouseholdSpec, episode: Any) -> str:
        """The analyzer's JSON reply for a finished episode (seed_trainer.rl.rollout.Episode), from the ground truth."""
        commands = [step.action for step in episode.steps]
        valid = [step.valid for step in episode.steps]
        return analysis_reply(spec.instance, commands, valid, bool(episode.won))


__all__ = ["Demonstrator", "HouseholdEnv", "HouseholdSpec", "HouseholdTasks", "demonstrate", "plan"]
