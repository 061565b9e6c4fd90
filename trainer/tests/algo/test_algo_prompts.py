"""The per-step policy prompt h_t in the verl-agent ALFWorld structure."""

from seed_trainer.algo.actions import parse_action
from seed_trainer.algo.prompts import (
    TURN_INSTRUCTIONS,
    build_step_prompt,
    format_history,
)

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
