"""The OPD gradient estimators (algo/estimators.py) on a small categorical policy with the skill fixed, against numbers
worked out by hand.

The policy is π_θ = softmax(θ) over three tokens at one state, θ = log π_old (the first step of an update), so
∇_θ log π(v) = e_v − π. The gate table g(v) is set through the teacher's log-probs: ℓ^skill(v) = ℓ^old(v) + logit(g(v))/β
gives σ(β·Δ(v)) = g(v) exactly. The exact expected gradient of the loss is −G with

    G = Σ_v π(v)·g(v)·(e_v − π),   G_j = π_j·(g_j − b),   b = Σ_v π(v)·g(v).

Hand numbers: π = (.5, .3, .2), g = (.8, .4, .1) → b = .40 + .12 + .02 = .54 and
G = (.5·.26, .3·(−.14), .2·(−.44)) = (.13, −.042, −.088).

Every loss here divides by a fixed token count (`token_count`), so a batch's gradient is the plain mean of its tokens'.
"""

import math

import pytest
import torch

from seed_trainer.algo.estimators import (
    gate_targets,
    resolved_top_k,
    sampled_token_weight,
    soft_target_logp,
    subtracted_gate,
    top_k_weights,
    vocabulary_gate_weights,
)
from seed_trainer.algo.losses import opd_loss

BETA = 5.0
PI = [0.5, 0.3, 0.2]
GATES = [0.8, 0.4, 0.1]
B_HAND = 0.54
G_HAND = [0.13, -0.042, -0.088]


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def teacher_table(pi, gates) -> torch.Tensor:
    """ℓ^skill(v) such that σ(β·(ℓ^skill(v) − log π(v))) = g(v)."""
    return torch.tensor([math.log(p) + logit(g) / BETA for p, g in zip(pi, gates)], dtype=torch.float64)


def estimator_gradient(
    estimator: str, tokens: list[int], pi=PI, gates=GATES, count: float | None = None
) -> torch.Tensor:
    """∇_θ of the OPD loss over the sampled `tokens` (one response of len(tokens) positions, all at the same state),
    divided by the fixed count len(tokens)."""
    theta = torch.log(torch.tensor(pi, dtype=torch.float64)).requires_grad_()
    logp_all = torch.log_softmax(theta, -1)
    ids = torch.tensor([tokens])
    student = logp_all[ids]  # [1, n] with gradient
    teacher_all = teacher_table(pi, gates)
    teacher = teacher_all[ids]
    n = len(tokens)
    mask = torch.ones(1, n, dtype=torch.float64)
    extra = {}
    if estimator in ("baseline", "expected"):
        # b(s) and w(v) over the whole vocabulary, from π_old (= θ here, detached) and the gate table. (The table's
        # ℓ^skill need not sum to one: the claims hold for any gate fixed given the skill; `gate_targets`, which
        # normalises a real teacher's logits, is tested below.)
        weights = vocabulary_gate_weights(logp_all.detach(), teacher_all, BETA)
        extra["gate_baseline"] = weights.sum().expand(1, n)
        if estimator == "expected":
            logits = theta.expand(1, n, len(pi))  # the logits of every position (this state's)
            full = torch.arange(len(pi)).expand(1, n, len(pi))
            extra["target_logp"] = soft_target_logp(logits, ids, student, full)
            extra["target_weights"] = weights.expand(1, n, len(pi))
    out = opd_loss(
        student,
        teacher,
        mask,
        torch.ones(1, dtype=torch.float64),
        beta=BETA,
        token_count=float(n if count is None else count),
        estimator=estimator,
        **extra,
    )
    out.loss.backward()
    return theta.grad.detach()


def exact_g(pi, gates) -> torch.Tensor:
    pi_t, g_t = torch.tensor(pi, dtype=torch.float64), torch.tensor(gates, dtype=torch.float64)
    return pi_t * (g_t - (pi_t * g_t).sum())


def test_the_hand_numbers():
    assert exact_g(PI, GATES).tolist() == pytest.approx(G_HAND, abs=1e-12)
    teacher = teacher_table(PI, GATES)
    old = torch.log(torch.tensor(PI, dtype=torch.float64))
    # the gates the loss sees are the table's, and b(s) = .54 from the full distributions
    assert torch.sigmoid(BETA * (teacher - old)).tolist() == pytest.approx(GATES, abs=1e-12)
    weights = vocabulary_gate_weights(old, teacher, BETA)
    assert weights.tolist() == pytest.approx([0.40, 0.12, 0.02], abs=1e-12)
    assert float(weights.sum()) == pytest.approx(B_HAND, abs=1e-12)


