"""Step scores and GRPO group-relative advantages (DESIGN §2 step 2).

Every environment step is one training sample. A step's score is the episode reward written on every step of the
episode, minus that step's invalid-action penalty. The group is the N rollouts of one task; its mean and std are taken
over all the group's step samples (as verl-agent / SEED's `compute_grpo_outcome_advantage` with
`compute_mean_std_cross_steps=True`) or over one score per trajectory.

Conventions matched to that reference code:
- std is the unbiased sample std (`torch.std`'s default, Bessel's correction), not the population std its write-up
  shows; with N = 8 equal-length trajectories the two differ by a factor sqrt(8/7) ≈ 1.07;
- a group with a single statistic sample gets mean 0 and std 1, so its advantage is its raw score (REINFORCE without
  a baseline) instead of a division by an undefined std;
- in `trajectories` mode the statistic sample of a trajectory is its first step's score, and each step is then
  normalised with its own score: identical to broadcasting one trajectory advantage to all its steps whenever the
  trajectory has no invalid steps, while an invalid step still carries its own penalty.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal

import torch

AdvantageMode = Literal["mean_std_norm", "mean_norm"]
AdvantageStats = Literal["steps", "trajectories"]

EPS = 1e-6


def step_scores(
    success: Sequence[float] | torch.Tensor,
    invalid: Sequence[bool] | torch.Tensor,
    *,
    reward_scale: float = 10.0,
    invalid_penalty: float = 0.1,
) -> torch.Tensor:
    """Per step: reward_scale · success(episode) − invalid_penalty · [step invalid]; both inputs are per step."""
    success_t = torch.as_tensor(success, dtype=torch.float32)
    invalid_t = torch.as_tensor(invalid, dtype=torch.float32)
    if success_t.shape != invalid_t.shape or success_t.dim() != 1:
        raise ValueError(
            f"success and invalid must be 1-D and equal length, got {success_t.shape} and {invalid_t.shape}"
        )
    return reward_scale * success_t - invalid_penalty * invalid_t


def group_mean_std(values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and unbiased std of one group's statistic samples; (0, 1) for a group of one."""
    if values.numel() == 0:
        raise ValueError("a group needs at least one score")
    if values.numel() == 1:
        return values.new_tensor(0.0), values.new_tensor(1.0)
    return values.mean(), values.std()  # torch.std: unbiased, as the reference


def mean_std_norm(scores: torch.Tensor, mean: torch.Tensor, std: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """(score − mean) / (std + eps): the original GRPO advantage."""
    return (scores - mean) / (std + eps)


def mean_norm(scores: torch.Tensor, mean: torch.Tensor) -> torch.Tensor:
    """score − mean: no std scaling (Dr. GRPO style)."""
    return scores - mean


def grpo_advantages(
    scores: Sequence[float] | torch.Tensor,
    group_ids: Sequence[Hashable],
    traj_ids: Sequence[Hashable],
    *,
    mode: AdvantageMode = "mean_std_norm",
    stats: AdvantageStats = "steps",
    eps: float = EPS,
) -> torch.Tensor:
    """One advantage per step sample, normalised within the sample's group (the N rollouts of one task).

    `group_ids[i]` names the task group of sample i and `traj_ids[i]` its trajectory (a trajectory is the pair
    (group id, trajectory id), so trajectory ids may repeat across groups).
    """
    scores_t = torch.as_tensor(scores, dtype=torch.float32) if not torch.is_tensor(scores) else scores.detach()
    n = scores_t.shape[0] if scores_t.dim() == 1 else -1
    if n != len(group_ids) or n != len(traj_ids):
        raise ValueError(
            f"scores (shape {tuple(scores_t.shape)}), group_ids ({len(group_ids)}) and traj_ids ({len(traj_ids)}) "
            "must describe the same 1-D list of step samples"
        )
    if mode not in ("mean_std_norm", "mean_norm"):
        raise ValueError(f"unknown advantage mode {mode!r}")
    if stats not in ("steps", "trajectories"):
        raise ValueError(f"unknown advantage stats {stats!r}")

    members: dict[Hashable, list[int]] = {}
    stat_members: dict[Hashable, list[int]] = {}
    seen_traj: set[tuple[Hashable, Hashable]] = set()
    for i, (group, traj) in enumerate(zip(group_ids, traj_ids, strict=True)):
        members.setdefault(group, []).append(i)
        if stats == "steps" or (group, traj) not in seen_traj:
            stat_members.setdefault(group, []).append(i)
            seen_traj.add((group, traj))

    advantages = torch.empty_like(scores_t)
    for group, idx in members.items():
        mean, std = group_mean_std(scores_t[stat_members[group]])
        group_scores = scores_t[idx]
        if mode == "mean_std_norm":
            advantages[idx] = mean_std_norm(group_scores, mean, std, eps)
        else:
            advantages[idx] = mean_norm(group_scores, mean)
    return advantages
