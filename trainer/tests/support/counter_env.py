"""A small deterministic environment for the tests: reach a target number with "add one", then "finish"."""

from __future__ import annotations

import random
from dataclasses import dataclass

from seed_trainer.envs.base import Observation, StepResult, Task


@dataclass(frozen=True)
class CounterSpec:
    index: int
    target: int
    split: str


class CounterEnv:
    """Reach `target` with "add one", then "finish". Anything else: "Nothing happens."."""

    def __init__(self, spec: CounterSpec, max_steps: int = 8):
        self.spec, self.value, self.steps, self.max_steps = spec, 0, 0, max_steps

    def _observation(self, text: str) -> Observation:
        return Observation(text, ["add one", "finish"])

    def reset(self):
        task = Task(
            f"counter-{self.spec.split}-{self.spec.index}",
            "counting",
            f"set the counter to {self.spec.target}.",
            self.spec.split,
        )
        return task, self._observation("The counter shows 0.")

    def step(self, action: str) -> StepResult:
        self.steps += 1
        if action == "add one":
            self.value += 1
            obs, won = f"The counter shows {self.value}.", False
        elif action == "finish":
            won = self.value == self.spec.target
            obs = "You finished." if won else "Nothing happens."
        else:
            obs, won = "Nothing happens.", False
        done = won or self.steps >= self.max_steps
        return StepResult(self._observation(obs), done, won, {})


class CounterTasks:
    name = "counter"
    task_types = ("counting",)

    def sample(self, split, count, seed, task_types=None):
        rng = random.Random(f"{split}-{seed}")
        return [CounterSpec(i, rng.randint(1, 3), split) for i in range(count)]

    def make(self, spec):
        return CounterEnv(spec)
