"""The per-step policy prompt h_t in the verl-agent ALFWorld structure."""

import hashlib
import random

from seed_trainer.algo.actions import parse_action
from seed_trainer.algo.prompts import (
    TURN_INSTRUCTIONS,
    build_step_prompt,
    format_history,
    places_memory,
)
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.household.demonstrator import Demonstrator

TASK = "put a clean mug in coffeemachine 1."
HISTORY = [
    ("You are in the middle of a room.", "go to sinkbasin 1"),
    ("You arrive at sinkbasin 1. You see a mug 1.", "take mug 1 from sinkbasin 1"),
    ("You pick up the mug 1 from the sinkbasin 1.", "clean mug 1 with sinkbasin 1"),
]


def test_step_zero_prompt():
    prompt = build_step_prompt(
        task=TASK, observation="You are in the middle of a room.", admissible_actions=["go to sinkbasin 1", "look"]
    )
    assert prompt == (
        "You are an expert agent acting in a text-based household environment.\n"
        "Your task is to: put a clean mug in coffeemachine 1.\n"
        "Your current observation is: You are in the middle of a room.\n"
        "Your admissible actions for the current situation are: ['go to sinkbasin 1', 'look'].\n\n" + TURN_INSTRUCTIONS
    )


def test_history_window_keeps_the_last_h_pairs_with_their_step_numbers():
    prompt = build_step_prompt(
        task=TASK,
        observation="You clean the mug 1.",
        admissible_actions=["go to coffeemachine 1"],
        history=HISTORY,
        history_length=2,
    )
    # 3 steps taken, window of 2 → steps 2 and 3 shown; we are at step 4
    assert (
        "Before this step you have taken 3 step(s). Your last 2 observation(s) and the action you took after each:\n"
        "[Observation 2: 'You arrive at sinkbasin 1. You see a mug 1.', Action 2: 'take mug 1 from sinkbasin 1']\n"
        "[Observation 3: 'You pick up the mug 1 from the sinkbasin 1.', Action 3: 'clean mug 1 with sinkbasin 1']\n"
        "You are now at step 4. Your current observation is: You clean the mug 1.\n"
    ) in prompt
    assert "Observation 1:" not in prompt


def test_window_larger_than_the_history_shows_everything():
    prompt = build_step_prompt(task=TASK, observation="o", admissible_actions=[], history=HISTORY[:1], history_length=5)
    assert "Your last 1 observation(s)" in prompt and "[Observation 1: 'You are in the middle of a room.'" in prompt


def test_history_length_zero_keeps_the_step_count_only():
    prompt = build_step_prompt(
        task=TASK, observation="o", admissible_actions=["look"], history=HISTORY, history_length=0
    )
    assert "Before this step you have taken 3 step(s).\nYou are now at step 4." in prompt
    assert "[Observation" not in prompt
    assert format_history(HISTORY, 0) == ""


def test_format_instructions_close_the_prompt():
    prompt = build_step_prompt(task=TASK, observation="o", admissible_actions=["look"], history=HISTORY)
    last_paragraph = prompt.split("\n\n")[-1]
    assert last_paragraph.startswith("Now it's your turn")
    assert "<think> </think>" in last_paragraph and "<action> </action>" in last_paragraph


def test_empty_task_and_admissible_lines_are_omitted():
    prompt = build_step_prompt(task=" ", observation="o", admissible_actions=[])
    assert "Your task is to:" not in prompt and "admissible" not in prompt.split("\n\n")[0]


def test_a_response_that_follows_the_instructions_is_a_valid_step():
    response = "<think>The mug is clean; bring it to the coffeemachine.</think> <action>go to coffeemachine 1</action>"
    assert parse_action(response) == ("go to coffeemachine 1", True)


# The memory line (`rollout.memory`, opt-in): places gone to or opened, first-visit order, the last listing of each.
MEMORY_HISTORY = [
    (
        "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, and a fridge 1.",
        "go to fridge 1",
    ),
    ("You arrive at fridge 1. The fridge 1 is closed.", "go to cabinet 1"),
    ("You arrive at cabinet 1. On the cabinet 1, you see a mug 1, and an egg 2.", "take mug 1 from cabinet 1"),
    ("You pick up the mug 1 from the cabinet 1.", "go to drawer 9"),
    ("Nothing happens.", "go to fridge 1"),
    ("You arrive at fridge 1. The fridge 1 is closed.", "open fridge 1"),
]


def test_memory_line_lists_each_place_once_with_what_was_seen_there_last():
    line = places_memory(MEMORY_HISTORY, "You open the fridge 1. The fridge 1 is open. In it, you see nothing.")
    # fridge 1 first (closed, then opened: its last listing wins), cabinet 1 as listed; drawer 9 was refused
    assert line == "Places you have searched so far and what you saw there: fridge 1: nothing; cabinet 1: mug 1, egg 2."
    assert places_memory(MEMORY_HISTORY[:1], "You arrive at fridge 1. The fridge 1 is closed.") == (
        "Places you have searched so far and what you saw there: fridge 1: closed."
    )
    assert places_memory([], "You are in the middle of a room.") == ""
    assert places_memory([("o", "look")], "You are facing nothing.") == ""


def test_memory_line_sits_before_the_current_observation_and_reads_beyond_the_window():
    observation = "You open the fridge 1. The fridge 1 is open. In it, you see a apple 1."
    prompt = build_step_prompt(
        task=TASK, observation=observation, admissible_actions=[], history=MEMORY_HISTORY, history_length=1, memory=True
    )
    assert (
        "Action 6: 'open fridge 1']\n"
        "Places you have searched so far and what you saw there: fridge 1: apple 1; cabinet 1: mug 1, egg 2.\n"
        "You are now at step 7." in prompt
    )
    assert "Observation 3:" not in prompt  # the window shows one pair; the memory still has cabinet 1
    plain = build_step_prompt(task=TASK, observation=observation, admissible_actions=[], history=MEMORY_HISTORY)
    assert "Places you have" not in plain and plain == build_step_prompt(
        task=TASK, observation=observation, admissible_actions=[], history=MEMORY_HISTORY, memory=False
    )


def _demonstrated_household_prompts(**options) -> list[str]:
    source = HouseholdTasks(max_steps=20)
    prompts = []
    for spec in source.sample("valid_seen", 6, seed=0):
        env = source.make(spec)
        task, observation = env.reset()
        agent, past = Demonstrator(env, random.Random(0)), []
        for _ in range(env.max_steps):
            decision = agent.decide()
            prompts.append(
                build_step_prompt(
                    task=task.description,
                    observation=observation.text,
                    admissible_actions=observation.admissible_actions,
                    history=list(past),
                    history_length=3,
                    **options,
                )
            )
            result = env.step(decision.action)
            agent.after(decision, result.observation.text)
            past.append((observation.text, decision.action))
            observation = result.observation
            if result.done:
                break
    return prompts


def test_default_household_prompt_is_unchanged_byte_for_byte():
    """The tiny policy and the science benchmarks were trained and measured on these prompts: 59 prompts of six
    demonstrated valid_seen episodes hash as they did before `memory` existed (computed at e01fde2)."""
    prompts = _demonstrated_household_prompts()
    assert len(prompts) == 59
    digest = hashlib.sha256("\x00".join(prompts).encode()).hexdigest()
    assert digest == "8c3e70d49ecdf976a106c0845b061b1688c7923e94c15061c6923a53843e2f0b"
    with_memory = _demonstrated_household_prompts(memory=True)
    assert sum("Places you have searched" in p for p in with_memory) > 30  # the check can see a change
