"""The household bootstrap's training text (`bootstrap/tiny_policy.py`, steps 1-3 of its recipe): demonstration steps — plain,
conditioned on an oracle analyzer's skill, or on the static skill bank — and analyses answered with the oracle
analyzer's JSON, deterministic in the seed."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from seed_trainer.algo.prompts import build_step_prompt
from seed_trainer.algo.skills import AnalysisStep, build_analysis_prompt, insert_skill
from seed_trainer.analyzers.static_bank import SkillBank
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.household.demonstrator import MISTAKES, demonstrate
from seed_trainer.envs.household.oracle_analysis import analysis_reply, replay, rule_kinds
from seed_trainer.envs.household.skill_bank import static_skill_text

if TYPE_CHECKING:
    from seed_trainer.bootstrap.recipe import BootstrapConfig


@dataclass
class Example:
    prompt: str  # the user turn
    response: str  # the assistant turn (trained on)
    kind: str  # step | analysis
    mistake: str | None = None  # a step's injected mistake kind (demonstrator.MISTAKES), None when it is correct


def _noise_profile(rng: random.Random, config: BootstrapConfig, boost: float = 0.0) -> tuple[dict[str, float], float]:
    rates = {
        kind: rng.choice(config.transform_noise if kind == "skip_transform" else config.noise) + boost
        for kind in MISTAKES
    }
    return rates, rng.choice(config.repeat_noise) + boost


def step_examples(task: str, steps, history: int, wrap=None, step_prompt=build_step_prompt) -> list[Example]:
    examples, past = [], []
    for observation, decision in steps:
        prompt = step_prompt(
            task=task,
            observation=observation.text,
            admissible_actions=observation.admissible_actions,
            history=past,
            history_length=history,
        )
        if wrap is not None:
            prompt = wrap(prompt)
        examples.append(Example(prompt, decision.response, "step", decision.mistake))
        past.append((observation.text, decision.action))
    return examples


def _analysis_example(spec, task: str, steps, won: bool) -> Example:
    analysis_steps = [AnalysisStep(obs.text, d.response, True) for obs, d in steps]
    prompt = build_analysis_prompt(task, 1.0 if won else 0.0, analysis_steps)
    reply = analysis_reply(spec.instance, [d.action for _, d in steps], [True] * len(steps), won)
    return Example(prompt, reply, "analysis")


@dataclass
class Demonstration:
    """One demonstrated episode of the training text, before it becomes prompts."""

    task: str
    steps: list  # [(observation, demonstrator.Decision)], in order
    wrap: Callable[[str], str] | None  # puts the episode's skill (oracle or bank) into a prompt; None: no skill
    analysis: Example | None  # an analysis of another attempt at the same task, when one was drawn


def demonstrations(config: BootstrapConfig, progress=None) -> Iterator[Demonstration]:
    """The demonstrated episodes of `make_examples`, deterministic in the seed (the draws are make_examples')."""
    source = HouseholdTasks(max_steps=config.max_steps)
    rng = random.Random(f"bootstrap|{config.seed}")
    specs = source.sample("train", config.episodes, seed=config.seed)
    for n, spec in enumerate(specs):
        task = source.make(spec).task.description
        draw = rng.random()
        rates, repeat = _noise_profile(rng, config)
        wrap = None
        if draw < config.skill_share:
            # an earlier attempt at the same task, its oracle analysis, and a demo that heeds the skill
            first_rates, first_repeat = _noise_profile(rng, config, boost=0.1)
            first, first_won = demonstrate(source.make(spec), rng, first_rates, first_repeat)
            reply = json.loads(
                analysis_reply(spec.instance, [d.action for _, d in first], [True] * len(first), first_won)
            )
            skill = reply["episode_skill"]
            heeded = rule_kinds(spec.instance, replay(spec.instance, [d.action for _, d in first], [True] * len(first)))
            rates = {k: (0.0 if k in heeded else v / 2) for k, v in rates.items()}
            repeat = 0.0 if "invalid" in heeded else repeat / 2
            wrap = lambda prompt, skill=skill: insert_skill(prompt, skill)  # noqa: E731
        elif draw < config.skill_share + config.bank_share:
            bank_text = static_skill_text(spec.task_type)
            rates = {k: 0.0 for k in rates}  # the bank covers every kind of mistake the demos make
            repeat = 0.0
            wrap = lambda prompt, text=bank_text: SkillBank.insert(prompt, text)  # noqa: E731
        steps, _won = demonstrate(source.make(spec), rng, rates, repeat)
        analysis = None
        if rng.random() < config.analysis_share:
            # analyses of episodes as a weak policy plays them: noisier, and often cut off unfinished
            a_rates, a_repeat = _noise_profile(rng, config, boost=0.15)
            cut = rng.choice((config.max_steps, 10, 14, 18))
            a_steps, a_won = demonstrate(source.make(spec), rng, a_rates, a_repeat, max_steps=cut)
            analysis = _analysis_example(spec, task, a_steps, a_won)
        yield Demonstration(task, steps, wrap, analysis)
        if progress is not None and (n + 1) % 100 == 0:
            progress(n + 1, len(specs))


def make_examples(config: BootstrapConfig, progress=None, *, memory: bool = False) -> list[Example]:
    """Demonstration steps (plain, skill-conditioned, bank-conditioned) and analyses, deterministic in the seed.
    `memory`: the step prompts carry `rollout.memory`'s line (agent SFT of a policy that will act with it)."""
    step_prompt = functools.partial(build_step_prompt, memory=True) if memory else build_step_prompt
    examples: list[Example] = []
    for demo in demonstrations(config, progress):
        examples.extend(step_examples(demo.task, demo.steps, config.history, demo.wrap, step_prompt))
        if demo.analysis is not None:
            examples.append(demo.analysis)
    return examples
