"""Step scores and GRPO advantages (DESIGN §2 step 2), checked against numbers worked out by hand."""

import math

import pytest
import torch

from seed_trainer.algo.advantages import (
    group_mean_std,
    grpo_advantages,
    mean_norm,
    mean_std_norm,
    step_scores,
)

# One task group "q1": trajectory "a" succeeded in 2 steps; trajectory "b" failed in 3 steps and its step 1 had no
# well-formed action.
SUCCESS = [1, 1, 0, 0, 0]
INVALID = [False, False, False, True, False]
GROUPS = ["q1"] * 5
TRAJS = ["a", "a", "b", "b", "b"]


def test_step_scores():
    # 10·success − 0.1·invalid: a = [10, 10], b = [0, −0.1, 0]
    assert step_scores(SUCCESS, INVALID).tolist() == pytest.approx([10.0, 10.0, 0.0, -0.1, 0.0])
    assert step_scores([1.0], [True], reward_scale=1.0, invalid_penalty=0.5).tolist() == pytest.approx([0.5])


def test_step_stats_mean_std_norm():
    # scores [10, 10, 0, −0.1, 0]; mean = 19.9 / 5 = 3.98
    # deviations 6.02, 6.02, −3.98, −4.08, −3.98; squares 36.2404 + 36.2404 + 15.8404 + 16.6464 + 15.8404 = 120.808
    # unbiased var = 120.808 / 4 = 30.202, std = 5.495635
    # A = 6.02 / 5.495635 = 1.095420; −3.98 / 5.495635 = −0.724210; −4.08 / 5.495635 = −0.742406
    adv = grpo_advantages(step_scores(SUCCESS, INVALID), GROUPS, TRAJS)
    assert adv.tolist() == pytest.approx([1.095420, 1.095420, -0.724210, -0.742406, -0.724210], abs=1e-5)


def test_step_stats_mean_norm():
    # score − 3.98
    adv = grpo_advantages(step_scores(SUCCESS, INVALID), GROUPS, TRAJS, mode="mean_norm")
    assert adv.tolist() == pytest.approx([6.02, 6.02, -3.98, -4.08, -3.98], abs=1e-5)


def test_trajectory_stats():
    # one statistic sample per trajectory (its first step): a → 10, b → 0; mean 5, unbiased std sqrt(50) = 7.071068
    # each step normalised with its own score: 5/7.071068 = 0.707107, −5/7.071068 = −0.707107,
    # the invalid step (−0.1 − 5)/7.071068 = −0.721249
    adv = grpo_advantages(step_scores(SUCCESS, INVALID), GROUPS, TRAJS, stats="trajectories")
    assert adv.tolist() == pytest.approx([0.707107, 0.707107, -0.707107, -0.721249, -0.707107], abs=1e-5)


def test_std_is_unbiased_as_in_the_reference():
    # [0, 10]: mean 5; unbiased std = sqrt((25 + 25) / 1) = 7.071068 → A = ±0.707107 (population std 5 would give ±1)
    mean, std = group_mean_std(torch.tensor([0.0, 10.0]))
    assert float(mean) == 5.0
    assert float(std) == pytest.approx(math.sqrt(50))
    adv = grpo_advantages([0.0, 10.0], ["g", "g"], [0, 1])
    assert adv.tolist() == pytest.approx([-0.707107, 0.707107], abs=1e-5)


def test_group_of_one_uses_mean_zero_std_one():
    # A lone sample: mean 0, std 1 → A = 10 / (1 + 1e-6) = 9.99999 (mean_std_norm) and 10 (mean_norm)
    assert grpo_advantages([10.0], ["g"], [0]).tolist() == pytest.approx([10.0 / (1 + 1e-6)])
    assert grpo_advantages([10.0], ["g"], [0], mode="mean_norm").tolist() == pytest.approx([10.0])
    # With trajectory statistics, a group with one trajectory of three steps is also a group of one.
    adv = grpo_advantages([10.0, 9.9, 10.0], ["g"] * 3, ["t"] * 3, stats="trajectories", mode="mean_norm")
    assert adv.tolist() == pytest.approx([10.0, 9.9, 10.0])


def test_identical_scores_give_zero_advantage():
    # std 0: (10 − 10) / (0 + 1e-6) = 0
    assert grpo_advantages([10.0, 10.0, 10.0], ["g"] * 3, [0, 1, 2]).tolist() == [0.0, 0.0, 0.0]


def test_groups_are_independent_and_trajectory_ids_are_per_group():
    # group x: [1, 3] → mean 2, std sqrt(2) = 1.414214 → ∓0.707107; group y: [5, 5, 8] → mean 6,
    # unbiased std sqrt((1 + 1 + 4) / 2) = sqrt(3) = 1.732051 → −0.577350, −0.577350, 1.154701.
    # Trajectory id 0 appears in both groups; with trajectory statistics x has trajectories {0, 1} and y {0, 1}.
    scores = [1.0, 5.0, 3.0, 5.0, 8.0]
    groups = ["x", "y", "x", "y", "y"]
    trajs = [0, 0, 1, 0, 1]
    adv = grpo_advantages(scores, groups, trajs)
    assert adv.tolist() == pytest.approx([-0.707107, -0.577350, 0.707107, -0.577350, 1.154701], abs=1e-5)
    # trajectory stats for y: first steps of trajectories 0 and 1 are 5 and 8 → mean 6.5, std sqrt(4.5) = 2.121320
    # (5 − 6.5)/2.121320 = −0.707107, (8 − 6.5)/2.121320 = 0.707107; x is unchanged (one step per trajectory)
    adv = grpo_advantages(scores, groups, trajs, stats="trajectories")
    assert adv.tolist() == pytest.approx([-0.707107, -0.707107, 0.707107, -0.707107, 0.707107], abs=1e-5)


def test_norm_helpers():
    scores = torch.tensor([1.0, 3.0])
    assert mean_std_norm(scores, torch.tensor(2.0), torch.tensor(2.0)).tolist() == pytest.approx([-0.5, 0.5], abs=1e-6)
    assert mean_norm(scores, torch.tensor(2.0)).tolist() == [-1.0, 1.0]


def test_mismatched_inputs_are_rejected():
    with pytest.raises(ValueError):
        grpo_advantages([1.0, 2.0], ["g"], [0, 1])
    with pytest.raises(ValueError):
        grpo_advantages([1.0], ["g"], [0], mode="zscore")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        step_scores([1, 0], [False])
