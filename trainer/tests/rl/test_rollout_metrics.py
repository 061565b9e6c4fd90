"""rollout_metrics on hand-built episodes: success, lengths, and the admissible-action ratio."""

from __future__ import annotations

import pytest

from seed_trainer.envs.base import Task
from seed_trainer.rl.rollout import Episode, Step
from seed_trainer.stages.common import rollout_metrics


def _step(t: int, action: str, admissible: list[str], valid: bool = True) -> Step:
    return Step(
        t=t,
        observation="o",
        admissible_actions=admissible,
        prompt="p",
        prompt_ids=[1],
        response_ids=[2, 3],
        response="r",
        action=action,
        valid=valid,
        invalid_reason=None if valid else "no <action>",
        truncated=False,
    )


def _episode(steps: list[Step], won: bool, kind: str = "pick_and_place") -> Episode:
    return Episode(task=Task(id="t", type=kind, description="d", split="train"), group=0, index=0, steps=steps, won=won)


def test_admissible_ratio_counts_actions_inside_the_listed_actions():
    listed = ["go to cabinet 1", "look"]
    episodes = [
        _episode([_step(0, "go to cabinet 1", listed), _step(1, "go to cabinet 2", listed)], won=False),
        _episode([_step(0, "look", listed), _step(1, "look", listed), _step(2, "", listed, valid=False)], won=True),
    ]
    metrics = rollout_metrics(episodes)
    assert metrics["success/overall"] == 0.5
    assert metrics["episode/length"] == 2.5
    assert metrics["episode/valid_action_ratio"] == pytest.approx(4 / 5)
    # 3 of the 5 actions are in their step's list (the unparsed empty action is not)
    assert metrics["episode/admissible_action_ratio"] == pytest.approx(3 / 5)


def test_no_admissible_ratio_for_environments_without_a_list():
    metrics = rollout_metrics([_episode([_step(0, "search[shoes]", [])], won=False)])
    assert "episode/admissible_action_ratio" not in metrics