def test_expected_equals_minus_g_exactly():
    # whatever token was sampled: the soft target uses the whole distribution
    for y in range(3):
        assert estimator_gradient("expected", [y]).tolist() == pytest.approx([-v for v in G_HAND], abs=1e-12)


@pytest.mark.parametrize("estimator", ["sample", "centred", "baseline"])
def test_single_sample_estimators_have_expectation_minus_g_by_enumeration(estimator):
    # E_y[∇L(y)] = Σ_y π(y)·∇L(y), every token enumerated: exact, no sampling
    mean = sum(p * estimator_gradient(estimator, [y]) for y, p in enumerate(PI))
    assert mean.tolist() == pytest.approx([-v for v in G_HAND], abs=1e-12)


@pytest.mark.parametrize("estimator", ["sample", "centred", "baseline", "expected"])
def test_monte_carlo_mean_is_minus_g_within_its_standard_error(estimator):
    # 400 batches of 25 tokens drawn from π: the batch gradients are i.i.d. with mean −G
    generator = torch.Generator().manual_seed(39)
    batches = torch.multinomial(torch.tensor(PI), 400 * 25, replacement=True, generator=generator).view(400, 25)
    grads = torch.stack([estimator_gradient(estimator, row.tolist()) for row in batches])
    mean, standard_error = grads.mean(0), grads.std(0) / math.sqrt(len(grads))
    target = -exact_g(PI, GATES)
    if estimator == "expected":  # no sampling noise: every batch is −G
        assert standard_error.max() < 1e-12
        assert mean.tolist() == pytest.approx(target.tolist(), abs=1e-12)
    else:
        assert bool((standard_error > 0).all())
        assert bool(((mean - target).abs() <= 4 * standard_error).all()), (mean, target, standard_error)


CONSTANT = [0.5, 0.5, 0.5]  # Δ = 0 everywhere (or β = 0): g ≡ ½


@pytest.mark.parametrize("y", [0, 1, 2])
def test_gate_of_one_half_gives_zero_gradient_except_for_sample(y):
    for estimator in ("centred", "baseline", "expected"):
        assert estimator_gradient(estimator, [y], gates=CONSTANT).abs().max() < 1e-12, estimator
    # the paper's term still pushes the sampled token up: −½·(e_y − π)
    sample = estimator_gradient("sample", [y], gates=CONSTANT)
    assert sample.tolist() == pytest.approx([-0.5 * ((v == y) - PI[v]) for v in range(3)], abs=1e-12)


@pytest.mark.parametrize("y", [0, 1, 2])
def test_any_constant_gate_gives_zero_gradient_with_baseline_and_expected(y):
    # at θ = π_old, the first optimizer step of an update; after it `expected` pulls back toward π_old
    # (test_skill_controls.py, test_a_constant_gate_expected_term_is_zero_only_at_pi_old)
    constant = [0.7, 0.7, 0.7]  # b(s) = .7: g − b = 0 on every token; Σ_v π·.7·(e_v − π) = 0
    for estimator in ("baseline", "expected"):
        assert estimator_gradient(estimator, [y], gates=constant).abs().max() < 1e-12, estimator
    # centred subtracts ½, not .7: one token's gradient is −.2·(e_y − π), zero only in expectation
    centred = estimator_gradient("centred", [y], gates=constant)
    assert centred.tolist() == pytest.approx([-0.2 * ((v == y) - PI[v]) for v in range(3)], abs=1e-12)
    assert estimator_gradient("sample", [y], gates=constant).abs().max() > 0.05


