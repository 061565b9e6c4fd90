"""The states of a mistake-free demonstrator episode, each with the correct step and the mistakes that apply there.

Used where the environment's knowledge of the right action is the yardstick: the premise check (premise/) pairs the
correct step a* with each mistake; agent SFT (bootstrap/agent_sft.py) measures its greedy next-action accuracy on
held-out states. The prompts are the rollout's (algo/prompts.build_step_prompt, history of what the environment
received).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from seed_trainer.algo.prompts import build_step_prompt
from seed_trainer.envs.household.demonstrator import Decision, Demonstrator


@dataclass(frozen=True)
class ExpertState:
    step: int
    prompt: str  # h_t, the plain step prompt
    expert: Decision  # the demonstrator's correct step
    mistakes: tuple[Decision, ...]  # one per mistake kind that applies here, each with an action other than a*'s
    task: str = ""  # the task's description
    observation: Any = None  # the environment's Observation at this state (text and admissible actions)


def expert_states(source, spec, rng: random.Random, history: int, memory: bool = False) -> list[ExpertState]:
    """Plays `spec` with the demonstrator, without mistakes; every state of the episode in order. `rng` draws the
    mistakes' variants (`Demonstrator.mistake_options`); `memory` is `rollout.memory` of the prompts."""
    env = source.make(spec)
    task, observation = env.reset()
    agent = Demonstrator(env, rng)
    past: list[tuple[str, str]] = []
    states = []
    for t in range(env.max_steps):
        right = agent.decide()
        prompt = build_step_prompt(
            task=task.description,
            observation=observation.text,
            admissible_actions=observation.admissible_actions,
            history=past,
            history_length=history,
            memory=memory,
        )
        mistakes = tuple(d for d in agent.mistake_options(right, rng) if d.action != right.action)
        states.append(ExpertState(t, prompt, right, mistakes, task.description, observation))
        result = env.step(right.action)
        agent.after(right, result.observation.text)
        past.append((observation.text, right.action))
        observation = result.observation
        if result.done:
            break
    return states
