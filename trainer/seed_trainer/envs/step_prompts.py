"""Per-step prompts of the benchmark environments: the trainer's prompt (algo/prompts.py, verl-agent's structure:
task line, step count, last H observation/action pairs, current observation, admissible actions, <think>/<action>
instructions) with the opening sentence naming the environment the agent is in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from seed_trainer.algo.prompts import INTRO, build_step_prompt


def step_prompt_with_intro(intro: str) -> Callable[..., str]:
    """A `TaskSource.step_prompt` that is `build_step_prompt` opening with `intro` instead of the household line."""

    def step_prompt(*, memory: bool = False, **kwargs: Any) -> str:
        prompt = build_step_prompt(memory=memory, **kwargs)
        return intro + prompt[len(INTRO) :] if prompt.startswith(INTRO) else prompt

    return step_prompt
