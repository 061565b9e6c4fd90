"""The single-turn task of the peer comparison (bench/speed/peer_trl.py, issue 53), written once for both trainers.

"What is A + B?": one prompt, one reply, reward 1 when the reply's first integer is A + B, else 0. Ours plays it as a
one-step environment through the custom-environment hook (`environment.name: peer_task:SumTasks`, this folder on
PYTHONPATH); TRL gets the same prompts as a conversational dataset and `sum_reward` as its reward function. Both apply
the model's chat template to the one user message, so both sample from the same prompt tokens.

Standard library only: the trainer imports it as an environment, TRL's side as a dataset and reward.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from seed_trainer.envs.base import Observation, StepResult, Task

TASK_TYPE = "sum"
_FIRST_INTEGER = re.compile(r"-?\d+")


@dataclass(frozen=True)
class SumSpec:
    a: int
    b: int
    split: str
    index: int

    @property
    def answer(self) -> int:
        return self.a + self.b

    @property
    def question(self) -> str:
        return f"What is {self.a} + {self.b}? Reply with the number only."


def reward(text: str, answer: int) -> float:
    """1.0 when the first integer in `text` is `answer`, else 0.0 (no integer: 0.0)."""
    found = _FIRST_INTEGER.search(text)
    return 1.0 if found is not None and int(found.group()) == answer else 0.0


def sample_specs(split: str, count: int, seed: int) -> list[SumSpec]:
    """`count` questions of `split`, a function of (split, seed) alone; operands 1-20."""
    rng = random.Random(f"peer-sum:{split}:{seed}")
    return [SumSpec(rng.randint(1, 20), rng.randint(1, 20), split, i) for i in range(count)]


class _OneStep:
    def __init__(self, spec: SumSpec) -> None:
        self.spec = spec

    def reset(self) -> tuple[Task, Observation]:
        spec = self.spec
        task = Task(
            id=f"{spec.split}-{spec.a}+{spec.b}-{spec.index}",
            type=TASK_TYPE,
            description=spec.question,
            split=spec.split,
        )
        return task, Observation(spec.question)

    def step(self, action: str) -> StepResult:
        won = reward(action, self.spec.answer) == 1.0
        return StepResult(Observation(""), done=True, won=won, info={"score": float(won)})


class SumTasks:
    """Our side: a TaskSource whose episodes are one step, whose prompt is the bare question and whose every reply is
    a valid action (the whole reply goes to the reward), so the step's score is the reward and nothing else."""

    name = "peer-sum"
    task_types = (TASK_TYPE,)

    def __init__(self, **_options) -> None:
        pass

    def sample(self, split: str, count: int, seed: int, task_types=None) -> list[SumSpec]:
        return sample_specs(split, count, seed)

    def make(self, spec: SumSpec) -> _OneStep:
        return _OneStep(spec)

    def step_prompt(self, *, task, observation, admissible_actions, history, history_length) -> str:
        return observation  # the question's text: the whole user message, as TRL's dataset holds it

    def parse_response(self, response: str) -> tuple[str, str | None]:
        return response, None


def update_seed(seed: int, update: int) -> int:
    """The task seed of update `update` (1-based), as the trainer's loop draws it (stages/train.py)."""
    return seed * 1_000_003 + update


def trl_rows(seed: int, updates: int, prompts_per_update: int) -> list[dict]:
    """TRL's dataset: the prompts ours samples in updates 1..`updates`, in that order, so that with
    `shuffle_dataset=False` each TRL step sees the prompts of the same update of ours."""
    rows = []
    for update in range(1, updates + 1):
        for spec in sample_specs("train", prompts_per_update, update_seed(seed, update)):
            rows.append({"prompt": [{"role": "user", "content": spec.question}], "answer": spec.answer})
    return rows


def sum_reward(completions, answer, **_kwargs) -> list[float]:
    """TRL's reward function: `completions` are conversational ([{"role": "assistant", "content": …}]) or text."""
    texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
    return [reward(text, int(target)) for text, target in zip(texts, answer)]
