"""The Stage-2 loss terms (DESIGN §2 step 5), against numbers and gradients worked out by hand."""

import math

import pytest
import torch

from seed_trainer.algo.losses import (
    k3_kl,
    masked_mean,
    opd_gate,
    opd_loss,
    ppo_clip_loss,
    seed_loss,
)

LN2 = math.log(2.0)


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def test_masked_mean_is_a_token_mean():
    values = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    # (1 + 2 + 4) / 3 tokens
    assert float(masked_mean(values, mask)) == pytest.approx(7.0 / 3.0)
    assert float(masked_mean(values, torch.zeros_like(mask))) == 0.0


# Six tokens of one sample (old log-prob 0, so ρ = exp(logp)); per token: A, ρ → loss
#   1: A=+1, ρ=1.5: max(−1.5, −1.2) = −1.2   ε-clip active
#   2: A=+1, ρ=0.5: max(−0.5, −0.8) = −0.5
#   3: A=−1, ρ=0.5: max( 0.5,  0.8) =  0.8   ε-clip active; dual bound 3 not reached
#   4: A=−1, ρ=5  : max( 5.0,  1.2) =  5.0 → min(5.0, 3·1) = 3.0   dual clip active
#   5: A=+2, ρ=5  : max(−10,  −2.4) = −2.4   ε-clip active; no dual clip for A > 0 (it would give −6)
#   6: A=−1, ρ=1  : 1.0
# token-mean = (−1.2 − 0.5 + 0.8 + 3.0 − 2.4 + 1.0) / 6 = 0.7 / 6 = 0.116667
ADV = torch.tensor([[1.0, 1.0, -1.0, -1.0, 2.0, -1.0]])
RATIO = torch.tensor([[1.5, 0.5, 0.5, 5.0, 5.0, 1.0]])


def test_ppo_clip_loss_and_dual_clip():
    logp = torch.log(RATIO).requires_grad_()
    out = ppo_clip_loss(logp, torch.zeros_like(logp), ADV, torch.ones_like(ADV))
    assert out.loss.item() == pytest.approx(0.7 / 6, abs=1e-6)
    assert float(out.clip_frac) == pytest.approx(3 / 6)  # tokens 1, 3, 5
    assert float(out.clip_frac_lower) == pytest.approx(1 / 6)  # token 4
    # approx_kl = mean(old − logp) = −(ln1.5 + 2·ln0.5 + 2·ln5 + 0) / 6 = −(0.405465 − 1.386294 + 3.218876) / 6
    assert float(out.approx_kl) == pytest.approx(-0.373008, abs=1e-6)

    out.loss.backward()
    # d(−A·ρ)/dlogp = −A·ρ where the unclipped term is chosen, 0 where a clip (ε or dual) holds; then / 6 tokens:
    #   token 2: −1·0.5/6 = −0.083333; token 6: +1·1/6 = 0.166667; tokens 1, 3, 4, 5: 0 (clipped)
    assert logp.grad.tolist()[0] == pytest.approx([0.0, -0.5 / 6, 0.0, 0.0, 0.0, 1.0 / 6], abs=1e-6)


def test_dual_clip_bounds_the_loss_of_negative_advantages():
    # A = −2 and ratios growing without limit: the loss stops at c·|A| = 3·2 = 6 (from ρ = 3 on).
    ratio = torch.tensor([[1.0, 2.0, 3.0, 10.0, 1e6]])
    adv = torch.full_like(ratio, -2.0)
    losses = [
        ppo_clip_loss(torch.log(ratio[:, i : i + 1]), torch.zeros(1, 1), adv[:, :1], torch.ones(1, 1)).loss.item()
        for i in range(ratio.shape[1])
    ]
    # ρ=1: 2; ρ=2: 4; ρ=3: 6; beyond: 6
    assert losses == pytest.approx([2.0, 4.0, 6.0, 6.0, 6.0])


def test_mask_excludes_padding_from_the_surrogate():
    logp = torch.log(RATIO)
    mask = torch.tensor([[1, 1, 0, 0, 0, 0]])
    # only tokens 1 and 2: (−1.2 − 0.5) / 2 = −0.85
    assert ppo_clip_loss(logp, torch.zeros_like(logp), ADV, mask).loss.item() == pytest.approx(-0.85)


def test_dual_clip_must_exceed_one():
    with pytest.raises(ValueError):
        ppo_clip_loss(torch.zeros(1, 1), torch.zeros(1, 1), torch.ones(1, 1), torch.ones(1, 1), dual_clip=1.0)


