"""The Stage-2 update loss (DESIGN §2 step 5): PPO with dual clip, k3 KL, entropy bonus and the gated OPD term.

All inputs are per-token tensors of one micro-batch, shape [B, L] (B step samples, L response tokens), aligned with a
0/1 `response_mask`. Every term is a token-mean over its mask: the sum over the batch's masked tokens divided by
their count, so long and short responses weigh per token, as verl's `token-mean`. When a mini-batch is split into
micro-batches, the update passes the mini-batch's token counts (`token_count`, `opd_token_count`): each micro-batch
then contributes its sum over the whole mini-batch's count, and the accumulated gradient is the mini-batch's
token-mean whatever the split.

Exponents are clamped before `exp` (log-ratio to ±20, as verl does): exp(r) of r > 88.7 is inf in fp32, and the
backward of a clamped or unselected inf is 0·inf = NaN — at padded positions too, where the mask zeroes the value
but not the NaN of its gradient.

    L = pg_coef · L_pg − entropy_coef · H + kl_coef · KL + λ_opd · L_opd

`pg_coef` = 1 for SEED/GRPO and 0 for the OPSD baseline (distillation only). Per-token entropies come from
`logprobs.entropy_from_logits`, which never materialises the full-vocabulary softmax of the batch at once.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch

from seed_trainer.algo.estimator_table import estimator_row
from seed_trainer.algo.estimators import sampled_token_weight, soft_target_loss

KL_CLAMP = 10.0
LOG_RATIO_CLAMP = 20.0  # exp(20) ≈ 4.9e8: finite in fp32, and far beyond any ratio the PPO clip lets through


def masked_mean(values: torch.Tensor, mask: torch.Tensor, count: float | torch.Tensor | None = None) -> torch.Tensor:
    """Token-mean: Σ values·mask / Σ mask, and 0 (not nan) when the mask is empty. `count` replaces Σ mask as the
    divisor (a mini-batch's token count, when this is one of its micro-batches)."""
    mask = mask.to(values.dtype)
    count = mask.sum() if count is None else torch.as_tensor(count, dtype=values.dtype, device=values.device)
    total = torch.where(mask > 0, values, values.new_zeros(())).sum()  # a NaN at a masked-out position stays out
    return torch.where(count > 0, total / count.clamp(min=1.0), total.new_zeros(()))


@dataclass
class PolicyLoss:
    loss: torch.Tensor  # token-mean clipped surrogate (with grad)
    clip_frac: torch.Tensor  # share of tokens where the ε-clip is active
    clip_frac_lower: torch.Tensor  # share of tokens where the dual clip (A < 0) bounds the loss
    approx_kl: torch.Tensor  # token-mean of ℓ_old − ℓ: how far the update has moved from π_old


def ppo_clip_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip: float = 0.2,
    dual_clip: float = 3.0,
    token_count: float | torch.Tensor | None = None,
) -> PolicyLoss:
    """PPO clipped surrogate with dual clip: per token max(−Aρ, −A·clip(ρ, 1−ε, 1+ε)), and for A < 0 also ≤ −c·A."""
    if dual_clip <= 1.0:
        raise ValueError(f"dual_clip must be > 1, got {dual_clip}")
    ratio = torch.exp(torch.clamp(logp - old_logp, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP))
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip, 1.0 + clip)
    surrogate = torch.maximum(unclipped, clipped)
    # Dual clip: with A < 0 and a huge ratio the loss −Aρ would grow without bound; cap it at −c·A.
    dual_bound = -advantages * dual_clip
    bounded = torch.minimum(surrogate, dual_bound)
    per_token = torch.where(advantages < 0, bounded, surrogate)
    with torch.no_grad():
        clip_frac = masked_mean((clipped > unclipped).float(), mask)
        clip_frac_lower = masked_mean(((surrogate > dual_bound) & (advantages < 0)).float(), mask)
        approx_kl = masked_mean(old_logp - logp, mask)
    return PolicyLoss(masked_mean(per_token, mask, token_count), clip_frac, clip_frac_lower, approx_kl)


