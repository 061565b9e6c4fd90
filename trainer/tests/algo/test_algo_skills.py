"""Skill insertion H(h, s) (DESIGN §2 step 4) and the analysis prompt (DESIGN §2 Stage 1)."""

from seed_trainer.algo.prompts import build_step_prompt
from seed_trainer.algo.skills import (
    SKILL_HEADER,
    SKILL_INSTRUCTION,
    AnalysisStep,
    build_analysis_prompt,
    insert_skill,
    outcome_label,
    skill_block,
)

SKILL = "Clean the mug at the sinkbasin before putting it in the coffeemachine."
BLOCK = f"{SKILL_HEADER}\n{SKILL_INSTRUCTION}\n[{SKILL}]"


def test_skill_block_layout():
    assert skill_block(f"  {SKILL}\n") == BLOCK
    assert BLOCK.startswith("**Episode-Level Skill**\n")


def test_inserted_right_after_the_task_line():
    prompt = (
        "You are an agent. Your task is to: put a clean mug in coffeemachine.\nObservation: a room.\n\n"
        "Now it's your turn."
    )
    assert insert_skill(prompt, SKILL) == (
        "You are an agent. Your task is to: put a clean mug in coffeemachine.\n\n"
        f"{BLOCK}\n\n"
        "Observation: a room.\n\nNow it's your turn."
    )


def test_only_the_first_task_line_counts():
    # A history observation may repeat the task line (ALFWorld's first observation contains it).
    prompt = (
        "Your task is to: heat an egg.\n"
        "[Observation 1: 'Your task is to: heat an egg.', Action 1: 'look']\n"
        "Now it's your turn."
    )
    out = insert_skill(prompt, SKILL)
    assert out.index(SKILL_HEADER) == len("Your task is to: heat an egg.\n\n")
    assert out.count(SKILL_HEADER) == 1


def test_without_task_line_inserted_before_the_turn_sentence():
    prompt = "Observation: a room.\nNow it's your turn to take an action."
    assert insert_skill(prompt, SKILL) == f"Observation: a room.\n\n{BLOCK}\n\nNow it's your turn to take an action."


def test_without_either_marker_appended():
    assert insert_skill("Observation: a room.\n", SKILL) == f"Observation: a room.\n\n{BLOCK}"


def test_task_line_at_the_very_end():
    assert insert_skill("Your task is to: cool a pan.", SKILL) == f"Your task is to: cool a pan.\n\n{BLOCK}"


def test_empty_skill_leaves_the_prompt_unchanged():
    prompt = "Your task is to: cool a pan.\nNow it's your turn."
    assert insert_skill(prompt, "") == prompt
    assert insert_skill(prompt, "  \n ") == prompt


def test_teacher_prompt_differs_from_the_step_prompt_only_by_the_block():
    prompt = build_step_prompt(
        task="put a clean mug in coffeemachine 1.",
        observation="You arrive at sinkbasin 1. On the sinkbasin 1, you see a mug 1.",
        admissible_actions=["take mug 1 from sinkbasin 1", "go to coffeemachine 1"],
        history=[("You are in the middle of a room.", "go to sinkbasin 1")],
    )
    teacher = insert_skill(prompt, SKILL)
    task_line_end = prompt.index("\n", prompt.index("Your task is to:")) + 1
    assert teacher == prompt[:task_line_end] + "\n" + BLOCK + "\n\n" + prompt[task_line_end:]


def test_outcome_label_is_success_iff_reward_at_least_one():
    assert outcome_label(1.0) == "success"
    assert outcome_label(1.5) == "success"
    assert outcome_label(0.999) == "failure"
    assert outcome_label(0.0) == "failure"


STEPS = [
    AnalysisStep(
        "You are in the middle of a room.", "<think>find a mug</think><action>go to sinkbasin 1</action>", True
    ),
    AnalysisStep("You arrive at sinkbasin 1.", "I should take it", False),
]


def test_analysis_prompt_holds_every_step_and_the_outcome():
    prompt = build_analysis_prompt("put a clean mug in coffeemachine 1.", 0.0, STEPS)
    assert "Task: put a clean mug in coffeemachine 1.\nOutcome: failure\n" in prompt
    assert (
        "Step 0\nObservation: You are in the middle of a room.\n"
        "Response: <think>find a mug</think><action>go to sinkbasin 1</action>\nAction valid: true\n\n"
        "Step 1\nObservation: You arrive at sinkbasin 1.\nResponse: I should take it\nAction valid: false"
    ) in prompt
    assert '"episode_summary"' in prompt and '"episode_skill"' in prompt
    assert "mistake" in prompt and "workflow" not in prompt


def test_analysis_prompt_asks_for_a_workflow_on_success():
    prompt = build_analysis_prompt("heat an egg.", 1.0, STEPS[:1])
    assert "Outcome: success" in prompt
    assert "workflow" in prompt and "mistake" not in prompt
    assert prompt.rstrip().endswith('{"episode_summary": "...", "episode_skill": "..."}')


def test_analysis_prompt_with_no_steps_or_task():
    prompt = build_analysis_prompt("", 0.0, [])
    assert "Task: (not given)" in prompt and "(no steps)" in prompt
