"""What training a policy costs in device memory, and a warning before it runs out (docs/trainer.md, "Memory").

Per parameter, before activations: a full fine-tune keeps fp32 master weights (4 bytes), fp32 gradients (4) and
AdamW's two fp32 moments (8), plus the frozen KL reference in the compute dtype (2 in bf16): 18 bytes. LoRA keeps the
frozen base in the compute dtype (2 bytes; the reference is the same base with the adapters off) and 16 bytes for
each adapter parameter.

Sharded (`distributed.strategy: fsdp`, N processes), per process: the 16 bytes of master weight, gradient and AdamW
moments are split N ways; the frozen reference and the unsharded inference copy that generates and scores
(sharding.py) are whole, in the compute dtype; and while the update runs, two decoder layers are all-gathered (the
one computing and the one prefetched), each in the compute dtype with its unsharded fp32 gradient before the
reduce-scatter.
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


def sharded_training_bytes(total_params: int, largest_layer_params: int, compute_bytes: int, shards: int) -> int:
    """Per process of a full fine-tune sharded over `shards` processes (FSDP), before activations."""
    sharded_state = -(-total_params * MASTER_BYTES // shards)  # ceil: the last shard is padded to the others' size
    whole_copies = total_params * 2 * compute_bytes  # the frozen reference and the inference copy
    gathered_layers = 2 * largest_layer_params * (compute_bytes + 4)
    return sharded_state + whole_copies + gathered_layers


def policy_training_bytes(policy, *, lora: bool) -> int:
    """`training_bytes` of a loaded policy. Parameters are counted as `parameters()` lists them: a tensor shared by
    two modules (tied input and output embeddings, as SmolLM2 and Qwen2.5-0.5B have) once, as the optimizer sees it."""
    total = sum(p.numel() for p in policy.model.parameters())
    trainable = sum(p.numel() for p in policy.model.parameters() if p.requires_grad)
    compute_bytes = torch.empty((), dtype=policy.compute_dtype).element_size()
    return training_bytes(total, trainable, compute_bytes, lora=lora)


def memory_warnings(policy, config, *, shards: int = 1) -> list[str]:
    """One warning when the training state alone would fill most of the CUDA device (nothing on the CPU).
    `shards`: the processes a sharded (FSDP) policy is split over."""
    if policy.device.type != "cuda":
        return []
    total = sum(p.numel() for p in policy.model.parameters())  # a sharded parameter counts whole
    compute_bytes = torch.empty((), dtype=policy.compute_dtype).element_size()
    if shards > 1:
        from seed_trainer.sharding import decoder_layers

        layers = decoder_layers(policy.model.inner)
        largest = max(sum(p.numel() for p in layer.parameters()) for layer in layers)
        need = sharded_training_bytes(total, largest, compute_bytes, shards)
    else:
        need = policy_training_bytes(policy, lora=config.model.lora is not None)
    free, capacity = torch.cuda.mem_get_info(policy.device)
    if need <= 0.8 * capacity:
        return []
    advice = "use LoRA (model.lora)" if config.model.lora is None else "use a smaller model"
    if config.model.lora is None and shards == 1:
        advice += " or shard over several GPUs (distributed.strategy: fsdp)"
    return [
        f"weights, gradients, optimizer state and reference need about {need / GIB:.1f} GiB before activations, "
        f"{need / capacity:.0%} of this device's {capacity / GIB:.1f} GiB ({free / GIB:.1f} GiB free): expect an "
        f"out-of-memory error; {advice}, and turn on model.gradient_checkpointing (docs/trainer.md, 'Memory')"
    ]