def test_the_baseline_is_not_the_variance_optimal_one():
    # The counterexample: π = (.9, .05, .05), g = (.6, .1, .1), b = .55. Per-token gradient −c(y)·(e_y − π),
    # ‖e_0 − π‖² = .01 + .0025 + .0025 = .015, ‖e_1 − π‖² = ‖e_2 − π‖² = .81 + .9025 + .0025 = 1.715:
    #   sample   E‖·‖² = .9·.6²·.015 + 2·.05·.1²·1.715           = .00486 + .001715   = .006575
    #   baseline E‖·‖² = .9·.05²·.015 + 2·.05·(−.45)²·1.715      = .00003375 + .0347288 = .03476250
    #   centred  E‖·‖² = .9·.1²·.015 + 2·.05·(−.4)²·1.715        = .000135 + .02744    = .027575
    # The same mean (−G) for all three, so the second moments order the variances the same way.
    pi, gates = [0.9, 0.05, 0.05], [0.6, 0.1, 0.1]
    moments = {}
    for estimator in ("sample", "baseline", "centred"):
        per_token = [estimator_gradient(estimator, [y], pi=pi, gates=gates) for y in range(3)]
        moments[estimator] = sum(p * float(g.square().sum()) for p, g in zip(pi, per_token))
        mean = sum(p * g for p, g in zip(pi, per_token))
        assert mean.tolist() == pytest.approx((-exact_g(pi, gates)).tolist(), abs=1e-12)
    assert moments["sample"] == pytest.approx(0.006575, abs=1e-9)
    assert moments["baseline"] == pytest.approx(0.0347625, abs=1e-9)
    assert moments["centred"] == pytest.approx(0.027575, abs=1e-9)
    assert moments["baseline"] > moments["sample"]


def test_sampled_token_weights():
    gate = torch.tensor([0.8, 0.4, 0.1])
    b = torch.tensor([0.54, 0.54, 0.3])
    assert sampled_token_weight(gate, "sample") is gate
    assert sampled_token_weight(gate, "centred").tolist() == pytest.approx([0.3, -0.1, -0.4])
    assert sampled_token_weight(gate, "baseline", b).tolist() == pytest.approx([0.26, -0.14, -0.2])
    with pytest.raises(ValueError, match="b\\(s\\)"):
        sampled_token_weight(gate, "baseline")
    with pytest.raises(ValueError):
        sampled_token_weight(gate, "expected")
    assert subtracted_gate("sample", gate, None) is None
    assert subtracted_gate("centred", gate, None).tolist() == [0.5, 0.5, 0.5]
    assert subtracted_gate("baseline", gate, b) is b


def test_soft_target_logp_matches_log_softmax_and_its_gradient():
    torch.manual_seed(0)
    logits = torch.randn(2, 3, 7, dtype=torch.float64, requires_grad=True)
    sampled = torch.randint(0, 7, (2, 3))
    targets = torch.randint(0, 7, (2, 3, 4))
    full = torch.log_softmax(logits, -1)
    picked = soft_target_logp(logits, sampled, full.gather(-1, sampled.unsqueeze(-1)).squeeze(-1), targets)
    reference = full.gather(-1, targets)
    assert torch.allclose(picked, reference, atol=1e-12)
    weights = torch.rand(2, 3, 4, dtype=torch.float64)
    (grad,) = torch.autograd.grad((weights * picked).sum(), logits, retain_graph=True)
    (want,) = torch.autograd.grad((weights * reference).sum(), logits)
    assert torch.allclose(grad, want, atol=1e-12)


def test_top_k_keeps_the_largest_weights_and_reports_the_tail():
    weights = torch.tensor([[0.05, 0.30, 0.01, 0.20, 0.04]])
    kept = top_k_weights(weights, 2)
    assert kept.ids.tolist() == [[1, 3]]
    assert kept.weights[0].tolist() == pytest.approx([0.30, 0.20])
    assert kept.tail.tolist() == pytest.approx([0.10])  # .05 + .01 + .04
    old = torch.tensor([[1.0, 2.0, 0.5, 1.5]])  # logits, as the teacher pass hands them over
    teacher = torch.tensor([[0.0, 2.5, 0.5, 1.0]])
    full = gate_targets(old, teacher, torch.tensor([1]), beta=BETA, keep="full")
    # the logits are normalised first: b(s) = Σ_v softmax(old)_v·σ(β·(log softmax(teacher)_v − log softmax(old)_v))
    p_old, p_teacher = torch.softmax(old, -1), torch.softmax(teacher, -1)
    by_hand = (p_old * torch.sigmoid(BETA * (p_teacher.log() - p_old.log()))).sum()
    assert float(full.baseline.sum()) == pytest.approx(float(by_hand), abs=1e-6)
    assert float(full.teacher_logp.sum()) == pytest.approx(float(p_teacher[0, 1].log()), abs=1e-6)
    top = gate_targets(old, teacher, torch.tensor([1]), beta=BETA, keep="top_k", top_k=2)
    assert top.target_ids.dtype == torch.int32 and top.target_ids.shape == (1, 2)
    assert float(top.target_weights.sum() + top.target_tail.sum()) == pytest.approx(float(full.baseline.sum()))
    assert float(full.target_tail.sum()) == 0.0
    only = gate_targets(old, teacher, torch.tensor([1]), beta=BETA, keep="baseline")
    assert only.target_weights is None and float(only.baseline.sum()) == pytest.approx(float(full.baseline.sum()))


