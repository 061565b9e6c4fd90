"""Agent SFT's packed layout (bootstrap/packed_episodes.py) and the chat format's token layout (compute/conversation.py):
a demonstrated episode as one conversation, the loss only at the trained assistant tokens, each step's log-probs those
of scoring the step alone with its own prefix. On the shipped tiny household policy, in fp32 on the CPU."""

from __future__ import annotations

import json
import random

import pytest
import torch

from seed_trainer.bootstrap.agent_sft import AgentSftConfig, agent_sft
from seed_trainer.bootstrap.examples import Demonstration
from seed_trainer.bootstrap.packed_episodes import episode_turns, pack_episode, packed_logprobs, step_prompts
from seed_trainer.compute.conversation import ChatConversation, end_of_turn_id
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.response_scoring import pack, response_logprobs
from seed_trainer.envs.base import Observation
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.household.demonstrator import MISTAKES, Decision, demonstrate
from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

# fp32 on the CPU: the packed pass and the one-step pass differ only in how far each row runs past the step (causal
# attention never reads it) and in the reduction order of a longer matrix product
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def policy():
    path = str(ensure_model_dir("builtin:household-tiny"))
    return Policy.load(ModelConfig(path=path, device="cpu", dtype="float32"), with_reference=False)


def _demonstration(seed: int = 0) -> Demonstration:
    """A train-split episode with injected mistakes, inadmissible commands among them."""
    source = HouseholdTasks(max_steps=20)
    spec = source.sample("train", 1, seed=seed)[0]
    steps, _won = demonstrate(source.make(spec), random.Random(seed), {k: 0.3 for k in MISTAKES}, 0.3)
    return Demonstration(source.make(spec).task.description, steps, None, None)


def _two_steps(first_mistake: str | None) -> Demonstration:
    observation = Observation("You are in the middle of a room.", ["go to fridge 1", "look"])
    return Demonstration(
        "put a cool apple in countertop.",
        [
            (observation, Decision("search", "look around", "fly to the moon", first_mistake)),
            (
                Observation("Nothing happens.", ["go to fridge 1", "look"]),
                Decision("search", "the fridge", "go to fridge 1"),
            ),
        ],
        None,
        None,
    )


@pytest.mark.parametrize("max_prompt_tokens", [100_000, 250])
def test_packed_log_probs_equal_each_step_scored_with_its_own_prefix(policy, max_prompt_tokens):
    demo = _demonstration(seed=3)
    turns = episode_turns(policy.tokenizer, demo, memory=False, train_invalid=True)
    prompts = step_prompts(policy.tokenizer, turns, max_prompt_tokens)
    sequences = pack_episode(policy.tokenizer, turns, max_prompt_tokens)
    assert len(turns.users) >= 6 and sum(s.decisions for s in sequences) == len(turns.users)
    # 250 tokens cut this episode: the steps whose prompts dropped turns start new sequences
    assert (len(sequences) == 1) == (max_prompt_tokens == 100_000)
    with torch.no_grad():
        packed = torch.cat([packed_logprobs(policy.model, [s], policy.pad_id, policy.device) for s in sequences])
        alone = [
            response_logprobs(policy.model, pack([p], [r], policy.pad_id, policy.device))[0][0]
            for p, r in zip(prompts, turns.responses)
        ]
    per_step = torch.split(packed, [len(r) for r in turns.responses])
    for step, (a, b) in enumerate(zip(per_step, alone)):
        assert torch.allclose(a, b, atol=TOLERANCE, rtol=0), f"step {step}: {(a - b).abs().max():.2e}"
    # and the batched pass (rows right-padded) gives the same numbers
    with torch.no_grad():
        batched = packed_logprobs(policy.model, sequences, policy.pad_id, policy.device)
    assert torch.allclose(batched, packed, atol=TOLERANCE, rtol=0)


