"""Sharded full fine-tuning under torchrun (`distributed.strategy: fsdp`; docs/trainer.md, "Several processes").

FSDP2 (`torch.distributed.fsdp.fully_shard`): each decoder layer is one shard group and a small root module
(`ShardedPolicyModel`) holds the rest (embeddings, final norm, output layer), so every process keeps 1/N of the fp32
master weights, their gradients and AdamW's moments. On CUDA in bf16 the groups are all-gathered in bf16 and gradients
reduce-scattered in fp32 (`MixedPrecisionPolicy`): the fp32 master weights stay sharded, as `compute/precision.py` keeps them
in one process.

A sharded forward is a collective: every process must run it the same number of times. Rollouts, scoring, analysis,
the teacher pass and evaluation run on each rank's own task groups (different numbers of calls, `generate` stopping
at different lengths), so they run on an unsharded *inference copy* in the compute dtype, refreshed from the shards
after every update (`refresh_inference_copy`, one parameter all-gathered at a time) — the weights a sharded forward
computes with (bf16 under the mixed-precision policy, fp32 on the CPU). Only the PPO update runs sharded, in lockstep
(rl/update.py pads a rank's micro-batches to the same count).

The root module exists because the update's log-prob pass calls the decoder and the output layer separately (never
the full-vocabulary logits of every position): FSDP's root hooks must wrap both calls, so they live in one forward.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import torch
from torch import nn

from seed_trainer.compute.response_scoring import ShardedPolicyModel, is_sharded

DCP_DIR = "distributed"  # the checkpoint's sharded model + optimizer state (torch.distributed.checkpoint)


class ShardingError(RuntimeError):
    """A model or setting FSDP cannot shard (said with what to change)."""


def decoder_layers(model: nn.Module) -> list[nn.Module]:
    """The repeated blocks of a Hugging Face decoder (`model.get_decoder().layers`)."""
    decoder = model.get_decoder() if hasattr(model, "get_decoder") else None
    layers = getattr(decoder, "layers", None)
    if not isinstance(layers, nn.ModuleList) or len(layers) == 0:
        raise ShardingError(
            f"distributed.strategy fsdp: {type(model).__name__} has no decoder layers at get_decoder().layers to "
            "shard; use distributed.strategy: replicate"
        )
    return list(layers)


def mixed_precision(device: torch.device, compute_dtype: torch.dtype):
    """bf16 all-gathers with fp32 gradient reduction when computing in bf16; None (plain fp32) otherwise."""
    from torch.distributed.fsdp import MixedPrecisionPolicy

    if compute_dtype == torch.float16:
        raise ShardingError(
            "distributed.strategy fsdp needs model.dtype bfloat16 or float32: float16 training needs a loss scaler "
            "that is not sharded here (set model.dtype, or use distributed.strategy: replicate)"
        )
    if compute_dtype == torch.bfloat16:  # CUDA's case; the CPU takes the same path (what the tests exercise)
        return MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    return None


def shard_policy(policy) -> None:
    """Shard `policy.model` in place (per decoder layer, then the root) and give the policy its inference copy.
    Every rank must hold the same weights first (dist.copy_weights_from_main)."""
    from torch.distributed.fsdp import fully_shard

    model = policy.model
    if hasattr(model, "peft_config"):
        raise ShardingError("distributed.strategy fsdp shards a full fine-tune; LoRA trains with replicate")
    layers = decoder_layers(model)
    policy_dtype = mixed_precision(policy.device, policy.compute_dtype)
    options: dict[str, Any] = {} if policy_dtype is None else {"mp_policy": policy_dtype}
    # What generates and scores between updates: whole weights in the dtype a sharded forward computes in.
    inference_dtype = policy_dtype.param_dtype if policy_dtype is not None else torch.float32
    policy.inference_model = copy.deepcopy(model).to(inference_dtype).eval().requires_grad_(False)
    for layer in layers:
        fully_shard(layer, **options)
    root = ShardedPolicyModel(model)
    fully_shard(root, **options)
    policy.model = root


def _full(tensor: torch.Tensor) -> torch.Tensor:
    from torch.distributed.tensor import DTensor

    return tensor.full_tensor() if isinstance(tensor, DTensor) else tensor


def full_named_parameters(model: nn.Module):
    """(name, whole tensor) of a sharded model's parameters under the Hugging Face names, all-gathered one at a time
    (every rank must iterate them all, in the same order)."""
    for name, param in model.inner.named_parameters():
        yield name, _full(param.detach())


@torch.no_grad()
def refresh_inference_copy(policy) -> None:
    """Copy the sharded weights into the inference copy, one parameter all-gathered at a time (every rank calls it,
    in the same order)."""
    target = dict(policy.inference_model.named_parameters())
    for name, tensor in full_named_parameters(policy.model):
        target[name].copy_(tensor)


def local_tensor(tensor: torch.Tensor) -> torch.Tensor:
    """This rank's shard of a sharded tensor; the tensor itself otherwise (checks that need no collective)."""
    from torch.distributed.tensor import DTensor

    return tensor.to_local() if isinstance(tensor, DTensor) else tensor


def local_bytes(tensors) -> int:
    """Bytes this rank holds of `tensors` (its shards of sharded ones)."""
    return sum(local_tensor(t).numel() * local_tensor(t).element_size() for t in tensors)


# -- checkpoints ----------------------------------------------------------------------------------------------------


def _hf_model(model: nn.Module) -> nn.Module:
    """The Hugging Face model inside the FSDP root: checkpoints name the tensors as an unsharded policy does, so one
    process can load a sharded run's checkpoint."""
    return model.inner if is_sharded(model) else model


def save_sharded(directory: Path, policy, optimizer: torch.optim.Optimizer, *, main: bool) -> None:
    """Every rank: its shards of the model and of the optimizer state into `directory/distributed`
    (torch.distributed.checkpoint); rank 0 (`main`) also the Hugging Face export of the full fp32 weights."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict, get_state_dict

    model_state, optimizer_state = get_state_dict(_hf_model(policy.model), optimizer)
    dcp.save({"model": model_state, "optimizer": optimizer_state}, checkpoint_id=str(Path(directory) / DCP_DIR))
    full = get_model_state_dict(policy.model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    if main:
        model = policy.model.inner
        # a tied output layer is the embedding: saved once, under the name Hugging Face saves it by
        kept = {name for name, _ in model.named_parameters()} | {name for name, _ in model.named_buffers()}
        inner = {name: tensor for key, tensor in full.items() if (name := key.removeprefix("inner.")) in kept}
        model.save_pretrained(directory, state_dict=inner)
        policy.tokenizer.save_pretrained(directory)


def load_sharded(directory: Path, policy, optimizer: torch.optim.Optimizer) -> None:
    """Every rank: its shards of the model and optimizer state from `directory/distributed` (written by any number
    of ranks: DCP reshards; an unsharded policy in one process gets the whole tensors), then a fresh inference copy."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    source = Path(directory) / DCP_DIR
    if not (source / ".metadata").is_file():
        raise ShardingError(
            f"{directory}: no sharded state ({DCP_DIR}/.metadata); it was not written with distributed.strategy "
            "fsdp — resume it with the strategy it was trained with"
        )
    model = _hf_model(policy.model)
    model_state, optimizer_state = get_state_dict(model, optimizer)
    state = {"model": model_state, "optimizer": optimizer_state}
    dcp.load(state, checkpoint_id=str(source))
    set_state_dict(model, optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"])
    if policy.inference_model is not None:
        refresh_inference_copy(policy)
