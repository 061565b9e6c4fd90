"""Estimators of the OPD gradient (DESIGN §2, "The OPD gradient as an estimator"; docs/trainer.md, "OPD estimator").

At a response position with state s, sampled token y ~ π_old(·|s) and the trajectory's skill k, the gate of a token v
is g(v) = σ(β·(ℓ^skill(v) − ℓ^old(v))), held fixed (no gradient). The paper's term has the per-token loss gradient

    sample    −g(y)·∇log π_θ(y|s)                                   (one-sample score-function estimate)

whose expectation over y, with k fixed, is −G(s),  G(s) = Σ_v π(v|s)·g(v)·∇log π_θ(v|s). The other settings:

    centred   −(g(y) − ½)·∇log π_θ(y|s)                             same expectation for any skill source, because
                                                                     Σ_v π(v|s)·c·∇log π(v|s) = c·∇Σ_v π(v|s) = 0
    baseline  −(g(y) − b(s))·∇log π_θ(y|s),  b(s) = Σ_v π_old(v|s)·g(v)
                                                                     same expectation only when k does not depend on
                                                                     y (a static bank); hindsight skills do
    expected  −Σ_v w(v)·∇log π_θ(v|s),  w(v) = sg[π_old(v|s)·g(v)]   = −G(s) exactly (no sampling noise given k):
                                                                     a soft-target cross-entropy

The weights use π_old, the weights that sampled y, never the current θ, so every PPO mini-batch distils towards the same
targets. `b(s)` and `w` need the full next-token distributions of π_old under the student prompt and under the teacher
prompt at every response position: the teacher pass computes them (`gate_targets`, one chunk of positions at a time)
and keeps b(s), one float per token, and for `expected` the `top_k` largest w(v) per token with the mass it left out.

The names and what each subtracts, keeps and needs are the rows of algo/estimator_table.py; this module is their maths.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

from seed_trainer.algo.estimator_table import estimator_row

# `expected` keeps every token's weight up to this vocabulary size (the tiny policies' 4 096: 16 KiB a token in
# float32) and the top `DEFAULT_TOP_K` beyond it (49 k, 152 k vocabularies: the full rows would be 0.2 / 0.6 MiB a token).
FULL_VOCAB_LIMIT = 8192
DEFAULT_TOP_K = 256

GATE_CENTRE = 0.5  # g of a token whose log-prob the skill leaves unchanged (Δ = 0)


def resolved_top_k(vocab_size: int, top_k: int | None) -> int | None:
    """Tokens kept per position by `expected`: None (the whole vocabulary) when `top_k` is None and the vocabulary is
    at most FULL_VOCAB_LIMIT, else `top_k` (DEFAULT_TOP_K when None); a `top_k` ≥ the vocabulary is the whole one."""
    if top_k is None:
        return None if vocab_size <= FULL_VOCAB_LIMIT else DEFAULT_TOP_K
    return None if top_k >= vocab_size else top_k


def vocabulary_gate_weights(old_logp: torch.Tensor, teacher_logp: torch.Tensor, beta: float) -> torch.Tensor:
    """w(v) = π_old(v|s)·σ(β·(ℓ^skill(v) − ℓ^old(v))) for every token v. [..., V] log-probs of π_old under the student
    and the teacher prompt → [..., V], without gradient. A token π_old cannot sample (ℓ^old = −inf) weighs 0."""
    old_logp, teacher_logp = old_logp.detach(), teacher_logp.detach()
    gate = torch.sigmoid(beta * (teacher_logp - old_logp))
    # where π_old(v) = 0 the gate's argument may be nan (−inf − −inf): the weight is 0 whatever the gate says
    return torch.where(old_logp > -torch.inf, old_logp.exp() * gate, torch.zeros_like(gate))


def expected_gate(weights: torch.Tensor) -> torch.Tensor:
    """b(s) = Σ_v π_old(v|s)·g(v): the gate's mean under π_old at each position. [..., V] → [...]."""
    return weights.sum(-1)


@dataclass
class TopK:
    ids: torch.Tensor  # [..., k] int64: the tokens with the largest w(v)
    weights: torch.Tensor  # [..., k]: their w(v)
    tail: torch.Tensor  # [...]: Σ w(v) over the tokens left out (the gradient `expected` drops)


def top_k_weights(weights: torch.Tensor, k: int) -> TopK:
    """The k largest weights per position and the mass of the rest."""
    kept = torch.topk(weights, min(k, weights.shape[-1]), dim=-1)
    return TopK(kept.indices, kept.values, (weights.sum(-1) - kept.values.sum(-1)).clamp(min=0.0))