def test_the_loss_mask_token_by_token(policy):
    tokenizer = policy.tokenizer
    end = end_of_turn_id(tokenizer)
    demo = _two_steps("invalid")
    turns = episode_turns(tokenizer, demo, memory=False, train_invalid=False)
    [sequence] = pack_episode(tokenizer, turns, 10_000)
    # the sequence is the model's own chat template of the whole conversation, tokenized at once
    messages = [{"role": "system", "content": turns.system}]
    for user, (_obs, decision) in zip(turns.users, demo.steps):
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": decision.response}]
    whole = tokenizer.apply_chat_template(messages, tokenize=False)
    assert sequence.ids == tokenizer.encode(whole.removesuffix("\n"), add_special_tokens=False)
    # token by token: 1 on the second reply and its end-of-turn token, 0 on the system and user turns, the template's
    # markup and the injected inadmissible command, which is still in the context before them
    second = tokenizer.encode(demo.steps[1][1].response, add_special_tokens=False) + [end]
    first = tokenizer.encode(demo.steps[0][1].response, add_special_tokens=False) + [end]
    mask = [int(i in sequence.targets) for i in range(len(sequence.ids))]
    assert mask == [0] * (len(sequence.ids) - len(second)) + [1] * len(second)
    assert sequence.ids[-len(second) :] == second
    at = next(i for i in range(len(sequence.ids)) if sequence.ids[i : i + len(first)] == first)
    assert at < len(sequence.ids) - len(second) and not any(mask[at : at + len(first)])
    assert "fly to the moon" in tokenizer.decode(sequence.ids) and sequence.decisions == 1
    # a correct first step is trained on too, and so is the command with train_invalid
    for changed in (
        pack_episode(tokenizer, episode_turns(tokenizer, _two_steps(None), memory=False, train_invalid=False), 10_000),
        pack_episode(tokenizer, episode_turns(tokenizer, demo, memory=False, train_invalid=True), 10_000),
    ):
        assert [changed[0].ids[i] for i in changed[0].targets] == first + second
    # an episode of nothing but the command trains nothing
    only = Demonstration(demo.task, demo.steps[:1], None, None)
    assert pack_episode(tokenizer, episode_turns(tokenizer, only, memory=False, train_invalid=False), 10_000) == []


def test_truncation_keeps_the_system_turn_and_the_newest_turns(policy):
    tokenizer = policy.tokenizer
    conversation = ChatConversation(tokenizer, "SYSTEM RULES")
    users = [f"observation {k} " + "word " * 30 for k in range(8)]
    responses = [
        tokenizer.encode(f"reply {k}", add_special_tokens=False) + [end_of_turn_id(tokenizer)] for k in range(7)
    ]
    whole = conversation.ids(users, responses)
    limit = len(whole) - 10
    ids, first = conversation.prompt_ids(users, responses, limit)
    text = tokenizer.decode(ids)
    # the oldest turns went, until at most half the limit was left; the system turn and the newest turns stayed
    assert len(ids) <= limit // 2 < len(conversation.ids(users, responses, first - 1))
    assert text.startswith("<|im_start|>system\nSYSTEM RULES") and "observation 7" in text
    assert all(f"observation {k} " not in text for k in range(first)) and f"observation {first} " in text
    assert ids == conversation.ids(users, responses, first)
    # the next step keeps that first turn while it fits
    more = conversation.prompt_ids(users + ["observation 8"], responses + [responses[0]], limit, first)
    assert more[1] == first and more[0][: len(ids)] == ids
    # nothing but the current turn is too long: the one-turn prompt, left-truncated
    tiny, last = conversation.prompt_ids(users, responses, 20)
    assert last == 7 and tiny == conversation.ids(users, responses, 7)[-20:]


def test_a_template_that_rewrites_earlier_turns_is_refused(policy):
    class Stripping:
        """A template that drops earlier assistant turns' text once a later turn exists (as Qwen3's drops reasoning)."""

        def __init__(self, tokenizer):
            self.tokenizer = tokenizer

        def __getattr__(self, name):
            return getattr(self.tokenizer, name)

        def apply_chat_template(self, messages, **kwargs):
            last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
            kept = [
                m if m["role"] != "assistant" or i > last_user else {**m, "content": ""} for i, m in enumerate(messages)
            ]
            return self.tokenizer.apply_chat_template(kept, **kwargs)

    conversation = ChatConversation(Stripping(policy.tokenizer), "S")
    with pytest.raises(ValueError, match="renders earlier turns unchanged"):
        conversation.ids(["a", "b"], [[5, end_of_turn_id(policy.tokenizer)]])


def test_agent_sft_in_the_packed_layout_trains_and_measures_in_the_chat_format(policy, tmp_path, monkeypatch):
    import seed_trainer.bootstrap.agent_sft_dev as dev

    seen = {}
    real = dev.next_action_accuracy

    def spy(policy, states, max_length, micro_batch_size=8, prompts=None):
        seen["prompts"] = prompts
        return real(policy, states, max_length, micro_batch_size, prompts)

    monkeypatch.setattr(dev, "next_action_accuracy", spy)
    config = AgentSftConfig(
        base="builtin:household-tiny",
        episodes=4,
        steps=2,
        batch_size=2,
        save_every=5,
        dtype="float32",
        lr=1e-4,
        warmup=1,
        layout="packed",
        max_prompt_tokens=600,
        dev_states=6,
    )
    out = agent_sft(tmp_path / "packed", config, echo=None)
    report = json.loads((out / "agent_sft.json").read_text())
    assert report["recipe"]["layout"] == "packed" and len(report["losses"]) == 2
    assert all(0 < loss < 20 for loss in report["losses"])
    assert [row["step"] for row in report["dev_accuracy"]] == [0, 2]
    # the dev states' prompts were the chat format's conversations, each its episode's prefix
    prompts = seen["prompts"]
    assert len(prompts) == 6 and policy.tokenizer.decode(prompts[1]).count("<|im_start|>user") == 2
