"""The policy update (DESIGN §2 Stage 2 step 5): PPO epochs over mini-batches of step samples, micro-batches of
similar length with gradient accumulation, the SEED loss as a token-mean over each mini-batch, global grad-norm
clipping, one AdamW step per mini-batch — skipped when anything in it is not finite."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from seed_trainer.algo.estimator_table import estimator_row
from seed_trainer.algo.losses import SeedLoss, seed_loss
from seed_trainer.algo.variants import ALGORITHM_VARIANTS, gate_beta
from seed_trainer.compute.batching import plan_micro_batches
from seed_trainer.compute.distributed import SINGLE, Ranks, all_gather, sum_gradients, sum_values
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.precision import NonFiniteGuard, grad_scaler, guarded_step, loss_terms_not_finite
from seed_trainer.compute.response_scoring import is_sharded, pack, response_logprobs, response_logprobs_with_targets
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.rl.rollout import Step


@dataclass
class Sample:
    step: Step
    has_skill: bool


@dataclass(frozen=True)
class LossSettings:
    """The loss coefficients of one algorithm (the baselines are settings of the same loss)."""

    pg_coef: float
    opd_lambda: float
    opd_beta: float
    use_teacher: bool
    opd_estimator: str = "sample"  # algo/estimators.py

    @classmethod
    def for_algorithm(cls, config: ExperimentConfig) -> LossSettings:
        variant = ALGORITHM_VARIANTS[config.algorithm]
        return cls(
            pg_coef=variant.pg_coef,
            opd_lambda=config.opd.lambda_ if variant.teacher else 0.0,
            opd_beta=gate_beta(config.algorithm, config.opd.beta),
            use_teacher=variant.teacher,
            opd_estimator=config.opd.estimator,
        )


def _padded(rows: Sequence[torch.Tensor | None], width: int, device) -> torch.Tensor:
    out = torch.zeros(len(rows), width, dtype=torch.float32)
    for i, row in enumerate(rows):
        if row is not None:
            out[i, : row.shape[0]] = row
    return out.to(device)


def soft_targets(steps: Sequence[Step], width: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """The `expected` estimator's target ids [B, width, k] and weights [B, width, k] of a micro-batch, zero (weight 0)
    where a step has none (no skill) and past a response's end. Weights kept over the whole vocabulary (no ids) get
    the ids 0..V−1 as a broadcast view, which costs no memory."""
    kept = [s for s in steps if s.target_weights is not None]
    k = max((s.target_weights.shape[-1] for s in kept), default=1)
    weights = torch.zeros(len(steps), width, k, dtype=torch.float32)
    whole = any(s.target_ids is None for s in kept)
    ids = None if whole else torch.zeros(len(steps), width, k, dtype=torch.long)
    for i, step in enumerate(steps):
        if step.target_weights is not None:
            n = step.target_weights.shape[0]
            weights[i, :n] = step.target_weights
            if ids is not None:
                ids[i, :n] = step.target_ids.long()
    if ids is None:
        return torch.arange(k, device=device).expand(len(steps), width, k), weights.to(device)
    return ids.to(device), weights.to(device)


# Loss terms that are sums over the mini-batch's token count: a mini-batch's value is the sum over its micro-batches.
_MINI_BATCH_SUMS = ("loss", "pg_loss", "kl", "entropy", "opd_loss")


@dataclass
class UpdateResult:
    metrics: dict[str, float]  # token-weighted means of the loss metrics, grad norm, skipped steps
    skipped: list[str]  # one line per skipped optimizer step: why


def ppo_update(
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    samples: Sequence[Sample],
    config: ExperimentConfig,
    settings: LossSettings,
    rng: random.Random,
    *,
    scaler: torch.amp.GradScaler | None = None,
    guard: NonFiniteGuard | None = None,
    ranks: Ranks = SINGLE,
) -> UpdateResult:
    """Runs the configured PPO epochs over `samples`.

    Each mini-batch is one optimizer step on the token-mean of its loss; it is split into micro-batches of similar
    length (`batching.plan_micro_batches`) whose gradients accumulate. A micro-batch with a non-finite loss term is
    not back-propagated, and a mini-batch with one, or with a non-finite gradient norm, takes no step
    (`precision.guarded_step`); `guard` fails the run after too many in a row.

    Under torchrun every rank holds all `samples` and the same `rng` (compute/distributed.py): each back-propagates every
    `world`-th micro-batch of each mini-batch, and the gradients, non-finite terms and metrics are summed over the
    ranks before the step, so every rank takes the single-process step.
    """
    rl = config.rl
    model = policy.model
    model.train()
    scaler = scaler or grad_scaler(policy.device, policy.compute_dtype)
    guard = guard or NonFiniteGuard(rl.max_skipped_steps)
    sums: dict[str, float] = defaultdict(float)  # per-token statistics, weighted by micro-batch tokens
    mini_sums: dict[str, float] = defaultdict(float)  # _MINI_BATCH_SUMS, weighted by mini-batch tokens
    weight_total = applied_tokens = 0.0
    grad_norms: list[float] = []
    skipped: list[str] = []
    order = list(range(len(samples)))
    sharded = is_sharded(model)
    for _epoch in range(rl.ppo_epochs):
        rng.shuffle(order)
        for start in range(0, len(order), rl.mini_batch_size):
            mini = [samples[i] for i in order[start : start + rl.mini_batch_size]]
            use_teacher = settings.use_teacher and any(s.has_skill for s in mini)
            tokens = float(sum(len(s.step.response_ids) for s in mini))
            opd_tokens = float(sum(len(s.step.response_ids) for s in mini if s.has_skill))
            optimizer.zero_grad(set_to_none=True)
            bad_terms: set[str] = set()
            mini_values: dict[str, float] = defaultdict(float)
            lengths = [len(s.step.prompt_ids) + len(s.step.response_ids) for s in mini]
            plan = plan_micro_batches(lengths, rl.micro_batch_size, rl.micro_batch_tokens)
            mine = lockstep_share(plan, ranks) if sharded else plan[ranks.rank :: ranks.world]
            for rows in mine:
                padding = rows is None  # a zero-weight pass that keeps this rank in step with the others (FSDP)
                micro = [mini[i] for i in (plan[0] if padding else rows)]
                result, micro_tokens = micro_batch_loss(
                    policy, micro, config, settings, use_teacher=use_teacher, tokens=tokens, opd_tokens=opd_tokens
                )
                if sharded:  # every rank back-propagates as often as the others; FSDP averages, the step needs sums
                    scaler.scale(result.loss * (0.0 if padding else float(ranks.world))).backward()
                    if padding:
                        continue
                values = result.metrics()
                bad = loss_terms_not_finite({_TERM_NAMES[k]: values[k] for k in _TERM_NAMES if k in values})
                if bad:  # back-propagating it would only spread the NaN; the step is skipped below
                    bad_terms.update(bad)
                    continue
                if not sharded:
                    scaler.scale(result.loss).backward()
                for name, value in values.items():
                    if name in _MINI_BATCH_SUMS:
                        mini_values[name] += value
                    else:
                        sums[name] += value * micro_tokens
                weight_total += micro_tokens
            if ranks.distributed:
                bad_terms = set().union(*all_gather(ranks, bad_terms, "comparing non-finite loss terms"))
                if not sharded:  # FSDP reduce-scattered them in every backward
                    sum_gradients(ranks, model)
                mini_values = sum_values(ranks, mini_values, "summing the mini-batch losses")
            outcome = guarded_step(optimizer, model, rl.grad_clip, scaler, bad_terms)
            if outcome.skipped:
                skipped.append(f"optimizer step {len(grad_norms) + len(skipped) + 1}: non-finite {outcome.reason}")
            else:
                grad_norms.append(outcome.grad_norm)
                for name, value in mini_values.items():
                    mini_sums[name] += value * tokens
                applied_tokens += tokens
            guard.record(outcome)  # the loop names the update
    if sharded:  # the sharded gradients are not needed until the next update: their memory goes to the rollout
        optimizer.zero_grad(set_to_none=True)
    if ranks.distributed:
        sums = sum_values(ranks, {**sums, _WEIGHT: weight_total}, "summing the update metrics")
        weight_total = sums.pop(_WEIGHT)
    metrics = {name: value / max(weight_total, 1.0) for name, value in sums.items()}
    metrics.update({name: value / max(applied_tokens, 1.0) for name, value in mini_sums.items()})
    if grad_norms:  # none when every step was skipped: a missing value, not a NaN in the metrics row
        metrics["grad_norm"] = sum(grad_norms) / len(grad_norms)
    metrics["skipped_steps"] = float(len(skipped))
    return UpdateResult(metrics, skipped)


def micro_batch_loss(
    policy: Policy,
    micro: Sequence[Sample],
    config: ExperimentConfig,
    settings: LossSettings,
    *,
    use_teacher: bool,
    tokens: float,
    opd_tokens: float,
) -> tuple[SeedLoss, float]:
    """The loss of one micro-batch and its response tokens: the samples packed into rows, scored by the policy at the
    rollout temperature (with the full distribution where `opd.estimator: expected` needs it), and `seed_loss` over
    them, divided by the mini-batch's token counts (`tokens`, `opd_tokens`) so that micro-batches sum to its mean."""
    rl, model = config.rl, policy.model
    steps = [s.step for s in micro]
    batch = pack([s.prompt_ids for s in steps], [s.response_ids for s in steps], policy.pad_id, policy.device)
    width = batch.response_length
    estimator = settings.opd_estimator if use_teacher else "sample"
    keeps = estimator_row(estimator).keeps  # what the teacher pass left on the steps for this loss
    targets: dict[str, torch.Tensor] = {}
    with policy.autocast():
        if keeps == "soft_targets":
            ids, targets["target_weights"] = soft_targets(steps, width, policy.device)
            logp, entropy, targets["target_logp"] = response_logprobs_with_targets(
                model, batch, ids, config.rollout.temperature, with_entropy=True
            )
        else:
            logp, entropy = response_logprobs(model, batch, config.rollout.temperature, with_entropy=True)
    if rl.entropy_coef == 0:  # logged as `loss/entropy`, never back-propagated
        entropy = entropy.detach()
    if keeps == "baseline":
        targets["gate_baseline"] = _padded([s.gate_baseline for s in steps], width, policy.device)
    result = seed_loss(
        logp,
        _padded([s.old_logp for s in steps], width, policy.device),
        torch.tensor([s.advantage for s in steps], device=policy.device).unsqueeze(-1) * batch.response_mask,
        batch.response_mask,
        ref_logp=_padded([s.ref_logp for s in steps], width, policy.device) if rl.kl_coef > 0 else None,
        entropy=entropy,
        teacher_logp=_padded([s.teacher_logp for s in steps], width, policy.device) if use_teacher else None,
        has_skill=torch.tensor([float(s.has_skill) for s in micro], device=policy.device),
        clip=rl.clip,
        dual_clip=rl.dual_clip,
        kl_coef=rl.kl_coef,
        entropy_coef=rl.entropy_coef,
        pg_coef=settings.pg_coef,
        opd_lambda=settings.opd_lambda,
        opd_beta=settings.opd_beta,
        token_count=tokens,
        opd_token_count=opd_tokens,
        opd_estimator=estimator,
        **targets,
    )
    return result, float(batch.response_mask.sum())


def lockstep_share(plan: Sequence[list[int]], ranks: Ranks) -> list[list[int] | None]:
    """This rank's micro-batches of a mini-batch (every `world`-th), padded with None to as many as the rank with
    the most holds: under FSDP every rank must run the same number of forward/backward passes."""
    mine: list[list[int] | None] = list(plan[ranks.rank :: ranks.world])
    count = -(-len(plan) // ranks.world)
    return mine + [None] * (count - len(mine))


_WEIGHT = "\0tokens"  # the token weight travels with the sums it divides

# The loss terms a non-finite value is reported by (docs/trainer.md, "Non-finite guard").
_TERM_NAMES = {"pg_loss": "pg", "kl": "kl", "opd_loss": "opd", "entropy": "entropy", "loss": "total"}
