"""The AdamW that Stage-1 SFT, the Stage-2 update and agent SFT step with.

torch's default AdamW loops over the parameters in Python on CPU tensors; its fused kernel does each parameter group
in one pass (TRL's default, through transformers' `adamw_torch_fused`). On SmolLM2-135M's 272 tensors one step took
0.56 s the first way and 0.085 s fused, on one CPU thread (bench/speed/optimizer_step.py,
bench/results/optimizer_step.json). The fused kernel computes the same update in another order of operations:
weights agree within ~1e-7 after a few steps, not bit for bit, so a run made before it repeats to that precision
only. Plain CPU or CUDA tensors of a float dtype only: FSDP's sharded parameters (DTensors) keep torch's default.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch.distributed.tensor import DTensor

FUSED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def fusable(params: list[torch.Tensor]) -> bool:
    """Whether torch's fused AdamW kernel can step every one of `params`."""
    return bool(params) and all(
        not isinstance(p, DTensor) and p.device.type in ("cpu", "cuda") and p.dtype in FUSED_DTYPES for p in params
    )


def adamw(params: Iterable[torch.nn.Parameter], *, lr: float, weight_decay: float) -> torch.optim.AdamW:
    params = list(params)
    return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, fused=True if fusable(params) else None)
