"""What bench/speed/roofline.py counts (issue 53): the matmul FLOPs and the least memory traffic of each phase of one
Stage-2 update, from the model's shape and the tokens the update processed. Standard library only.

Counted (useful work: real tokens, never padding):
- the decoder's linear layers: 2 FLOPs per weight per token (q, k, v, o, gate, up, down of every layer);
- the output layer: 2·hidden·vocab per position whose logits are computed (generation: one per generated token;
  scoring and the update: one per response token, as ours gathers the states that predict response tokens);
- attention: QKᵀ and AV, 4·heads·head_dim FLOPs per (query, key) pair the causal mask lets through, per layer;
- the backward pass: 2 × the forward (input and weight gradients), so an update is 3 × a forward.
Not counted: embedding look-ups, norms, rotary, softmax, activations, the loss, AdamW (no matmuls).

Traffic, a lower bound (so the arithmetic intensity is an upper bound): every pass over a batch reads every weight
once (a decoding step is one pass), as stored (fp32 master weights, bf16 autocast casts them per use), the KV cache
is read once per decoding step, and AdamW reads and writes weights, gradients and both moments once per step (28
bytes per weight). Activations are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

ADAMW_BYTES_PER_WEIGHT = 28  # read+write fp32 weight (8), read gradient (4), read+write both moments (16)


@dataclass(frozen=True)
class Shape:
    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int

    @classmethod
    def from_config(cls, config: dict) -> Shape:
        """From a Hugging Face config.json of a Llama/Qwen-style decoder."""
        heads = config["num_attention_heads"]
        return cls(
            layers=config["num_hidden_layers"],
            hidden=config["hidden_size"],
            intermediate=config["intermediate_size"],
            heads=heads,
            kv_heads=config.get("num_key_value_heads") or heads,
            head_dim=config.get("head_dim") or config["hidden_size"] // heads,
            vocab=config["vocab_size"],
        )

    @property
    def linear_weights(self) -> int:
        """Weights of the decoder's linear layers (the output layer apart)."""
        attention = self.hidden * self.head_dim * (2 * self.heads + 2 * self.kv_heads)  # q, o; k, v
        mlp = 3 * self.hidden * self.intermediate  # gate, up, down
        return self.layers * (attention + mlp)

    @property
    def output_weights(self) -> int:
        return self.hidden * self.vocab

    @property
    def kv_bytes_per_token(self) -> int:
        """fp32 K and V of one position over all layers (what a decoding step reads per cached position)."""
        return self.layers * 2 * self.kv_heads * self.head_dim * 4


@dataclass
class Work:
    """FLOPs and least traffic (bytes) of a phase, with its useful and padded token counts."""

    flops: float = 0.0
    bytes: float = 0.0
    tokens: int = 0  # useful tokens run through the decoder
    padded_tokens: int = 0  # tokens computed on padding (rows padded to the longest in their batch)
    passes: int = 0  # weight reads: forward passes (scoring, update) or decoding steps (generation)
    # Of flops and bytes, the part in generation's decoding steps (one token per row per weight read): a step's own
    # intensity is ~2·rows FLOPs per weight byte read, far below any balance, so those steps are memory-bound even
    # where the phase as a whole (its prefill) is not.
    decoding_flops: float = 0.0
    decoding_bytes: float = 0.0

    def add(self, other: Work) -> Work:
        return Work(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Work)))

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0

    def bound_seconds(self, peak_flops: float, bandwidth: float) -> float:
        """The roofline's least time: the decoding part and the rest each at the slower of compute and memory."""
        rest = max((self.flops - self.decoding_flops) / peak_flops, (self.bytes - self.decoding_bytes) / bandwidth)
        return rest + max(self.decoding_flops / peak_flops, self.decoding_bytes / bandwidth)


def causal_pairs(length: int) -> int:
    """(query, key) pairs of a causal pass over `length` tokens: 1 + 2 + … + length."""
    return length * (length + 1) // 2


def forward_flops(shape: Shape, tokens: int, logit_positions: int, pairs: int) -> float:
    return (
        2 * shape.linear_weights * tokens
        + 2 * shape.output_weights * logit_positions
        + 4 * shape.layers * shape.heads * shape.head_dim * pairs
    )


