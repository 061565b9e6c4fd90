"""What training a policy costs in device memory, and a warning before it runs out (docs/trainer.md, "Memory").

Per parameter, before activations: a full fine-tune keeps fp32 master weights (4 bytes), fp32 gradients (4) and
AdamW's two fp32 moments (8), plus the frozen KL reference in the compute dtype (2 in bf16): 18 bytes. LoRA keeps the
frozen base in the compute dtype (2 bytes; the reference is the same base with the adapters off) and 16 bytes for
each adapter parameter.
"""

from __future__ import annotations

import torch

GIB = 2**30
MASTER_BYTES = 4 + 4 + 8  # fp32 weight, fp32 gradient, AdamW exp_avg and exp_avg_sq


def training_bytes(total_params: int, trainable_params: int, compute_bytes: int, *, lora: bool) -> int:
    """Weights, gradients, optimizer state and the reference of a training policy, before activations."""
    if lora:
        return (total_params - trainable_params) * compute_bytes + trainable_params * MASTER_BYTES
    return total_params * (MASTER_BYTES + compute_bytes)


def memory_warnings(policy, config) -> list[str]:
    """One warning when the training state alone would fill most of the CUDA device (nothing on the CPU)."""
    if policy.device.type != "cuda":
        return []
    total = sum(p.numel() for p in policy.model.parameters())
    trainable = sum(p.numel() for p in policy.model.parameters() if p.requires_grad)
    compute_bytes = torch.empty((), dtype=policy.compute_dtype).element_size()
    need = training_bytes(total, trainable, compute_bytes, lora=config.model.lora is not None)
    free, capacity = torch.cuda.mem_get_info(policy.device)
    if need <= 0.8 * capacity:
        return []
    advice = "use LoRA (model.lora)" if config.model.lora is None else "use a smaller model"
    return [
        f"weights, gradients, optimizer state and reference need about {need / GIB:.1f} GiB before activations, "
        f"{need / capacity:.0%} of this device's {capacity / GIB:.1f} GiB ({free / GIB:.1f} GiB free): expect an "
        f"out-of-memory error; {advice}, and turn on model.gradient_checkpointing (docs/trainer.md, 'Memory')"
    ]
