"""bench/learning/failure_modes.py: the target comes from the environment's own instance, and failed episodes are told apart
by where the policy put things."""

from __future__ import annotations

import json

import pytest
from testenv import bench_module

from seed_trainer.envs.household import HouseholdTasks, world


@pytest.fixture(scope="module")
def failure_modes():
    return bench_module("failure_modes")


def _episode(instance, puts: list[tuple[str, bool]], success: bool) -> dict:
    """An episode whose steps put the goal object at the given receptacles (valid or not: "Nothing happens.")."""
    obj = f"{instance.obj} 1"
    steps = [{"observation": "You are in the middle of a room.", "action": f"take {obj} from shelf 1"}]
    results = [f"You pick up the {obj} from the shelf 1."]
    for place, valid in puts:
        steps.append({"observation": results[-1], "action": f"put {obj} in/on {place}"})
        results.append(f"You put the {obj} in/on the {place}." if valid else "Nothing happens.")
    return {"task": {"id": instance.task_id}, "success": success, "steps": steps, "final_observation": results[-1]}


def test_placements_are_classified_against_the_environments_target(failure_modes, tmp_path):
    spec = HouseholdTasks().sample("dev", 1, seed=3, task_types=["pick_and_place"])[0]
    instance = spec.instance
    wrong = next(t for t in ("cabinet", "shelf", "drawer", "sofa") if t != instance.target)
    assert failure_modes.target_of(instance.task_id) == ("pick_and_place", instance.target)
    look = HouseholdTasks().sample("dev", 1, seed=3, task_types=["look_at_obj_in_light"])[0].instance
    assert failure_modes.target_of(look.task_id) is None  # no receptacle to aim for
    episodes = [
        _episode(instance, [(f"{instance.target} 1", True)], success=True),
        _episode(instance, [(f"{wrong} 2", True), (f"{instance.target} 1", True)], success=False),
        _episode(instance, [(f"{instance.target} 1", False)], success=False),  # invalid put: nothing placed
        _episode(look, [(f"{wrong} 1", True)], success=False),  # not a placing task: left out
    ]
    file = tmp_path / "eval-dev.jsonl"
    file.write_text("".join(json.dumps(e) + "\n" for e in episodes), encoding="utf-8")
    report = failure_modes.summarise([str(file)])
    assert report["episodes"] == 3 and report["success"] == pytest.approx(1 / 3, abs=1e-4)
    assert report["failed episodes"] == {
        "failed, placed in a wrong receptacle type": 1,
        "failed, never placed": 1,
        "failed, placed only in the target type": 0,
    }
    assert report["first placement in the target type (of episodes that placed)"] == 0.5
    assert report["wrong receptacle type, share of failures"] == 0.5
    assert world.receptacle_type(f"{wrong} 2") == wrong
