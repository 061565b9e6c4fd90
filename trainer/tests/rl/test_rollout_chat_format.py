"""`rollout.prompt_format`: the default rollout builds the prompts it always built, byte for byte and token for token;
`chat` plays an episode as one conversation whose step prompts are exactly agent SFT's packed prefixes."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from seed_trainer.bootstrap.examples import Demonstration
from seed_trainer.bootstrap.packed_episodes import episode_turns, pack_episode, step_prompts
from seed_trainer.compute.conversation import end_of_turn_id
from seed_trainer.compute.policy import Generation, Policy
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.household.demonstrator import MISTAKES, demonstrate
from seed_trainer.experiment.config import ExperimentConfig, ModelConfig, ensure_model_dir
from seed_trainer.rl.rollout import play_episodes


class Replay:
    """Answers each prompt with the next reply of a demonstration, as the vLLM engine would answer (rollout's
    `generator`): the reply's tokens and the end-of-turn token, as agent SFT trains them."""

    def __init__(self, tokenizer, responses: list[str]):
        self.tokenizer, self.responses, self.end = tokenizer, responses, end_of_turn_id(tokenizer)

    def generate(self, prompt_ids, max_new_tokens, **_):
        out = []
        for ids in prompt_ids:
            text = self.responses.pop(0)
            out.append(
                Generation(list(ids), self.tokenizer.encode(text, add_special_tokens=False) + [self.end], text, True)
            )
        return out


@pytest.fixture(scope="module")
def policy():
    path = str(ensure_model_dir("builtin:household-tiny"))
    return Policy.load(ModelConfig(path=path, device="cpu", dtype="float32"), with_reference=False)


def _demonstrated(source, spec, seed):
    steps, _won = demonstrate(source.make(spec), random.Random(seed), {k: 0.3 for k in MISTAKES}, 0.2)
    return steps


def _replayed(policy, source, spec, steps, **options):
    [episode] = play_episodes(
        policy,
        source,
        [spec],
        group_size=1,
        max_steps=20,
        max_response_tokens=64,
        generator=Replay(policy.tokenizer, [d.response for _, d in steps]),
        **options,
    )
    assert [s.action for s in episode.steps] == [d.action for _, d in steps]
    return episode


def test_the_default_rollout_prompts_are_unchanged_byte_for_byte(policy):
    """The tiny policy and the science benchmarks were trained and measured on these prompts: every step prompt and
    its token ids of three replayed valid_seen demonstrations, with and without truncation, hash as they did before
    `rollout.prompt_format` existed (computed at 380ec34)."""
    source = HouseholdTasks(max_steps=20)
    parts = []
    for i, spec in enumerate(source.sample("valid_seen", 3, seed=0)):
        steps = _demonstrated(source, spec, i)
        for limit in (4096, 160):
            episode = _replayed(policy, source, spec, steps, history_length=2, max_prompt_tokens=limit)
            parts += [json.dumps([s.prompt, s.prompt_ids, s.action, s.valid]) for s in episode.steps]
    assert len(parts) == 80
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()
    assert digest == "58bf9a0938d15f0c6f7a0187011956bae5c1ed73842c2aa073a03c011e0075a0"


