"""Mixed precision and the non-finite guard (docs/trainer.md, "Mixed precision" and "Non-finite guard").

As verl's FSDP mixed precision and TRL do it: master weights and optimizer state in fp32, forward and backward under
`torch.autocast` in the compute dtype (bf16; fp16 with a dynamic grad scaler on GPUs without bf16). AdamW on bf16
weights cannot hold steps of lr 1e-6 (a bf16 weight of magnitude 0.02 moves in steps of 1.2e-4), so pure-bf16
training silently does not learn.

A non-finite loss or gradient norm skips that optimizer step (verl's rule) instead of letting `clip_grad_norm_` scale
every gradient by NaN and AdamW write NaN into every weight; several skipped steps in a row fail the run with the
update and the term that went non-finite. A checkpoint is never written from non-finite weights.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import torch
from torch.distributed.tensor import DTensor


class NonFiniteError(RuntimeError):
    """A NaN or infinity where training cannot go on: logits while generating, log-probs, weights, or too many
    skipped optimizer steps in a row."""


def autocast(device: torch.device, dtype: torch.dtype):
    """Autocast to `dtype` on `device`, or nothing when computing in fp32."""
    if dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def grad_scaler(device: torch.device, dtype: torch.dtype) -> torch.amp.GradScaler:
    """A dynamic loss scaler for fp16 (its gradients underflow without one); a pass-through otherwise."""
    return torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)


def configure_attention_kernels(device: torch.device, dtype: torch.dtype) -> None:
    """Turn off PyTorch's cuDNN attention backend for half-precision training on CUDA.

    Its backward pass (the default SDPA backend on Hopper GPUs since torch 2.11) returns NaN in dQ when an attention
    mask is passed, the sequence length is 64 modulo 128, and a query row's log-sum-exp is below −88.7 (pytorch
    issue #196678). Every left-padded query row of our batches attends to nothing, so its log-sum-exp is −∞: one
    micro-batch of such a width poisons the whole gradient. The memory-efficient and flash kernels are not affected.
    `SEED_CUDNN_ATTENTION=1` keeps the cuDNN backend (for a torch/cuDNN that has the fix).
    """
    if device.type != "cuda" or dtype == torch.float32 or os.environ.get("SEED_CUDNN_ATTENTION") == "1":
        return
    if hasattr(torch.backends.cuda, "enable_cudnn_sdp"):
        torch.backends.cuda.enable_cudnn_sdp(False)


def loss_terms_not_finite(terms: Mapping[str, torch.Tensor | float]) -> list[str]:
    """Names of the loss terms whose value is NaN or infinite."""
    return [name for name, value in terms.items() if not math.isfinite(float(value))]


def _local(tensor: torch.Tensor) -> torch.Tensor:
    """This process's shard of a sharded (FSDP) tensor: a check that runs on one rank must not start a collective."""
    return tensor.to_local() if isinstance(tensor, DTensor) else tensor


def first_non_finite_grad(named_parameters: Iterable[tuple[str, torch.nn.Parameter]]) -> str | None:
    """The name of the first parameter whose gradient holds a NaN or infinity (for the error message)."""
    for name, param in named_parameters:
        if param.grad is not None and not bool(torch.isfinite(_local(param.grad)).all()):
            return name
    return None


def first_non_finite_weight(model: torch.nn.Module) -> str | None:
    for name, param in model.named_parameters():
        if not bool(torch.isfinite(_local(param.detach())).all()):
            return name
    return None


@dataclass
class StepOutcome:
    grad_norm: float  # before clipping; NaN/inf when the step was skipped for it
    skipped: bool
    reason: str | None  # what went non-finite: "loss term pg", "gradient (first in model.layers.0…)", …


def guarded_step(
    optimizer: torch.optim.Optimizer,
    model: torch.nn.Module,
    max_norm: float,
    scaler: torch.amp.GradScaler,
    bad_terms: Iterable[str] = (),
) -> StepOutcome:
    """Clip and take one optimizer step, unless a loss term or the gradient norm is not finite: then drop the
    gradients, take no step, and say why. `bad_terms` are the loss terms already seen non-finite (their micro-batch
    was not back-propagated)."""
    params = [p for p in model.parameters() if p.requires_grad]
    bad_terms = sorted(set(bad_terms))
    scaler.unscale_(optimizer)
    # clip_grad_norm_ in its two halves, so that a sharded (FSDP) norm is reduced over the ranks before it scales
    total = torch.nn.utils.get_total_norm([p.grad for p in params if p.grad is not None], 2.0)
    total = total.full_tensor() if isinstance(total, DTensor) else total
    torch.nn.utils.clip_grads_with_norm_(params, max_norm, total)
    norm = float(total)
    reason = None
    if bad_terms:
        reason = "loss " + ", ".join(bad_terms)
    elif not math.isfinite(norm):
        where = first_non_finite_grad((n, p) for n, p in model.named_parameters() if p.requires_grad)
        reason = f"gradient ({where or 'norm'})"
        if scaler.is_enabled():
            reason += "; fp16 loss scale lowered"
    if reason is not None:
        optimizer.zero_grad(set_to_none=True)
        if scaler.is_enabled():
            scaler.update()  # found_inf from unscale_ lowers the scale
        return StepOutcome(norm, True, reason)
    scaler.step(optimizer)
    scaler.update()
    return StepOutcome(norm, False, None)


class NonFiniteGuard:
    """Counts skipped optimizer steps; `patience` skipped steps in a row fail the run."""

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.in_a_row = 0

    def record(self, outcome: StepOutcome, where: str = "") -> None:
        if not outcome.skipped:
            self.in_a_row = 0
            return
        self.in_a_row += 1
        if self.in_a_row >= self.patience:
            raise NonFiniteError(
                f"{where + ': ' if where else ''}{self.in_a_row} optimizer steps in a row skipped, the last for a non-finite "
                f"{outcome.reason}; training stopped (try a lower learning rate, model.dtype: float32, or see "
                "docs/trainer.md, 'Non-finite guard')"
            )


def check_finite_weights(model: torch.nn.Module, where: str) -> None:
    """Raise instead of saving NaN weights."""
    name = first_non_finite_weight(model)
    if name is not None:
        raise NonFiniteError(f"{where}: weight {name} is not finite; nothing saved")