def k3_kl(logp: torch.Tensor, ref_logp: torch.Tensor, *, clamp: float = KL_CLAMP) -> torch.Tensor:
    """Per-token k3 (`low_var_kl`) estimate of KL(π‖π_ref): exp(r) − r − 1 with r = ref − logp clamped to ±20
    before the exp (so neither the value nor its gradient overflows), the result clamped to ±clamp."""
    r = torch.clamp(ref_logp - logp, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP)
    return torch.clamp(torch.exp(r) - r - 1.0, min=-clamp, max=clamp)


@dataclass
class OpdLoss:
    loss: torch.Tensor  # token-mean over m of g·(ℓ_skill − ℓ_θ) (with grad through ℓ_θ only)
    delta: torch.Tensor  # [B, L] Δ = ℓ_skill − sg[ℓ_θ]
    gate: torch.Tensor  # [B, L] g = σ(β·Δ), detached
    mask: torch.Tensor  # [B, L] m = response mask × has valid skill
    gate_mean: torch.Tensor
    gate_active_frac: torch.Tensor  # share of active tokens with g > 0.5 (the skill raised the token's log-prob)
    delta_mean: torch.Tensor
    active_ratio: torch.Tensor  # active tokens / response tokens


def opd_gate(teacher_logp: torch.Tensor, student_logp: torch.Tensor, beta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Δ = ℓ_skill − sg[ℓ_θ] and g = sg[σ(β·Δ)], both without gradient."""
    delta = (teacher_logp - student_logp).detach()
    return delta, torch.sigmoid(beta * delta)


def opd_loss(
    student_logp: torch.Tensor,
    teacher_logp: torch.Tensor,
    response_mask: torch.Tensor,
    has_skill: torch.Tensor,
    *,
    beta: float = 5.0,
    token_count: float | torch.Tensor | None = None,
    estimator: str = "sample",
    gate_baseline: torch.Tensor | None = None,
    target_logp: torch.Tensor | None = None,
    target_weights: torch.Tensor | None = None,
) -> OpdLoss:
    """Gated on-policy distillation. With `estimator` sample (the paper) its gradient is −g·∇ℓ_θ / count on active
    tokens: a gate-weighted NLL that only ever raises the sampled token's log-prob, more where the skill-conditioned
    teacher agrees with it. `centred` and `baseline` weigh the same term by g − ½ and g − b(s) (`gate_baseline`, [B, L]);
    `expected` is the soft-target cross-entropy −Σ_v w(v)·ℓ_θ(v) over `target_logp` / `target_weights` ([B, L, k])
    instead (algo/estimators.py). The loss value therefore depends on the estimator; its gradient is the estimator.

    `has_skill` is [B] (one flag per step sample: its trajectory has a valid skill) or [B, L]. `token_count` replaces
    the count of active tokens as the divisor of the loss (not of the statistics).
    """
    teacher_logp = teacher_logp.detach()
    skill = has_skill.to(response_mask.dtype)
    if skill.dim() == 1:
        skill = skill.unsqueeze(-1)
    mask = response_mask * skill
    delta, gate = opd_gate(teacher_logp, student_logp, beta)
    if estimator_row(estimator).keeps == "soft_targets":
        if target_logp is None or target_weights is None:
            raise ValueError(f"the `{estimator}` estimator needs the target log-probs and weights of the teacher pass")
        per_token = soft_target_loss(target_logp, target_weights)
    else:  # sample: g itself, so the paper's numbers are unchanged
        per_token = sampled_token_weight(gate, estimator, gate_baseline) * (teacher_logp - student_logp)
    loss = masked_mean(per_token, mask, token_count)
    with torch.no_grad():
        gate_mean = masked_mean(gate, mask)
        gate_active_frac = masked_mean((gate > 0.5).float(), mask)
        delta_mean = masked_mean(delta, mask)
        active_ratio = masked_mean((mask > 0).float(), response_mask)
    return OpdLoss(loss, delta, gate, mask, gate_mean, gate_active_frac, delta_mean, active_ratio)


@dataclass
class SeedLoss:
    loss: torch.Tensor  # the scalar to backpropagate
    pg_loss: torch.Tensor
    kl: torch.Tensor
    entropy: torch.Tensor
    clip_frac: torch.Tensor
    clip_frac_lower: torch.Tensor
    approx_kl: torch.Tensor
    opd_loss: torch.Tensor
    gate_mean: torch.Tensor
    gate_active_frac: torch.Tensor
    delta_mean: torch.Tensor
    opd_active_ratio: torch.Tensor
    gate: torch.Tensor | None  # [B, L] per-token gate (for the trajectory heatmap), None without a teacher
    delta: torch.Tensor | None  # [B, L] per-token Δ

    def metrics(self) -> dict[str, float]:
        """Every scalar as a float, for the metrics row."""
        return {
            f.name: float(getattr(self, f.name).detach())
            for f in fields(self)
            if f.name not in ("gate", "delta") and getattr(self, f.name) is not None
        }


def seed_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    ref_logp: torch.Tensor | None = None,
    entropy: torch.Tensor | None = None,
    teacher_logp: torch.Tensor | None = None,
    has_skill: torch.Tensor | None = None,
    clip: float = 0.2,
    dual_clip: float = 3.0,
    kl_coef: float = 0.01,
    entropy_coef: float = 0.001,
    pg_coef: float = 1.0,
    opd_lambda: float = 0.01,
    opd_beta: float = 5.0,
    token_count: float | torch.Tensor | None = None,
    opd_token_count: float | torch.Tensor | None = None,
    opd_estimator: str = "sample",
    gate_baseline: torch.Tensor | None = None,
    target_logp: torch.Tensor | None = None,
    target_weights: torch.Tensor | None = None,
) -> SeedLoss:
    """L = pg_coef·L_pg − entropy_coef·H + kl_coef·KL + λ_opd·L_opd, each a token-mean over the response mask.

    A term whose input is missing (no `ref_logp`, no `entropy`, no `teacher_logp`) contributes 0 and reports 0: GRPO
    runs without a teacher pass. `has_skill` defaults to all ones when a teacher is given. `token_count` and
    `opd_token_count` are the divisors of the response-token and the OPD terms when this micro-batch is part of a
    larger mini-batch (default: this batch's own counts). `opd_estimator` and its inputs (`gate_baseline`,
    `target_logp`, `target_weights`) choose the OPD gradient estimator (`opd_loss`).
    """
    zero = logp.new_zeros(())
    policy = ppo_clip_loss(
        logp, old_logp, advantages, response_mask, clip=clip, dual_clip=dual_clip, token_count=token_count
    )
    kl = masked_mean(k3_kl(logp, ref_logp), response_mask, token_count) if ref_logp is not None else zero
    ent = masked_mean(entropy, response_mask, token_count) if entropy is not None else zero
    loss = pg_coef * policy.loss - entropy_coef * ent + kl_coef * kl

    opd = None
    if teacher_logp is not None:
        skill = has_skill if has_skill is not None else torch.ones(logp.shape[0], device=logp.device)
        opd = opd_loss(
            logp,
            teacher_logp,
            response_mask,
            skill,
            beta=opd_beta,
            token_count=opd_token_count,
            estimator=opd_estimator,
            gate_baseline=gate_baseline,
            target_logp=target_logp,
            target_weights=target_weights,
        )
        loss = loss + opd_lambda * opd.loss

    return SeedLoss(
        loss=loss,
        pg_loss=policy.loss.detach(),
        kl=kl.detach(),
        entropy=ent.detach(),
        clip_frac=policy.clip_frac,
        clip_frac_lower=policy.clip_frac_lower,
        approx_kl=policy.approx_kl,
        opd_loss=opd.loss.detach() if opd is not None else zero,
        gate_mean=opd.gate_mean if opd is not None else zero,
        gate_active_frac=opd.gate_active_frac if opd is not None else zero,
        delta_mean=opd.delta_mean if opd is not None else zero,
        opd_active_ratio=opd.active_ratio if opd is not None else zero,
        gate=opd.gate if opd is not None else None,
        delta=opd.delta if opd is not None else None,
    )
