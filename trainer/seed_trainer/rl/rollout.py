"""The rollout loop: N copies of B tasks played in lockstep, one batched generation per environment step.

Every live environment contributes one prompt per round; the policy answers all of them in a single batched call
(KV cache, left padding), each response is reduced to an action, and every environment steps. An environment leaves
the batch when it is done or reaches `max_steps`. Each step becomes one training sample (DESIGN §2).

The prompt is the per-step prompt h_t through the chat template (`rollout.prompt_format: step`, the default), or, with
`chat` (opt-in), the whole episode so far as one conversation (algo/prompts.py `chat_system_prompt` and
`chat_user_turn`, compute/conversation.py for the token layout and truncation).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from seed_trainer.algo.actions import invalid_reason, parse_action
from seed_trainer.algo.prompts import build_step_prompt, chat_system_prompt, chat_user_turn
from seed_trainer.compute.conversation import ChatConversation
from seed_trainer.compute.policy import Policy
from seed_trainer.envs.base import EnvironmentFailure, Task, TaskSource

if TYPE_CHECKING:
    from seed_trainer.compute.engines import Generator


@dataclass
class Step:
    t: int
    observation: str  # what the agent saw before acting
    admissible_actions: list[str]
    prompt: str  # h_t: the user turn before the chat template (the chat format: this step's user turn)
    prompt_ids: list[int]
    response_ids: list[int]
    response: str
    action: str  # what the environment received
    valid: bool
    invalid_reason: str | None
    truncated: bool  # the response hit max_response_tokens without an end-of-turn token
    # The sampled tokens' log-probs as generation computed them (with `with_logprobs`), CPU float32.
    sample_logp: torch.Tensor | None = None
    # Filled after the rollout: per-token arrays (CPU float32) and the step's advantage.
    old_logp: torch.Tensor | None = None
    ref_logp: torch.Tensor | None = None
    teacher_logp: torch.Tensor | None = None
    # The teacher pass of the `baseline` / `expected` OPD estimators (algo/estimators.py): b(s) per token, and the
    # kept soft-target weights π_old(v)·g(v) ([R, k], ids None: the whole vocabulary) with the mass left out.
    gate_baseline: torch.Tensor | None = None
    target_ids: torch.Tensor | None = None
    target_weights: torch.Tensor | None = None
    target_tail: torch.Tensor | None = None
    advantage: float = 0.0
    score: float = 0.0


@dataclass
class Episode:
    task: Task
    group: int  # index of the task in this update's batch: the GRPO group
    index: int  # which of the N copies
    steps: list[Step] = field(default_factory=list)
    won: bool = False
    final_observation: str = ""
    skill: Any = None  # the hindsight skill (json_repair.SkillParse) once analysed
    skill_reply: str | None = None  # the analyzer's raw reply: recorded when it is not a valid skill
    spec: Any = None  # the task specification it was built from (an oracle analyzer reads the ground truth there)
    error: str | None = None  # why the environment failed (EnvironmentFailure): the episode ended there, not won
    score: float | None = None  # the environment's own task score when it reports one (info["score"], e.g. WebShop)

    @property
    def history(self) -> list[tuple[str, str]]:
        return [(step.observation, step.action) for step in self.steps]


PromptPrefix = Callable[[Task], str]
PROMPT_FORMATS = ("step", "chat")  # rollout.prompt_format


class _StepPrompts:
    """The `step` format: each step's prompt is the environment's step prompt (or the household's), one user turn."""

    def __init__(self, policy, build_prompt, history_length, extra, prompt_prefix, max_prompt_tokens) -> None:
        self.policy, self.build_prompt, self.history_length = policy, build_prompt, history_length
        self.extra, self.prompt_prefix, self.max_prompt_tokens = extra, prompt_prefix, max_prompt_tokens

    def user_turn(self, i: int, episode: Episode, observation) -> str:
        prompt = self.build_prompt(
            task=episode.task.description,
            observation=observation.text,
            admissible_actions=observation.admissible_actions,
            history=episode.history,
            history_length=self.history_length,
            **self.extra,
        )
        if self.prompt_prefix is not None:
            prompt = f"{self.prompt_prefix(episode.task)}\n\n{prompt}"
        return prompt

    def ids(self, i: int, prompt: str, episode: Episode) -> list[int]:
        return self.policy.encode_chat(prompt, self.max_prompt_tokens)


@dataclass
class _EpisodeConversation:
    conversation: ChatConversation
    users: list[str] = field(default_factory=list)  # its user turns so far
    first: int = 0  # the first turn its prompts keep (compute/conversation.py's truncation)


class _ChatPrompts:
    """The `chat` format: each episode's conversation so far."""

    def __init__(self, policy: Policy, memory: bool, max_prompt_tokens: int) -> None:
        self.policy, self.memory, self.max_prompt_tokens = policy, memory, max_prompt_tokens
        self.episodes: dict[int, _EpisodeConversation] = {}

    def user_turn(self, i: int, episode: Episode, observation) -> str:
        return chat_user_turn(
            observation=observation.text,
            admissible_actions=observation.admissible_actions,
            history=episode.history,
            memory=self.memory,
        )

    def ids(self, i: int, prompt: str, episode: Episode) -> list[int]:
        if i not in self.episodes:
            system = chat_system_prompt(episode.task.description)
            self.episodes[i] = _EpisodeConversation(ChatConversation(self.policy.tokenizer, system))
        state = self.episodes[i]
        state.users.append(prompt)
        responses = [step.response_ids for step in episode.steps]
        ids, state.first = state.conversation.prompt_ids(state.users, responses, self.max_prompt_tokens, state.first)
        return ids


def _check_chat_format(prompt_format: str, source: TaskSource, prompt_prefix: PromptPrefix | None) -> None:
    if prompt_format not in PROMPT_FORMATS:
        raise ValueError(f"rollout.prompt_format: {prompt_format!r} is not one of {', '.join(PROMPT_FORMATS)}")
    if prompt_format == "chat" and getattr(source, "step_prompt", None) is not None:
        raise ValueError(
            "rollout.prompt_format chat: the environment builds its own step prompt; the chat format is the "
            "household's (algo/prompts.py chat_system_prompt)"
        )
    if prompt_format == "chat" and prompt_prefix is not None:
        raise ValueError("rollout.prompt_format chat: a prompt prefix (SDAR) is not placed in a conversation yet")


def _takes_memory(build_prompt) -> bool:
    """Whether a step-prompt builder names `memory` among its parameters: one that only takes **kwargs (WebShop's)
    would drop it silently."""
    return "memory" in inspect.signature(build_prompt).parameters


def _default_parse(response: str) -> tuple[str, str | None]:
    parsed = parse_action(response)
    return parsed.action, None if parsed.valid else invalid_reason(response)


def _start(source: TaskSource, spec: Any, episode_args: tuple[int, int]) -> tuple[Any, Episode, Any]:
    """A new environment and its episode; an environment that fails to start gives an episode that already ended."""
    env = source.make(spec)
    try:
        task, observation = env.reset()
    except EnvironmentFailure as failure:
        task = failure.task or Task(id=str(spec), type="unknown", description="", split="")
        return None, Episode(task, *episode_args, spec=spec, error=str(failure)), None
    return env, Episode(task, *episode_args, spec=spec), observation


def play_episodes(
    policy: Policy,
    source: TaskSource,
    specs: Sequence[Any],
    *,
    group_size: int,
    max_steps: int,
    history_length: int,
    max_prompt_tokens: int,
    max_response_tokens: int,
    temperature: float = 1.0,
    greedy: bool = False,
    generation_batch_size: int = 64,
    prompt_prefix: PromptPrefix | None = None,
    with_logprobs: bool = False,
    generator: Generator | None = None,
    memory: bool = False,
    prompt_format: str = "step",
) -> list[Episode]:
    """Plays `group_size` episodes of every task spec; returns them grouped (group g = specs[g]).

    `prompt_prefix` (SDAR) puts privileged text in front of every step prompt of a task. `with_logprobs` keeps the
    sampled tokens' log-probs of each step (`Step.sample_logp`). `generator` answers the prompts instead of the
    policy (the vLLM engine of `rollout.engine: vllm`); the policy's tokenizer still builds them. `memory`
    (`rollout.memory`) asks the prompt for its line of places searched; off, the prompt builder is called as before.
    `prompt_format` (`rollout.prompt_format`): `chat` plays each episode as one conversation (module docstring).
    """
    _check_chat_format(prompt_format, source, prompt_prefix)
    build_prompt = getattr(source, "step_prompt", None) or build_step_prompt
    parse = getattr(source, "parse_response", None) or _default_parse
    extra = {"memory": True} if memory else {}  # only when on: an environment's own builder may not take it
    if memory and not _takes_memory(build_prompt):
        raise ValueError(
            f"rollout.memory: the environment's prompt ({getattr(build_prompt, '__qualname__', build_prompt)}) has no "
            "memory line; it is built for ALFWorld-style environments (household, alfworld, textworld)"
        )
    envs, episodes, observations = [], [], []
    for group, spec in enumerate(specs):
        for index in range(group_size):
            env, episode, observation = _start(source, spec, (group, index))
            envs.append(env)
            episodes.append(episode)
            observations.append(observation)
    live = [i for i, env in enumerate(envs) if env is not None]
    if prompt_format == "chat":
        prompter = _ChatPrompts(policy, memory, max_prompt_tokens)
    else:
        prompter = _StepPrompts(policy, build_prompt, history_length, extra, prompt_prefix, max_prompt_tokens)
    for _t in range(max_steps):
        if not live:
            break
        prompts = [prompter.user_turn(i, episodes[i], observations[i]) for i in live]
        prompt_ids = [prompter.ids(i, prompt, episodes[i]) for i, prompt in zip(live, prompts)]
        generations = (generator or policy).generate(
            prompt_ids,
            max_response_tokens,
            temperature=temperature,
            greedy=greedy,
            batch_size=generation_batch_size,
            with_logprobs=with_logprobs,
        )
        still_live = []
        for i, prompt, generation in zip(live, prompts, generations):
            episode, observation = episodes[i], observations[i]
            action, reason = parse(generation.text)
            try:
                result = envs[i].step(action)
            except EnvironmentFailure as failure:
                result, episode.error = None, str(failure)
            episode.steps.append(
                Step(
                    t=len(episode.steps),
                    observation=observation.text,
                    admissible_actions=list(observation.admissible_actions),
                    prompt=prompt,
                    prompt_ids=generation.prompt_ids,
                    response_ids=generation.response_ids,
                    response=generation.text,
                    action=action,
                    valid=reason is None,
                    invalid_reason=reason,
                    truncated=not generation.finished,
                    sample_logp=generation.logp,
                )
            )
            if result is None:  # the environment failed: the episode ends here, not won
                continue
            observations[i] = result.observation
            episode.final_observation = result.observation.text
            if "score" in result.info:
                episode.score = float(result.info["score"])
            if result.won:
                episode.won = True
            if not result.done:
                still_live.append(i)
        live = still_live
    for env in envs:
        close = getattr(env, "close", None)
        if close is not None:
            close()
    return episodes
