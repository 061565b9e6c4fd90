"""The household states of the premise check where the environment knows the expert action a* and a mistake m.

Per task, two attempts by the demonstrator (envs/household/demonstrator.py):
- attempt A plays with mistakes at a fixed rate; the skills are written about it (the oracle analyzer's from the ground
  truth, the model's own from the analysis prompt), so a skill is about *another attempt at this task* and cannot
  simply name the a* of a state it is scored on;
- attempt B plays without mistakes; at each of its states the correct step a* is paired with every mistake kind that
  applies there (one variant each, `Demonstrator.mistake_options`), each written as a whole policy response
  `<think>…</think><action>…</action>`.
Deterministic in (split, seed, task count).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from seed_trainer.algo.skills import AnalysisStep, build_analysis_prompt
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.household.demonstrator import MISTAKES, demonstrate
from seed_trainer.envs.household.expert_states import ExpertState, expert_states
from seed_trainer.envs.household.oracle_analysis import analysis_reply

# Attempt A's mistake rates: high enough that about half the attempts fail within 20 steps (55 % of 60 dev tasks won
# at these rates, 92 % at 0.15 / 0.3), so both outcomes and both kinds of skill (workflow, mistakes) occur.
ATTEMPT_A_RATES = {kind: 0.3 for kind in MISTAKES}
ATTEMPT_A_REPEAT = 0.5


@dataclass
class TaskStates:
    task_id: str
    task_type: str
    task: str  # the task sentence
    attempt_a_won: bool
    attempt_a_steps: int
    analysis_prompt: str  # attempt A through the analysis prompt (what the model's own skill answers)
    oracle_skill: str  # the oracle analyzer's skill of attempt A
    # attempt B's states that have a mistake to pair with (`Decision.mistake` names each one's kind)
    states: list[ExpertState] = field(default_factory=list)


def household_states(
    split: str, tasks: int, seed: int, *, max_steps: int, history: int, memory: bool = False
) -> list[TaskStates]:
    """`memory`: rollout.memory of the step prompts (for a policy fine-tuned with it)."""
    source = HouseholdTasks(max_steps=max_steps)
    out = []
    for index, spec in enumerate(source.sample(split, tasks, seed=seed)):
        rng = random.Random(f"premise|{split}|{seed}|{index}")
        env_a = source.make(spec)
        first, won = demonstrate(env_a, rng, ATTEMPT_A_RATES, ATTEMPT_A_REPEAT)
        described = env_a.reset()[0]
        task_id, task = described.id, described.description
        commands = [decision.action for _, decision in first]
        reply = json.loads(analysis_reply(spec.instance, commands, [True] * len(commands), won))
        analysis = build_analysis_prompt(
            task, 1.0 if won else 0.0, [AnalysisStep(obs.text, d.response, True) for obs, d in first]
        )
        item = TaskStates(task_id, spec.task_type, task, won, len(first), analysis, reply["episode_skill"])
        item.states = [e for e in expert_states(source, spec, rng, history, memory=memory) if e.mistakes]
        out.append(item)
    return out
