"""Layout and log-probs of a scored batch of prompt + response rows.

Each row is its prompt and response, right-padded, with **no attention mask** — causal attention never looks to the
right, so padding at the end changes nothing for the real tokens, and the attention runs its unmasked causal kernel
(faster on CPU and GPU; and no query row is ever fully masked, the condition under which cuDNN's attention backward
returns NaN). The decoder's hidden states at the positions that predict response tokens are gathered into a [B, R]
response-aligned block, so the output layer only ever sees R positions per row — never the full-vocabulary logits of
the whole sequence. Log-probs are taken in fp32 from the logits (`algo.logprobs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from transformers import PreTrainedModel

from seed_trainer.algo.estimators import soft_target_logp
from seed_trainer.algo.logprobs import entropy_from_logits, selective_log_softmax


@dataclass
class PackedBatch:
    input_ids: torch.Tensor  # [B, T]: prompt + response, right-padded
    response_starts: torch.Tensor  # [B]: the column of each row's first response token (= its prompt length)
    responses: torch.Tensor  # [B, R] (pad where response_mask is 0)
    response_mask: torch.Tensor  # [B, R] float

    @property
    def response_length(self) -> int:
        return self.responses.shape[1]


def pack(prompts: Sequence[Sequence[int]], responses: Sequence[Sequence[int]], pad_id: int, device) -> PackedBatch:
    """Each row prompt + response, right-padded to the longest row; responses also as a right-padded [B, R] block."""
    if any(len(p) == 0 for p in prompts):
        raise ValueError("every scored row needs a non-empty prompt (its last token predicts the first response token)")
    width = max(len(p) + len(r) for p, r in zip(prompts, responses))
    response_len = max(1, max(len(r) for r in responses))
    rows, resp_rows, resp_masks = [], [], []
    for prompt, response in zip(prompts, responses):
        rows.append(list(prompt) + list(response) + [pad_id] * (width - len(prompt) - len(response)))
        right = response_len - len(response)
        resp_rows.append(list(response) + [pad_id] * right)
        resp_masks.append([1.0] * len(response) + [0.0] * right)
    return PackedBatch(
        input_ids=torch.tensor(rows, dtype=torch.long, device=device),
        response_starts=torch.tensor([len(p) for p in prompts], dtype=torch.long, device=device),
        responses=torch.tensor(resp_rows, dtype=torch.long, device=device),
        response_mask=torch.tensor(resp_masks, dtype=torch.float32, device=device),
    )


def response_logits(model: PreTrainedModel, batch: PackedBatch, temperature: float = 1.0) -> torch.Tensor:
    """Next-token logits [B, R, V] at the positions that predict the batch's response tokens, divided by the sampling
    temperature. Not for a sharded model (its forward returns log-probs only)."""
    hidden = response_hidden(model, batch)
    logits = model.get_output_embeddings()(hidden)
    return logits / temperature if temperature != 1.0 else logits


def response_hidden(model: PreTrainedModel, batch: PackedBatch) -> torch.Tensor:
    """The decoder's last hidden states [B, R, H] at the positions that predict the response tokens."""
    hidden = model.get_decoder()(input_ids=batch.input_ids, use_cache=False).last_hidden_state  # [B, T, H]
    # Position i predicts token i+1: response token j of a row is predicted at column start − 1 + j.
    columns = batch.response_starts.unsqueeze(1) - 1 + torch.arange(batch.response_length, device=hidden.device)
    columns = columns.clamp(max=hidden.shape[1] - 1)  # padding past a short row's end: masked out later
    return hidden.gather(1, columns.unsqueeze(-1).expand(-1, -1, hidden.shape[-1]))  # [B, R, H]


def response_logprobs(
    model: PreTrainedModel, batch: PackedBatch, temperature: float = 1.0, with_entropy: bool = False
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-probs [B, R] of the batch's response tokens (and their entropies) under `model`.

    Logits are divided by the sampling temperature, so the log-probs are those of the distribution that sampled.
    A sharded model (`ShardedPolicyModel`, below) computes the same in its own forward, where FSDP's hooks wrap it.
    """
    if is_sharded(model):
        return model(batch.input_ids, batch.response_starts, batch.responses, temperature, with_entropy)
    logits = response_logits(model, batch, temperature)
    logp = selective_log_softmax(logits, batch.responses)
    entropy = entropy_from_logits(logits) if with_entropy else None
    return logp, entropy


def response_logprobs_with_targets(
    model: PreTrainedModel,
    batch: PackedBatch,
    target_ids: torch.Tensor,
    temperature: float = 1.0,
    with_entropy: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
    """`response_logprobs` and also log π_θ(v|s) [B, R, k] at `target_ids` [B, R, k] (the `expected` estimator's soft
    targets), with gradient, from the same logits (algo/estimators.soft_target_logp)."""
    if is_sharded(model):  # experiment/config.py refuses `opd.estimator: expected` with `distributed.strategy: fsdp`
        raise ValueError("the `expected` OPD estimator is not available with FSDP sharding")
    logits = response_logits(model, batch, temperature)
    logp = selective_log_softmax(logits, batch.responses)
    entropy = entropy_from_logits(logits) if with_entropy else None
    return logp, entropy, soft_target_logp(logits, batch.responses, logp, target_ids)


class ShardedPolicyModel(nn.Module):
    """The FSDP root around a causal LM (compute/sharding.py wraps it): its forward is the update's response log-prob pass.
    It lives here so that scoring and sharding import one way (sharding → response_scoring)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.inner = model

    @property
    def config(self):
        return self.inner.config

    def forward(self, input_ids, response_starts, responses, temperature: float, with_entropy: bool):
        mask = torch.ones_like(responses, dtype=torch.float32)  # not read: response_logprobs needs the shape only
        batch = PackedBatch(input_ids, response_starts, responses, mask)
        logp, entropy = response_logprobs(self.inner, batch, temperature, with_entropy)
        # not views: FSDP hooks its backward onto the outputs, and a view invites an in-place op that would drop it
        return logp.clone(), entropy.clone() if entropy is not None else None


def is_sharded(model: nn.Module) -> bool:
    return isinstance(model, ShardedPolicyModel)
