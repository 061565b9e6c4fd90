"""What training a policy costs in device memory, and a warning before it runs out (docs/trainer.md, "Memory").

Per parameter, before activations: a full fine-tune keeps fp32 master weights (4 bytes), fp32 gradients (4) and
AdamW's two fp32 moments (8), plus the frozen KL reference in the compute dtype (2 in bf16): 18 bytes. LoRA keeps the
frozen base in the compute dtype (2 bytes; the reference is the same base with the adapters off) and 16 bytes for
each adapter parameter.

Sharded (`distributed.strategy: fsdp`, N processes), per process: the 16 bytes of master weight, gradient and AdamW
moments are split N ways; the frozen reference and the unsharded inference copy that generates and scores
(compute/sharding.py) are whole, in the compute dtype; and while the update runs, two decoder layers are all-gathered (the
one computing and the one prefetched), each in the compute dtype with its unsharded fp32 gradient before the
reduce-scatter.

`opd.estimator: expected` keeps soft targets from the teacher pass to the update (algo/estimators.py): per response
token the kept weights π_old(v)·g(v) in float32 with their int32 ids (no ids when the whole vocabulary is kept, in
order), b(s) and the left-out mass — in host memory for the whole update, and on the device one micro-batch at a time
(int64 ids, float32 weights, the gathered log-probs and their gradient).
"""

from __future__ import annotations

import os

import torch

from seed_trainer.algo.estimator_table import estimator_row
from seed_trainer.algo.estimators import resolved_top_k

GIB = 2**30
MASTER_BYTES = 4 + 4 + 8  # fp32 weight, fp32 gradient, AdamW exp_avg and exp_avg_sq
FLOAT_BYTES = 4
HOST_SHARE = 0.5  # warn when the `expected` targets of one update could take more than this share of the host's memory


def _keeps_soft_targets(config) -> bool:
    """Whether the run's estimator keeps soft targets from the teacher pass to the update (`expected`)."""
    return estimator_row(config.opd.estimator).keeps == "soft_targets"


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


def expected_target_bytes_per_token(vocab_size: int, top_k: int | None) -> int:
    """Host bytes the `expected` estimator keeps per response token until the update (`teacher.GateTargets`): the
    weights (float32) and their ids (int32) of the `top_k` kept tokens, or the whole vocabulary's weights without ids;
    plus b(s) and the tail mass (float32 each). `top_k` is `opd.expected_top_k` (None: the trainer's default)."""
    kept = resolved_top_k(vocab_size, top_k)
    per_position = vocab_size * FLOAT_BYTES if kept is None else kept * (FLOAT_BYTES + 4)
    return per_position + 2 * FLOAT_BYTES


def update_response_tokens(config) -> int:
    """The most response tokens one update can hold: every step of every episode at `rollout.max_response_tokens`."""
    ro = config.rollout
    return ro.tasks_per_update * ro.group_size * ro.max_steps * ro.max_response_tokens


def expected_host_bytes(config, vocab_size: int) -> int:
    """Host memory of one update's `expected` soft targets, at most (0 for the other estimators)."""
    if not _keeps_soft_targets(config):
        return 0
    return update_response_tokens(config) * expected_target_bytes_per_token(vocab_size, config.opd.expected_top_k)


def expected_device_bytes(config, vocab_size: int) -> int:
    """Device memory the `expected` soft targets of one micro-batch take in the update, at most (0 for the other
    estimators): int64 ids (a free broadcast view when the whole vocabulary is kept), float32 weights, and the gathered
    log-probs with their gradient, for each kept token of each response position."""
    if not _keeps_soft_targets(config):
        return 0
    kept = resolved_top_k(vocab_size, config.opd.expected_top_k)
    positions = config.rl.micro_batch_size * config.rollout.max_response_tokens
    if config.rl.micro_batch_tokens is not None:  # the token budget bounds a micro-batch's padded tokens
        positions = min(positions, config.rl.micro_batch_tokens)
    per_entry = 3 * FLOAT_BYTES + (0 if kept is None else 8)
    return positions * (vocab_size if kept is None else kept) * per_entry


def host_memory_bytes() -> int | None:
    """The machine's physical memory, where the platform tells it (None on Windows)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _expected_vocab(policy, config) -> int:
    """The vocabulary the `expected` targets are sized by (the teacher pass's output layer); 0 for other estimators."""
    if not _keeps_soft_targets(config):
        return 0
    return policy.runner.get_output_embeddings().weight.shape[0]


def expected_host_warning(policy, config, total: int | None = None) -> list[str]:
    """One warning when one update's `expected` soft targets could take more than HOST_SHARE of the host's memory."""
    need = expected_host_bytes(config, _expected_vocab(policy, config))
    total = host_memory_bytes() if total is None else total
    if need == 0 or total is None or need <= HOST_SHARE * total:
        return []
    return [
        f"opd.estimator expected keeps up to {need / GIB:.1f} GiB of soft targets in host memory per update "
        f"({update_response_tokens(config)} response tokens at most, {total / GIB:.1f} GiB on this machine): lower "
        "opd.expected_top_k, rollout.max_response_tokens or the tasks per update (docs/trainer.md, 'Memory')"
    ]


def memory_warnings(policy, config, *, shards: int = 1) -> list[str]:
    """One warning when the training state (and the `expected` estimator's soft targets of a micro-batch) would fill
    most of the CUDA device, and one when an update's `expected` targets could fill the host's memory.
    `shards`: the processes a sharded (FSDP) policy is split over."""
    host = expected_host_warning(policy, config)
    if policy.device.type != "cuda":
        return host
    total = sum(p.numel() for p in policy.model.parameters())  # a sharded parameter counts whole
    compute_bytes = torch.empty((), dtype=policy.compute_dtype).element_size()
    if shards > 1:
        from seed_trainer.compute.sharding import decoder_layers

        layers = decoder_layers(policy.model.inner)
        largest = max(sum(p.numel() for p in layer.parameters()) for layer in layers)
        need = sharded_training_bytes(total, largest, compute_bytes, shards)
    else:
        need = policy_training_bytes(policy, lora=config.model.lora is not None)
    targets = expected_device_bytes(config, _expected_vocab(policy, config))
    need += targets
    free, capacity = torch.cuda.mem_get_info(policy.device)
    if need <= 0.8 * capacity:
        return host
    advice = "use LoRA (model.lora)" if config.model.lora is None else "use a smaller model"
    if config.model.lora is None and shards == 1:
        advice += " or shard over several GPUs (distributed.strategy: fsdp)"
    with_targets = f" (with {targets / GIB:.1f} GiB of `expected` soft targets per micro-batch)" if targets else ""
    return host + [
        f"weights, gradients, optimizer state and reference need about {need / GIB:.1f} GiB before activations"
        f"{with_targets}, "
        f"{need / capacity:.0%} of this device's {capacity / GIB:.1f} GiB ({free / GIB:.1f} GiB free): expect an "
        f"out-of-memory error; {advice}, and turn on model.gradient_checkpointing (docs/trainer.md, 'Memory')"
    ]
