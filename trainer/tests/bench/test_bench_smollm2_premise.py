"""bench/learning/smollm2_premise.py's bookkeeping: the placebo partner of each task and the paired contrasts of the
summary, against outcomes worked by hand."""

from __future__ import annotations

import pytest
from testenv import bench_module


@pytest.fixture(scope="module")
def premise():
    return bench_module("smollm2_premise")


def test_the_placebo_is_the_next_task_with_the_same_outcome(premise):
    skills = {"a": "skill of a", "b": "skill of b", "c": "skill of c", "d": "skill of d"}
    outcomes = {"a": True, "b": False, "c": True, "d": False}
    assert premise.placebo_skills(skills, outcomes) == {
        "a": "skill of c",
        "b": "skill of d",
        "c": "skill of a",  # cyclically
        "d": "skill of b",
    }
    # a task alone with its outcome has no placebo
    assert premise.placebo_skills({"a": "x", "b": "y"}, {"a": True, "b": False}) == {}


def test_the_summary_pairs_each_condition_task_by_task(premise):
    def record(index, plain, oracle, own, placebo):
        return {
            "index": index,
            "task": f"t{index}",
            "type": "pick",
            "plain": plain,
            "oracle": oracle,
            "own": own,
            "placebo": placebo,
            "plain_valid": 1.0,
            "own_skill_valid": own is not None,
            "oracle_skill": "",
            "own_skill": None,
            "actions": {},
        }

    records = [
        record(0, False, True, True, False),
        record(1, False, True, None, True),
        record(2, True, True, False, None),  # no placebo partner: left out of the placebo contrasts
        record(3, False, False, False, False),
    ]
    report = premise.summary(records, {}, 1.0)
    assert report["placebo"] == {"success": 1 / 3, "tasks": 3}
    # oracle - placebo over tasks 0, 1, 3: +1, 0, 0
    assert report["oracle_minus_placebo"]["d"] == pytest.approx(1 / 3) and report["oracle_minus_placebo"]["tasks"] == 3
    # own - placebo over tasks 0 and 3 (task 1 wrote no skill, task 2 has no placebo): +1, 0
    assert report["own_minus_placebo"]["d"] == pytest.approx(0.5) and report["own_minus_placebo"]["tasks"] == 2
    # placebo - plain: 0, +1, 0; its 95 % t-interval with 2 degrees of freedom: 1/3 ± 4.30 · (1/sqrt(3)) / sqrt(3)
    contrast = report["placebo_minus_plain"]
    assert contrast["d"] == pytest.approx(1 / 3) and contrast["hi"] - contrast["d"] == pytest.approx(4.30 / 3)


def test_the_skilled_prompt_keeps_the_memory_line(premise):
    import inspect

    from seed_trainer.algo.prompts import build_step_prompt
    from seed_trainer.algo.skills import insert_skill

    step = dict(
        task="put a mug in fridge.",
        observation="You arrive at cabinet 1.",
        admissible_actions=["go to fridge 1"],
        history=[("You are in the middle of a room.", "go to cabinet 1")],
        history_length=2,
    )
    skilled = premise.SkilledTasks(None, {"put a mug in fridge.": "Check the cabinets first."})
    # the rollout passes `memory` only to a builder that names it (rl/rollout._takes_memory)
    assert "memory" in inspect.signature(skilled.step_prompt).parameters
    for memory in (False, True):
        expected = insert_skill(build_step_prompt(memory=memory, **step), "Check the cabinets first.")
        assert skilled.step_prompt(memory=memory, **step) == expected
    assert skilled.step_prompt(memory=True, **step) != skilled.step_prompt(**step)
