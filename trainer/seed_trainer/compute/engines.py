"""What generates: the policy itself (Hugging Face generate, `rollout.engine: hf`) or a vLLM engine beside it.

Both answer `generate(prompt_ids, max_new_tokens, ...) -> list[Generation]` with the same meaning (plain temperature
sampling, the policy's stop tokens, optional log-probs of the sampled tokens), so the rollout loop, self-analysis and
evaluation take either. The vLLM engine lives in `vllm_engine` and is imported only when chosen: vLLM is an extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import torch

from seed_trainer.compute.policy import Generation, Policy

if TYPE_CHECKING:
    from seed_trainer.compute.vllm_engine import VllmEngine
    from seed_trainer.experiment.config import ExperimentConfig


class Generator(Protocol):
    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        max_new_tokens: int,
        temperature: float = 1.0,
        greedy: bool = False,
        batch_size: int = 64,
        with_logprobs: bool = False,
        min_new_tokens: int = 0,
    ) -> list[Generation]: ...


def open_engine(policy: Policy, config: ExperimentConfig) -> VllmEngine | None:
    """The vLLM engine of `rollout.engine: vllm` (holding the policy's current weights), or None for `hf`."""
    if config.rollout.engine == "hf":
        return None
    from seed_trainer.compute.vllm_engine import VllmEngine

    return VllmEngine.start(policy, config)


def logprob_agreement(sampled: Sequence[torch.Tensor], scored: Sequence[torch.Tensor]) -> dict[str, float]:
    """How far the engine's log-probs of the sampled tokens are from the trainer's scoring of the same tokens:
    the largest and the mean absolute difference over all tokens (as verl's rollout-vs-actor probability check).
    A large value means the engine samples from other weights or another distribution than the one trained on."""
    diffs = [(a.float() - b.float()).abs() for a, b in zip(sampled, scored) if a.numel()]
    if not diffs:
        return {}
    flat = torch.cat(diffs)
    return {"rollout/logprob_diff_max": float(flat.max()), "rollout/logprob_diff_mean": float(flat.mean())}
