"""Agent SFT's packed layout: a demonstrated episode as one multi-turn sequence in the chat format the policy then acts
in (`rollout.prompt_format: chat`; algo/prompts.py for the turns, compute/conversation.py for the tokens), instead of
one sequence per step with its own prompt.

The loss is taken at the assistant tokens (each reply and its end-of-turn token) and only there: the decoder runs over
the whole sequence once, and the output layer only at the positions that predict a trained token. An injected
inadmissible command stays in the conversation, so the later turns see it and the recovery, but its tokens carry no
loss unless `train_invalid`. A step's prompt is exactly what the rollout builds for that step — the same turns, the
same truncation to `max_prompt_tokens` — so one sequence holds every run of steps whose prompts drop the same turns,
and a step whose prompt drops one more turn starts the next sequence. The analyses stay one-turn sequences (their
prompt through the chat template, left-truncated to fit `max_length`), as in the step layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import torch

from seed_trainer.algo.logprobs import selective_log_softmax
from seed_trainer.algo.prompts import chat_system_prompt, chat_user_turn
from seed_trainer.bootstrap.examples import Demonstration, Example
from seed_trainer.compute.conversation import ChatConversation, end_of_turn_id


@dataclass(frozen=True)
class PackedSequence:
    ids: list[int]
    targets: list[int]  # positions in `ids` of the tokens the loss is taken on (each predicted from the one before)
    decisions: int  # replies trained in it (an analysis counts as one)


@dataclass(frozen=True)
class EpisodeTurns:
    """An episode in the chat format: the system turn, and per step the user turn and the reply's token ids."""

    system: str
    users: list[str]
    responses: list[list[int]]  # each reply's tokens and the end-of-turn token
    trained: list[bool]


def episode_turns(tokenizer, demo: Demonstration, *, memory: bool, train_invalid: bool) -> EpisodeTurns:
    """The turns of a demonstration; a skill of the demonstration (oracle or bank) sits in the system turn, after
    the task line, where `skills.insert_skill` puts it."""
    system = chat_system_prompt(demo.task)
    if demo.wrap is not None:
        system = demo.wrap(system)
    end = end_of_turn_id(tokenizer)
    users, responses, trained, past = [], [], [], []
    for observation, decision in demo.steps:
        users.append(
            chat_user_turn(
                observation=observation.text,
                admissible_actions=observation.admissible_actions,
                history=past,
                memory=memory,
            )
        )
        responses.append(tokenizer.encode(decision.response, add_special_tokens=False) + [end])
        trained.append(train_invalid or decision.mistake != "invalid")
        past.append((observation.text, decision.action))
    return EpisodeTurns(system, users, responses, trained)


def step_prompts(tokenizer, turns: EpisodeTurns, max_prompt_tokens: int) -> list[list[int]]:
    """Every step's prompt ids, as the rollout in the chat format builds them (rl/rollout.py)."""
    conversation = ChatConversation(tokenizer, turns.system)
    prompts, first = [], 0
    for step in range(len(turns.users)):
        ids, first = conversation.prompt_ids(turns.users[: step + 1], turns.responses[:step], max_prompt_tokens, first)
        prompts.append(ids)
    return prompts


def pack_episode(tokenizer, turns: EpisodeTurns, max_prompt_tokens: int) -> list[PackedSequence]:
    """The episode as few sequences as its truncation allows; a sequence with no trained reply is left out."""
    sequences: list[PackedSequence] = []
    ids: list[int] = []
    targets: list[int] = []
    decisions = 0
    for prompt, response, trained in zip(
        step_prompts(tokenizer, turns, max_prompt_tokens), turns.responses, turns.trained
    ):
        if prompt[: len(ids)] != ids or not ids:  # the first step, or this prompt dropped a turn: a new sequence
            if targets:
                sequences.append(PackedSequence(ids, targets, decisions))
            ids, targets, decisions = [], [], 0
        start = len(prompt)
        ids = prompt + response
        if trained:
            targets += range(start, start + len(response))
            decisions += 1
    if targets:
        sequences.append(PackedSequence(ids, targets, decisions))
    return sequences


def one_turn_sequence(prompt_ids: Sequence[int], response_ids: Sequence[int]) -> PackedSequence:
    """A prompt and its reply (an analysis; or a step of the step layout) as a sequence with the loss on the reply."""
    start = len(prompt_ids)
    return PackedSequence(list(prompt_ids) + list(response_ids), list(range(start, start + len(response_ids))), 1)


def packed_examples(
    policy,
    demos: Iterable[Demonstration],
    analyses: Iterable[Example],
    *,
    memory: bool,
    train_invalid: bool,
    max_prompt_tokens: int,
    max_length: int,
) -> list[PackedSequence]:
    """Agent SFT's training sequences in the packed layout: each demonstration's episode sequences, then the
    analyses (an analysis whose reply alone does not fit `max_length` is left out)."""
    tokenizer = policy.tokenizer
    end = end_of_turn_id(tokenizer)
    out: list[PackedSequence] = []
    for demo in demos:
        turns = episode_turns(tokenizer, demo, memory=memory, train_invalid=train_invalid)
        out += pack_episode(tokenizer, turns, max_prompt_tokens)
    for example in analyses:
        reply = tokenizer.encode(example.response, add_special_tokens=False) + [end]
        if max_length - len(reply) >= 1:
            out.append(one_turn_sequence(policy.encode_chat(example.prompt, max_length - len(reply)), reply))
    return out


def packed_logprobs(model, sequences: Sequence[PackedSequence], pad_id: int, device) -> torch.Tensor:
    """Log-probs [N] of every target token of `sequences`, in order: one decoder pass over the right-padded rows (no
    attention mask, as compute/response_scoring.py), the output layer only at the N positions that predict them."""
    width = max(len(s.ids) for s in sequences)
    input_ids = torch.tensor([s.ids + [pad_id] * (width - len(s.ids)) for s in sequences], device=device)
    rows = torch.tensor([r for r, s in enumerate(sequences) for _ in s.targets], device=device)
    columns = torch.tensor([p for s in sequences for p in s.targets], device=device)
    hidden = model.get_decoder()(input_ids=input_ids, use_cache=False).last_hidden_state  # [B, T, H]
    logits = model.get_output_embeddings()(hidden[rows, columns - 1])  # [N, V]: position p − 1 predicts token p
    return selective_log_softmax(logits, input_ids[rows, columns])