@pytest.mark.parametrize("limit", [4096, 250])
def test_chat_rollout_prompts_are_agent_sfts_packed_prefixes(policy, limit):
    source = HouseholdTasks(max_steps=20)
    spec = source.sample("train", 1, seed=5)[0]
    steps = _demonstrated(source, spec, 5)
    episode = _replayed(policy, source, spec, steps, history_length=2, max_prompt_tokens=limit, prompt_format="chat")
    demo = Demonstration(episode.task.description, steps, None, None)
    turns = episode_turns(policy.tokenizer, demo, memory=False, train_invalid=False)
    assert [s.prompt_ids for s in episode.steps] == step_prompts(policy.tokenizer, turns, limit)
    assert [s.prompt for s in episode.steps] == turns.users  # a step's prompt is its user turn
    # and every trained step's prefix sits in one of the packed sequences, its reply right after it
    sequences = pack_episode(policy.tokenizer, turns, limit)
    for step, trained in zip(episode.steps, turns.trained):
        if trained:
            [holder] = [s for s in sequences if s.ids[: len(step.prompt_ids)] == step.prompt_ids]
            start = len(step.prompt_ids)
            assert holder.ids[start : start + len(step.response_ids)] == step.response_ids
            assert set(range(start, start + len(step.response_ids))) <= set(holder.targets)
    if limit == 250:
        assert len(sequences) > 1  # the episode was cut, so truncation is what was compared
    # the whole conversation is in the last prompt: system turn, every observation, every reply
    text = policy.tokenizer.decode(episode.steps[-1].prompt_ids)
    if limit == 4096:
        assert text.count("<|im_start|>user") == len(steps) and text.startswith("<|im_start|>system\nYou are")


def test_the_chat_format_reaches_memory_and_refuses_what_it_cannot_place(policy, counter_tasks):
    source = HouseholdTasks(max_steps=20)
    spec = source.sample("train", 1, seed=5)[0]
    steps = _demonstrated(source, spec, 5)
    remembered = _replayed(
        policy, source, spec, steps, history_length=2, max_prompt_tokens=4096, prompt_format="chat", memory=True
    )
    assert any(s.prompt.startswith("Places you have searched so far") for s in remembered.steps[1:])
    common = dict(group_size=1, max_steps=1, history_length=1, max_prompt_tokens=64, max_response_tokens=4)
    with pytest.raises(ValueError, match="prompt_format: 'turns' is not one of step, chat"):
        play_episodes(policy, source, [spec], prompt_format="turns", **common)
    with pytest.raises(ValueError, match="a prompt prefix"):
        play_episodes(policy, source, [spec], prompt_format="chat", prompt_prefix=lambda task: "bank", **common)

    class OwnPrompt(HouseholdTasks):
        step_prompt = staticmethod(lambda **kwargs: "mine")

    with pytest.raises(ValueError, match="builds its own step prompt"):
        play_episodes(policy, OwnPrompt(max_steps=2), [spec], prompt_format="chat", **common)


def _experiment(**sections):
    return ExperimentConfig.model_validate({"name": "x", "model": {"path": "builtin:household-tiny"}, **sections})


def test_the_settings_and_their_rules():
    # the default experiment serialises as before the two settings existed (computed at 380ec34), plus them
    dumped = _experiment().model_dump(mode="json", by_alias=True)
    assert dumped["rollout"].pop("prompt_format") == "step"
    assert dumped["sft"].pop("mode") == "skills"
    agent = dumped["sft"].pop("agent")
    assert agent["steps"] == 300 and agent["train_invalid"] is False and agent["freeze_layers"] == 0
    digest = hashlib.sha256(json.dumps(dumped, sort_keys=True).encode()).hexdigest()
    assert digest == "68facc286707afc1ea58e0cd2271afcfa62923a15ee418b8aa7a444aaf9439a9"
    # chat: no teacher pass reads it yet, so Stage 2 runs grpo only
    with pytest.raises(ValueError, match=r"rollout\.prompt_format: `chat` .* runs `grpo` only"):
        _experiment(rollout={"prompt_format": "chat"})
    assert _experiment(rollout={"prompt_format": "chat"}, algorithm="grpo").rollout.prompt_format == "chat"
    # agent SFT trains on the household's demonstrations
    with pytest.raises(ValueError, match=r"sft\.mode: `agent` trains on the demonstrations of the built-in household"):
        _experiment(sft={"mode": "agent"}, environment={"name": "webshop"})
    assert _experiment(sft={"mode": "agent", "agent": {"freeze_layers": 15}}).sft.agent.freeze_layers == 15