def sampled_token_weight(gate: torch.Tensor, estimator: str, baseline: torch.Tensor | None = None) -> torch.Tensor:
    """The weight c(y) in the per-token loss gradient −c(y)·∇log π_θ(y|s) of the single-sample estimators:
    g (sample), g − ½ (centred), g − b(s) (baseline; `baseline` is b, same shape as `gate`). Detached like g."""
    row = estimator_row(estimator)
    if row.keeps == "soft_targets":
        raise ValueError(f"`{estimator}` weighs every vocabulary token: it has no single-token weight")
    if row.subtracts == "nothing":
        return gate
    if row.subtracts == "centre":
        return gate - GATE_CENTRE
    if baseline is None:
        raise ValueError(f"the `{estimator}` estimator needs b(s) from the teacher pass")
    return gate - baseline.detach()


def subtracted_gate(estimator: str, gate: torch.Tensor, baseline: torch.Tensor | None) -> torch.Tensor | None:
    """What an estimator subtracts from g at each token, for the trajectory record: ½ (centred), b(s) (baseline, and
    expected, whose weights sum to b(s) at each position); None for `sample`."""
    subtracts = estimator_row(estimator).subtracts
    if subtracts == "centre":
        return torch.full_like(gate, GATE_CENTRE)
    if subtracts == "baseline":
        return baseline
    return None


def soft_target_logp(
    logits: torch.Tensor, sampled_ids: torch.Tensor, sampled_logp: torch.Tensor, target_ids: torch.Tensor
) -> torch.Tensor:
    """log π_θ(v|s) at the target tokens [B, L, k], with gradient, from the logits [B, L, V] and the sampled token's
    log-prob [B, L] that `selective_log_softmax` already computed: log π(v) = z_v − z_y + log π(y), so no
    full-vocabulary log-softmax is kept for the backward pass. Logits in bf16/fp16 are gathered and subtracted in fp32,
    as `selective_log_softmax` recovers its normaliser."""
    dtype = torch.promote_types(logits.dtype, torch.float32)  # fp32 at least, fp64 stays
    picked = logits.gather(-1, target_ids.long()).to(dtype)
    sampled = logits.gather(-1, sampled_ids.unsqueeze(-1)).to(dtype)
    return picked - sampled + sampled_logp.unsqueeze(-1).to(dtype)


def soft_target_loss(target_logp: torch.Tensor, target_weights: torch.Tensor) -> torch.Tensor:
    """Per-token −Σ_v w(v)·log π_θ(v|s) over the kept targets: [B, L, k] → [B, L]. Its gradient is −Σ_v w(v)·∇log
    π_θ(v|s), the `expected` estimator (w detached)."""
    return -(target_weights.detach() * target_logp).sum(-1)


@dataclass
class GateTargets:
    """What the teacher pass keeps for one response (CPU): the teacher's log-prob of each sampled token, b(s), and for
    `expected` the kept weights (ids None: the whole vocabulary, in order) and the mass left out."""

    teacher_logp: torch.Tensor  # [R]
    baseline: torch.Tensor  # [R] b(s)
    target_ids: torch.Tensor | None = None  # [R, k] int32
    target_weights: torch.Tensor | None = None  # [R, k] or [R, V]
    target_tail: torch.Tensor | None = None  # [R]


def gate_targets(
    old_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    sampled_ids: torch.Tensor,
    *,
    beta: float,
    keep: Literal["baseline", "full", "top_k"],
    top_k: int | None = None,
) -> GateTargets:
    """From π_old's logits at the same response positions under the student prompt and the teacher prompt ([R, V] or
    [..., V], already divided by the temperature): the sampled token's teacher log-prob, b(s), and (keep `full` or
    `top_k`) the `expected` weights w(v) = π_old(v|s)·g(v). Log-softmax in fp32 whatever the logits' dtype."""
    dtype = torch.promote_types(old_logits.dtype, torch.float32)
    old_logp = torch.log_softmax(old_logits.to(dtype), dim=-1)
    teacher_logp = torch.log_softmax(teacher_logits.to(dtype), dim=-1)
    weights = vocabulary_gate_weights(old_logp, teacher_logp, beta)
    out = GateTargets(teacher_logp.gather(-1, sampled_ids.unsqueeze(-1)).squeeze(-1), expected_gate(weights))
    if keep == "full":
        out.target_weights, out.target_tail = weights, torch.zeros_like(out.baseline)
    elif keep == "top_k":
        if top_k is None:
            raise ValueError("keep `top_k` needs top_k")
        kept = top_k_weights(weights, top_k)
        out.target_ids, out.target_weights, out.target_tail = kept.ids.to(torch.int32), kept.weights, kept.tail
    return out