def scoring_work(
    shape: Shape,
    rows: Sequence[tuple[int, int]],
    batches: Sequence[Sequence[int]],
    weight_bytes: int,
    *,
    factor: int = 1,
) -> Work:
    """Forward passes (× `factor`: 3 for forward and backward) over `rows` of (prompt tokens, response tokens), in
    `batches` (lists of row indices, one pass each): every token through the decoder, logits at the response positions."""
    flops = sum(forward_flops(shape, p + r, r, causal_pairs(p + r)) for p, r in rows) * factor
    tokens = sum(p + r for p, r in rows)
    padded = sum(len(batch) * max(sum(rows[i]) for i in batch) for batch in batches) - tokens
    traffic = len(batches) * (shape.linear_weights + shape.output_weights) * weight_bytes * factor
    return Work(flops, traffic, tokens, padded, len(batches))


def generation_work(shape: Shape, batches: Sequence[Sequence[tuple[int, int]]], weight_bytes: int) -> Work:
    """Batched KV-cache generation: per batch a prefill of every prompt and one decoding step per generated token
    until its longest response ends; `batches` holds each batch's rows of (prompt tokens, response tokens)."""
    work = Work()
    for rows in batches:
        longest = max(r for _, r in rows)
        width = max(p for p, _ in rows)
        flops = prefill = 0.0
        for p, r in rows:
            decoded = max(r - 1, 0)  # the prefill samples the first token
            pairs = causal_pairs(p) + decoded * p + causal_pairs(decoded)
            flops += forward_flops(shape, p + decoded, r, pairs)
            prefill += forward_flops(shape, p, 1, causal_pairs(p))
        decoding = max(longest - 1, 0)  # steps after the prefill
        tokens = sum(p + max(r - 1, 0) for p, r in rows)
        computed = len(rows) * (width + decoding)  # left-padded prompts, finished rows still stepped
        # step j reads the cache of width + j positions of every row
        kv = len(rows) * shape.kv_bytes_per_token * (width * decoding + causal_pairs(decoding))
        steps = 1 + decoding
        weights = (shape.linear_weights + shape.output_weights) * weight_bytes
        traffic = steps * weights + kv
        work = work.add(
            Work(flops, traffic, tokens, computed - tokens, steps, flops - prefill, decoding * weights + kv)
        )
    return work


def update_work(
    shape: Shape,
    rows: Sequence[tuple[int, int]],
    batches: Sequence[Sequence[int]],
    optimizer_steps: int,
    weight_bytes: int,
) -> Work:
    """The PPO update: forward and backward of every micro-batch, and AdamW's traffic per optimizer step."""
    work = scoring_work(shape, rows, batches, weight_bytes, factor=3)
    work.bytes += optimizer_steps * (shape.linear_weights + shape.output_weights) * ADAMW_BYTES_PER_WEIGHT
    return work


def verdict(work: Work, seconds: float, peak_flops: float, balance: float, bandwidth: float) -> dict:
    """Achieved FLOP/s against the peak, the arithmetic intensity against the machine balance, and the measured time
    against the roofline's least time (decoding steps memory-bound apart)."""
    achieved = work.flops / seconds if seconds > 0 else 0.0
    computed = work.tokens + work.padded_tokens
    bound = work.bound_seconds(peak_flops, bandwidth)
    return {
        "seconds": round(seconds, 3),
        "gflop": round(work.flops / 1e9, 3),
        "traffic_gb": round(work.bytes / 1e9, 3),
        "achieved_gflops": round(achieved / 1e9, 2),
        "share_of_peak": round(achieved / peak_flops, 3) if peak_flops else None,
        "arithmetic_intensity": round(work.intensity, 1),
        "machine_balance": round(balance, 1),
        "compute_bound": work.intensity > balance,
        "tokens": work.tokens,
        "padding_share": round(work.padded_tokens / computed, 3) if computed else 0.0,
        "weight_passes": work.passes,
        "decoding_share_of_flops": round(work.decoding_flops / work.flops, 3) if work.flops else 0.0,
        "roofline_seconds": round(bound, 3),
        "share_of_roofline": round(bound / seconds, 3) if seconds > 0 else None,
    }