def test_k3_kl():
    logp = torch.zeros(5)
    ref = torch.tensor([LN2, 0.0, -LN2, 20.0, -20.0])
    # r = ref − logp; exp(r) − r − 1:
    #   r = ln2: 2 − 0.693147 − 1 = 0.306853;  r = 0: 0;  r = −ln2: 0.5 + 0.693147 − 1 = 0.193147
    #   r = 20: e^20 − 21 → clamped to 10;  r = −20: e^−20 + 19 ≈ 19 → clamped to 10
    assert k3_kl(logp, ref).tolist() == pytest.approx([0.306853, 0.0, 0.193147, 10.0, 10.0], abs=1e-6)


# OPD example: two step samples, three tokens each. Sample 0's trajectory has a valid skill, sample 1's does not; the
# last token of sample 1 is padding.
STUDENT = [[-1.0, -2.0, -0.5], [-1.0, -3.0, -1.0]]
TEACHER = [[-0.5, -1.8, -1.0], [-0.2, -1.0, -4.0]]
RESPONSE_MASK = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
HAS_SKILL = torch.tensor([1.0, 0.0])
# m = response mask × has skill = [[1, 1, 1], [0, 0, 0]] → 3 active tokens, 5 response tokens
# Δ (sample 0) = teacher − student = [0.5, 0.2, −0.5]; β = 5: g = σ(2.5), σ(1), σ(−2.5) = 0.924142, 0.731059, 0.075858
G = [sigmoid(2.5), sigmoid(1.0), sigmoid(-2.5)]


def test_opd_loss_value_and_metrics():
    student = torch.tensor(STUDENT, requires_grad=True)
    out = opd_loss(student, torch.tensor(TEACHER), RESPONSE_MASK, HAS_SKILL, beta=5.0)
    # L = (0.924142·0.5 + 0.731059·0.2 + 0.075858·(−0.5)) / 3 = (0.462071 + 0.146212 − 0.037929) / 3 = 0.190118
    assert out.loss.item() == pytest.approx(0.190118, abs=1e-6)
    assert out.mask.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    assert float(out.gate_mean) == pytest.approx(sum(G) / 3)  # 1.731059 / 3 = 0.577020
    assert float(out.gate_active_frac) == pytest.approx(2 / 3)  # g > 0.5 on the first two tokens
    assert float(out.delta_mean) == pytest.approx(0.2 / 3)  # (0.5 + 0.2 − 0.5) / 3
    assert float(out.active_ratio) == pytest.approx(3 / 5)


def test_opd_gradient_is_minus_gate_over_count_and_zero_off_mask():
    student = torch.tensor(STUDENT, requires_grad=True)
    teacher = torch.tensor(TEACHER, requires_grad=True)
    opd_loss(student, teacher, RESPONSE_MASK, HAS_SKILL, beta=5.0).loss.backward()
    # ∂L/∂ℓθ = −g / 3 on active tokens: −0.308047, −0.243686, −0.025286; 0 where m = 0
    expected = [[-G[0] / 3, -G[1] / 3, -G[2] / 3], [0.0, 0.0, 0.0]]
    assert student.grad.tolist()[0] == pytest.approx(expected[0], abs=1e-7)
    assert student.grad.tolist()[1] == [0.0, 0.0, 0.0]
    assert teacher.grad is None  # the teacher is a constant: sg[ℓ_skill]


def test_beta_zero_gives_half_gate():
    student = torch.tensor(STUDENT, requires_grad=True)
    out = opd_loss(student, torch.tensor(TEACHER), RESPONSE_MASK, HAS_SKILL, beta=0.0)
    assert out.gate.tolist() == [[0.5] * 3] * 2
    # L = 0.5 · (0.5 + 0.2 − 0.5) / 3 = 0.033333; gradient −0.5 / 3 = −0.166667 on active tokens
    assert out.loss.item() == pytest.approx(0.5 * 0.2 / 3)
    out.loss.backward()
    assert student.grad.tolist()[0] == pytest.approx([-0.5 / 3] * 3)
    assert student.grad.tolist()[1] == [0.0] * 3


def test_opd_never_pushes_a_sampled_token_down():
    # Gradient descent moves ℓθ against the gradient −g/count ≤ 0, i.e. always up, whatever Δ's sign.
    gen = torch.Generator().manual_seed(0)
    student = (-5 * torch.rand(4, 7, generator=gen)).requires_grad_()
    teacher = -5 * torch.rand(4, 7, generator=gen)
    opd_loss(student, teacher, torch.ones(4, 7), torch.tensor([1.0, 1.0, 0.0, 1.0])).loss.backward()
    assert (student.grad <= 0).all()
    assert (student.grad[2] == 0).all()


