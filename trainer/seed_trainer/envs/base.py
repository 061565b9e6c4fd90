"""The interface between the trainer and an environment.

An environment is one episode of one task: `reset()` gives the task and the first observation with the admissible
actions, `step(text)` plays the text the policy produced (already reduced to an action) and answers with the next
observation. A `TaskSource` hands out task specifications per split, deterministically from a seed, and builds
environments from them; the trainer never needs to know more about a domain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Task:
    id: str  # stable across runs: the same id is the same task
    type: str  # task type, for per-type success (e.g. "pick_and_place")
    description: str  # what goes after "Your task is to: "
    split: str  # train | valid_seen | valid_unseen


@dataclass
class Observation:
    text: str
    admissible_actions: list[str] = field(default_factory=list)


@dataclass
class StepResult:
    observation: Observation
    done: bool
    won: bool
    info: dict[str, Any] = field(default_factory=dict)


class EnvironmentFailure(Exception):
    """An environment that cannot go on (its server died, timed out or broke the protocol). The rollout ends that
    episode as failed, records the message, and the run goes on. `task` is the episode's task when it is known."""

    def __init__(self, message: str, task: Task | None = None) -> None:
        super().__init__(message)
        self.task = task


class Environment(Protocol):
    def reset(self) -> tuple[Task, Observation]: ...

    def step(self, action: str) -> StepResult: ...

    # Optional: close(self) -> None, called once the episode is over (a remote environment frees its server slot).


class TaskSource(Protocol):
    """Hands out tasks of one domain and builds an environment for each."""

    name: str
    task_types: Sequence[str]

    def sample(self, split: str, count: int, seed: int, task_types: Sequence[str] | None = None) -> list[Any]:
        """`count` task specifications of `split` (only of `task_types` when given), deterministic in `seed`."""
        ...

    def make(self, spec: Any) -> Environment: ...

    # Optional, for environments whose agents speak another format than the household's (WebShop, search-QA):
    #   step_prompt(self, *, task, observation, admissible_actions, history, history_length) -> str
    #       the per-step prompt h_t (default: seed_trainer.algo.prompts.build_step_prompt);
    #   parse_response(self, response) -> tuple[str, str | None]
    #       the text the environment receives and why the step is invalid, None when it is valid
    #       (default: seed_trainer.algo.actions.parse_action and invalid_reason).
    # A teacher prompt inserts the skill after the "Your task is to: " line, so a step prompt should keep one.

    # Optional, for the `oracle` analyzer: a source that knows the ground truth may also define
    #   oracle_analysis(self, spec, episode) -> str
    # returning the analyzer's reply (the JSON text {"episode_summary", "episode_skill"}) for a finished episode
    # (seed_trainer.rl.rollout.Episode). The reply goes through the same format verification as any analyzer's.
