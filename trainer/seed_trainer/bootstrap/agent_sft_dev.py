"""Agent SFT's yardstick on held-out states of the `dev` split (mistake-free demonstrations), in the prompt the policy
will act with: the step prompt, or in the chat format (`layout: packed`) the expert episode so far as one conversation,
truncated as the rollout truncates it.

- The gate, `greedy_action`: the share of states where the model, answering greedily on its own (reasoning included),
  names the demonstrator's correct action. Also measured there: whether that action is admissible, and whether the
  reply is a valid step.
- `teacher_forced`: the share where every action token of the demonstrator's correct response is the model's most
  likely token, given the prompt and the correct response before it. Kept as a secondary column, not a gate: the
  demonstrator's reasoning names its target ("Look for a plate in cabinet 1." before `go to cabinet 1`), so with the
  reasoning forced the action is mostly a copy (the first pilot: 0.98 teacher-forced where the reasoning alone was
  right token for token in 0.15 of the states).
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def dev_states(config) -> list:
    """`config.dev_states` (an agent_sft.AgentSftConfig) held-out states: mistake-free demonstrations of `dev` tasks, in order, fixed by the seed."""
    from seed_trainer.envs.household import HouseholdTasks
    from seed_trainer.envs.household.expert_states import expert_states

    source = HouseholdTasks(max_steps=config.max_steps)
    states: list = []
    for index, spec in enumerate(source.sample("dev", config.dev_states, seed=config.seed)):  # ≥ 1 state per task
        rng = random.Random(f"agent-sft-dev|{config.seed}|{index}")
        states += expert_states(source, spec, rng, config.history, memory=config.memory)
        if len(states) >= config.dev_states:
            break
    return states[: config.dev_states]


def chat_dev_prompts(policy, states: Sequence, *, memory: bool, max_prompt_tokens: int) -> list[list[int]]:
    """Each state's prompt in the chat format: its episode's conversation up to it, the earlier turns answered by the
    demonstrator's correct responses (the states of one episode are consecutive, from step 0)."""
    from seed_trainer.bootstrap.examples import Demonstration
    from seed_trainer.bootstrap.packed_episodes import episode_turns, step_prompts

    episodes: list[list] = []
    for state in states:
        if state.step == 0 or not episodes:
            episodes.append([])
        episodes[-1].append(state)
    prompts: list[list[int]] = []
    for episode in episodes:
        demo = Demonstration(episode[0].task, [(s.observation, s.expert) for s in episode], None, None)
        turns = episode_turns(policy.tokenizer, demo, memory=memory, train_invalid=True)
        prompts += step_prompts(policy.tokenizer, turns, max_prompt_tokens)
    return prompts


def greedy_scores(responses: Sequence[str], states: Sequence) -> dict[str, float]:
    """Shares of `states` answered by `responses` (the model's own greedy replies, one per state): `greedy_action` — the
    reply's action (algo/actions.parse_action) is the demonstrator's correct one; `admissible` — it is one of the
    state's admissible commands; `valid` — the reply is a valid step (its format)."""
    from seed_trainer.algo.actions import parse_action

    if not states:
        return {"greedy_action": float("nan"), "admissible": float("nan"), "valid": float("nan")}
    parsed = [parse_action(text) for text in responses]
    right = sum(p.action == s.expert.action.strip().lower() for p, s in zip(parsed, states))
    admissible = sum(p.action in {a.lower() for a in s.observation.admissible_actions} for p, s in zip(parsed, states))
    n = len(states)
    return {"greedy_action": right / n, "admissible": admissible / n, "valid": sum(p.valid for p in parsed) / n}


def dev_accuracy(policy, states, max_length: int, prompts: Sequence[Sequence[int]] | None = None) -> dict[str, float]:
    """`greedy_scores` of the model's greedy replies and the `teacher_forced` next-action accuracy, over `states`. The
    greedy replies may run to twice the longest correct response: a longer one is wrong anyway."""
    tokenizer = policy.tokenizer
    longest = max((len(tokenizer.encode(s.expert.response, add_special_tokens=False)) for s in states), default=16)
    budget = 2 * longest + 1
    if prompts is None:
        prompts = [policy.encode_chat(s.prompt, max(1, max_length - budget)) for s in states]
    replies = policy.generate(list(prompts), budget, greedy=True, batch_size=32)
    scores = greedy_scores([reply.text for reply in replies], states)
    scores["teacher_forced"] = next_action_accuracy(policy, states, max_length, prompts=prompts)
    return scores


def next_action_accuracy(
    policy, states, max_length: int, micro_batch_size: int = 8, prompts: Sequence[Sequence[int]] | None = None
) -> float:
    """Teacher-forced next-action accuracy over `states`. Their prompts: `prompts` (one per state, e.g.
    `chat_dev_prompts`), else each state's step prompt left-truncated so that prompt and response fit `max_length`."""
    import torch

    from seed_trainer.algo.premise_stats import response_kinds
    from seed_trainer.compute.conversation import end_of_turn_id
    from seed_trainer.compute.response_scoring import pack, response_logits

    tokenizer = policy.tokenizer
    rows = []
    for index, state in enumerate(states):
        ids = tokenizer.encode(state.expert.response, add_special_tokens=False) + [end_of_turn_id(tokenizer)]
        kinds = response_kinds(lambda part: tokenizer.decode(part, skip_special_tokens=True), ids)
        action = [kind == "action" for kind in kinds]
        if any(action):
            prompt = (
                prompts[index]
                if prompts is not None
                else policy.encode_chat(state.prompt, max(1, max_length - len(ids)))
            )
            rows.append((list(prompt), ids, action))
    if not rows:
        return float("nan")
    correct = 0
    was_training = policy.model.training
    policy.model.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(rows), micro_batch_size):
                chunk = rows[start : start + micro_batch_size]
                batch = pack([p for p, _, _ in chunk], [r for _, r, _ in chunk], policy.pad_id, policy.device)
                with policy.autocast():
                    predicted = response_logits(policy.model, batch).argmax(-1)
                for j, (_prompt, ids, action) in enumerate(chunk):
                    hits = (predicted[j, : len(ids)] == batch.responses[j, : len(ids)]).tolist()
                    correct += all(hit for hit, wanted in zip(hits, action) if wanted)
    finally:
        policy.model.train(was_training)
    return correct / len(rows)