def test_resolved_top_k():
    assert resolved_top_k(4096, None) is None  # the tiny vocabulary: whole distributions
    assert resolved_top_k(49152, None) == 256
    assert resolved_top_k(151936, 64) == 64
    assert resolved_top_k(4096, 5000) is None


def test_a_token_pi_old_cannot_sample_weighs_nothing():
    old = torch.tensor([0.0, -math.inf])
    teacher = torch.tensor([-0.1, -math.inf])
    weights = vocabulary_gate_weights(old, teacher, BETA)
    assert weights[1] == 0.0 and torch.isfinite(weights).all()


# -- what `expected` costs in memory (compute/memory.py) ------------------------------------------------------------------


def _memory_config(estimator="expected", top_k=None, micro_batch_tokens=None):
    from seed_trainer.experiment.loading import experiment_from_data

    data = {
        "name": "m",
        "model": {"path": "m"},
        "rollout": {"tasks_per_update": 16, "group_size": 8, "max_steps": 30, "max_response_tokens": 512},
        "rl": {"micro_batch_size": 8, "micro_batch_tokens": micro_batch_tokens},
        "opd": {"estimator": estimator, "expected_top_k": top_k},
    }
    return experiment_from_data(data, ".", "test")


def test_expected_soft_targets_memory_by_hand():
    from seed_trainer.compute.memory import (
        GIB,
        expected_device_bytes,
        expected_host_bytes,
        expected_target_bytes_per_token,
        update_response_tokens,
    )

    # whole vocabulary (≤ 8192): 4096 float32 weights, no ids; + b(s) and the tail
    assert expected_target_bytes_per_token(4096, None) == 4096 * 4 + 8 == 16_392
    # Qwen's 151 936 tokens: the default top 256, each an int32 id and a float32 weight
    assert expected_target_bytes_per_token(151_936, None) == 256 * 8 + 8 == 2_056
    assert expected_target_bytes_per_token(151_936, 64) == 64 * 8 + 8
    assert expected_target_bytes_per_token(100, 500) == 100 * 4 + 8  # a top-k beyond the vocabulary keeps it whole
    config = _memory_config()
    # paper defaults: 16 tasks × 8 copies × 30 steps × 512 tokens
    assert update_response_tokens(config) == 1_966_080
    assert expected_host_bytes(config, 151_936) == 1_966_080 * 2_056
    assert expected_host_bytes(config, 151_936) / GIB == pytest.approx(3.765, abs=1e-3)
    assert expected_host_bytes(_memory_config("baseline"), 151_936) == 0
    # device, one micro-batch of 8 × 512 positions: int64 id + float32 weight, log-prob and its gradient per kept token
    assert expected_device_bytes(config, 151_936) == 8 * 512 * 256 * (8 + 12) == 20 * 2**20
    assert expected_device_bytes(config, 4096) == 8 * 512 * 4096 * 12 == 192 * 2**20  # whole: ids are a free view
    assert expected_device_bytes(_memory_config(micro_batch_tokens=1024), 4096) == 1024 * 4096 * 12
    assert expected_device_bytes(_memory_config("centred"), 4096) == 0


def test_expected_host_warning_names_the_settings():
    from types import SimpleNamespace

    from seed_trainer.compute.memory import GIB, expected_host_warning

    head = SimpleNamespace(weight=torch.empty(151_936, 0))
    policy = SimpleNamespace(runner=SimpleNamespace(get_output_embeddings=lambda: head))
    config = _memory_config()  # up to 3.77 GiB of targets
    assert expected_host_warning(policy, config, total=8 * GIB) == []  # 47 % of 8 GiB: below half
    (warning,) = expected_host_warning(policy, config, total=6 * GIB)
    assert "up to 3.8 GiB of soft targets" in warning and "opd.expected_top_k" in warning
    assert expected_host_warning(policy, _memory_config("sample"), total=GIB) == []