def test_opd_with_no_active_token_is_zero():
    student = torch.tensor(STUDENT, requires_grad=True)
    out = opd_loss(student, torch.tensor(TEACHER), RESPONSE_MASK, torch.zeros(2))
    assert out.loss.item() == 0.0 and float(out.active_ratio) == 0.0 and float(out.gate_mean) == 0.0
    out.loss.backward()
    assert (student.grad == 0).all()


def test_opd_accepts_a_token_level_skill_mask():
    out = opd_loss(torch.tensor(STUDENT), torch.tensor(TEACHER), RESPONSE_MASK, HAS_SKILL[:, None].expand(2, 3))
    assert out.loss.item() == pytest.approx(0.190118, abs=1e-6)


def test_opd_gate_detaches():
    student = torch.tensor([[-1.0]], requires_grad=True)
    delta, gate = opd_gate(torch.tensor([[-0.5]]), student, beta=5.0)
    assert not delta.requires_grad and not gate.requires_grad
    assert float(gate) == pytest.approx(sigmoid(2.5))


# seed_loss on two tokens of one sample, π = π_old (ρ = 1), logp = [−1, −2]:
#   A = [2, 1]                 → pg = −(2 + 1) / 2 = −1.5
#   ref = logp + [ln2, 0]       → KL = (0.306853 + 0) / 2 = 0.153426
#   entropy = [1, 2]            → H = 1.5
#   teacher = logp + [0.4, −0.4] → Δ = [0.4, −0.4], g = σ(2) = 0.880797, σ(−2) = 0.119203
#                                  L_opd = (0.880797·0.4 − 0.119203·0.4) / 2 = 0.152319
#   L = −1.5 − 0.001·1.5 + 0.01·0.153426 + 0.01·0.152319 = −1.498443
def _seed_inputs():
    logp = torch.tensor([[-1.0, -2.0]], requires_grad=True)
    base = logp.detach()
    return {
        "logp": logp,
        "old_logp": base.clone(),
        "advantages": torch.tensor([[2.0, 1.0]]),
        "response_mask": torch.ones(1, 2),
        "ref_logp": base + torch.tensor([[LN2, 0.0]]),
        "entropy": torch.tensor([[1.0, 2.0]]),
        "teacher_logp": base + torch.tensor([[0.4, -0.4]]),
        "has_skill": torch.ones(1),
    }


def test_seed_loss_composes_the_terms():
    inputs = _seed_inputs()
    out = seed_loss(**inputs)
    assert out.loss.item() == pytest.approx(-1.498443, abs=1e-6)
    metrics = out.metrics()
    assert metrics["pg_loss"] == pytest.approx(-1.5)
    assert metrics["kl"] == pytest.approx(0.153426, abs=1e-6)
    assert metrics["entropy"] == pytest.approx(1.5)
    assert metrics["opd_loss"] == pytest.approx(0.152319, abs=1e-6)
    assert metrics["gate_mean"] == pytest.approx(0.5)  # σ(2) + σ(−2) = 1
    assert metrics["gate_active_frac"] == pytest.approx(0.5)
    assert metrics["delta_mean"] == pytest.approx(0.0, abs=1e-7)
    assert metrics["opd_active_ratio"] == 1.0 and metrics["clip_frac"] == 0.0
    assert set(metrics) >= {"loss", "pg_loss", "kl", "entropy", "clip_frac", "opd_loss", "gate_mean"}
    assert out.gate is not None and out.gate.shape == (1, 2)

    out.loss.backward()
    # token 1: pg −A·ρ/2 = −1; KL −(e^r − 1)/2 · 0.01 = −0.005; OPD −g/2 · 0.01 = −0.004404 → −1.009404
    # token 2: pg −1/2 = −0.5; KL 0; OPD −0.119203/2 · 0.01 = −0.000596 → −0.500596
    assert inputs["logp"].grad.tolist()[0] == pytest.approx([-1.009404, -0.500596], abs=1e-6)


def test_opsd_baseline_drops_the_policy_gradient():
    # pg_coef = 0: L = −0.001·1.5 + 0.01·0.153426 + 0.01·0.152319 = 0.001557
    out = seed_loss(**_seed_inputs(), pg_coef=0.0)
    assert out.loss.item() == pytest.approx(0.001557, abs=1e-6)
    assert out.metrics()["pg_loss"] == pytest.approx(-1.5)  # still reported


def test_grpo_without_teacher_or_reference():
    inputs = _seed_inputs()
    for key in ("ref_logp", "entropy", "teacher_logp", "has_skill"):
        del inputs[key]
    out = seed_loss(**inputs)
    assert out.loss.item() == pytest.approx(-1.5)
    assert out.gate is None and out.delta is None
    assert out.metrics()["opd_loss"] == 0.0 and out.metrics()["kl"] == 0.0
