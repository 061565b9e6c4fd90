"""The peer comparison's equal-batch check (bench/speed/peer_check.py, issue 53) with TRL 1.16 itself: on one batch
TRL's GRPOTrainer and our update compute the same loss and gradients once the settings are mapped, a mapped-away
difference (TRL's KL ratio correction) is one the check sees, and the comparison refuses unequal work by name.

Needs TRL: run in bench/.venv-peer (`bash bench/speed/peer_venv.sh`, then `npm run test:peer`). npm test deselects the
`peer` marker; a plain pytest run without TRL skips with that reason."""

from __future__ import annotations

import subprocess
import sys

import pytest
from testenv import BENCH, subprocess_env

from seed_trainer.models.builtin import builtin_dir

pytestmark = pytest.mark.peer
SPEED = BENCH / "speed"
NO_TRL = "TRL is not importable here: the peer check runs in bench/.venv-peer (bash bench/speed/peer_venv.sh; npm run test:peer)"


@pytest.fixture(scope="module")
def check():
    pytest.importorskip("trl", reason=NO_TRL)
    sys.path.insert(0, str(SPEED))
    from peer_check import equal_batch_check
    from peer_settings import PeerSettings

    # the shipped tiny policy: TRL and ours load it from the same folder
    # (moved 0.05 of each weight's std off the reference: the tiny policy needs more than SmolLM2 to pass the clip)
    settings = PeerSettings(prompts=2, group=4, max_new_tokens=12)
    return equal_batch_check(str(builtin_dir("household-tiny")), settings, perturbation=0.05)


def test_trl_and_our_grpo_give_the_same_loss_and_gradients_on_one_batch(check):
    print({k: check[k] for k in ("checks", "tolerance")})
    for name in ("on_policy", "off_policy"):
        print(
            name,
            check[name]["loss_abs_diff"],
            {k: v for k, v in check[name]["gradients"].items() if k != "per_parameter"},
        )
    assert check["passed"], check["checks"]
    assert check["on_policy"]["loss_abs_diff"] <= 1e-5
    assert check["on_policy"]["gradients"]["max_relative"] <= 1e-4
    assert check["on_policy"]["gradients"]["parameters"] == 46  # every tensor of the tiny policy (tied output layer)
    assert check["off_policy"]["clip_frac"] > 0  # π_old = the reference: the clip acts, on both sides alike
    assert check["kl_clamp"]["tokens_clamped"] == 0 and check["kl_clamp"]["loss_taken_by_clamp"] == 0.0
    assert check["off_policy"]["gradients"]["max_relative"] <= 1e-4
    # the batch has something to normalise: each group's first completion is right, so rewards are not all equal
    rewards = check["batch"]["rewards"]
    assert rewards[0] == rewards[4] == 1.0 and 0.0 in rewards[1:4]


def test_the_advantages_differ_only_by_the_two_epsilons(check):
    # a group of 4 with one success: mean 0.25, unbiased std 0.5, so A = 0.75 / (0.5 + eps) and −0.25 / (0.5 + eps)
    advantages = check["advantages"]
    ours, trl = advantages["ours"], advantages["trl"]
    if check["batch"]["rewards"][:4] == [1.0, 0.0, 0.0, 0.0]:
        assert ours[0] == pytest.approx(0.75 / (0.5 + 1e-6), rel=1e-6)
        assert trl[0] == pytest.approx(0.75 / (0.5 + 1e-4), rel=1e-6)
    assert 0 < advantages["max_abs_diff"] <= advantages["predicted_bound"] * 1.01


def test_the_check_sees_trl_s_default_kl_ratio_correction(check):
    # the KL term is live (the policy was moved off the reference); the correction's k3·∇log π is far above rounding
    corrected = check["trl_default_kl_ratio_correction"]["gradients_against_ours"]
    assert corrected["max_relative"] > 10 * check["tolerance"]["gradient_relative"]


@pytest.mark.parametrize(
    ("flag", "change", "named"),
    [("--trl-set", "loss_type=grpo", "loss_aggregation"), ("--ours-set", "rl.dual_clip=3", "dual_clip")],
)
def test_the_comparison_refuses_unequal_work_by_name(tmp_path, flag, change, named):
    pytest.importorskip("trl", reason=NO_TRL)
    out = tmp_path / "peer.json"
    command = [sys.executable, str(SPEED / "peer_trl.py"), "--check-only", "--model", "builtin:household-tiny"]
    done = subprocess.run(
        [*command, flag, change, "--out", str(out)], capture_output=True, text=True, env=subprocess_env(), timeout=300
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"  {named}: ours" in done.stderr
    assert not out.exists()
