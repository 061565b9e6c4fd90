"""The premise check's statistics (`python -m seed_trainer premise`, docs/premise.md): does a hindsight skill in the
prompt raise the log-probability of what worked and lower that of what went wrong?

Δ of one response is ℓ^skill − ℓ^plain per token: the teacher prompt H(h, s) against the plain prompt h, the same
response tokens. The per-step scalar sums Δ over the action tokens (the text inside <action>…</action>); the whole
response's sum is a secondary column. Pure functions: no model, no torch.

- `win_rate`: P(Δ(a*) > Δ(m)) over (expert, mistake) pairs of the same state, ties counting ½.
- `auc`: P(Δ of a step of a successful episode > Δ of a step of a failed one) — the Mann–Whitney statistic, ties ½.
- `cluster_interval`: a percentile bootstrap that resamples whole tasks (steps of one task are not independent).
- `token_kinds` and the neutral band: where the gate leaves the band the trajectory viewer leaves uncoloured.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from seed_trainer.algo.actions import ACTION_CLOSE, ACTION_OPEN, THINK_CLOSE, THINK_OPEN

Row = TypeVar("Row")

# The trajectory viewer's absolute scales (src/trajectory/shared/colorScale.ts) have 21 bins, the centre one
# uncoloured: Δ over ±2 nats leaves it at |Δ| ≥ 2/20, the gate over [0, 1] at |g − ½| ≥ 1/40. Shared case table:
# test/fixtures/premise/neutral-band.json.
NEUTRAL_DELTA = 0.1
NEUTRAL_GATE = 0.025


@dataclass(frozen=True)
class Scored:
    """Per-token Δ = ℓ^skill − ℓ^plain of one response, with the token kinds."""

    delta: tuple[float, ...]
    kinds: tuple[str, ...]

    @property
    def action_sum(self) -> float:
        return sum(d for d, k in zip(self.delta, self.kinds) if k == "action")

    @property
    def total(self) -> float:
        return sum(self.delta)


def win_rate(pairs: Sequence[tuple[float, float]]) -> float:
    """P(first > second) over the pairs, a tie counting ½; NaN without pairs."""
    if not pairs:
        return math.nan
    return sum(1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs) / len(pairs)


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """P(X > Y) for X drawn from `positive` and Y from `negative`, ties ½ (rank form, O(n log n)); NaN if one is
    empty."""
    if not positive or not negative:
        return math.nan
    ranked = sorted([(v, 1) for v in positive] + [(v, 0) for v in negative])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid_rank = (i + 1 + j) / 2  # ranks i+1 … j share their mean
        rank_sum += mid_rank * sum(flag for _, flag in ranked[i:j])
        i = j
    n_pos, n_neg = len(positive), len(negative)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def cluster_interval(
    clusters: Mapping[Hashable, Sequence[Row]],
    statistic: Callable[[list[Row]], float],
    *,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of `statistic` over the pooled rows, resampling whole clusters (tasks) with
    replacement; resamples where the statistic is NaN (e.g. no failed step drawn) are left out. (NaN, NaN) when fewer
    than two clusters or no finite resample."""
    keys = sorted(clusters, key=str)
    if len(keys) < 2:
        return math.nan, math.nan
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        rows: list[Row] = []
        for _k in keys:
            rows.extend(clusters[keys[rng.randrange(len(keys))]])
        value = statistic(rows)
        if not math.isnan(value):
            values.append(value)
    if not values:
        return math.nan, math.nan
    values.sort()
    tail = (1 - level) / 2
    return _quantile(values, tail), _quantile(values, 1 - tail)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    at = q * (len(ordered) - 1)
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def token_kinds(text: str, offsets: Sequence[tuple[int, int]]) -> list[str]:
    """The kind of each token of a response from its character span: `action` when it holds text of the first
    <action>…</action> block's content, else `think` when it holds text of the first <think>…</think> block's, else
    `format` (tags alone, text outside both blocks, end-of-turn tokens with an empty span). A token that straddles a
    tag (a tokenizer with long tokens writes ` countertop 1</action>` as one) counts with the block whose text it holds,
    so the action's Δ is all in `action`. Tags match case-insensitively, as the action parser's."""
    lowered = text.lower()

    def block(open_tag: str, close_tag: str) -> tuple[int, int]:
        start = lowered.find(open_tag)
        if start == -1:
            return (0, 0)
        end = lowered.find(close_tag, start + len(open_tag))
        return (start + len(open_tag), end) if end != -1 else (0, 0)

    def holds(span: tuple[int, int], start: int, end: int) -> bool:
        return max(span[0], start) < min(span[1], end)

    action, think = block(ACTION_OPEN, ACTION_CLOSE), block(THINK_OPEN, THINK_CLOSE)
    return [
        "action" if holds(action, start, end) else "think" if holds(think, start, end) else "format"
        for start, end in offsets
    ]


def decoded_spans(decode: Callable[[list[int]], str], ids: Sequence[int]) -> tuple[str, list[tuple[int, int]]]:
    """The text of `ids` and each token's character span in it, from decoding growing prefixes (`decode` should skip
    special tokens: they get empty spans). Quadratic in the length: meant for one response of a few dozen tokens."""
    ends = [len(decode(list(ids[: k + 1]))) for k in range(len(ids))]
    return decode(list(ids)), list(zip([0, *ends[:-1]], ends))


def response_kinds(decode: Callable[[list[int]], str], ids: Sequence[int]) -> list[str]:
    """`token_kinds` of a response given as token ids, from the spans `decoded_spans` finds."""
    return token_kinds(*decoded_spans(decode, ids))


def gate(delta: float, beta: float) -> float:
    """g = σ(β·Δ), the distillation gate of one token."""
    z = beta * delta
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def outside_neutral(deltas: Sequence[float], beta: float) -> int:
    """How many tokens' gates the viewer would colour (|g − ½| ≥ NEUTRAL_GATE)."""
    return sum(1 for d in deltas if abs(gate(d, beta) - 0.5) >= NEUTRAL_GATE)


def placebo_donors(outcomes: Sequence[bool], types: Sequence[str]) -> list[int | None]:
    """For each item (a task's attempt), whose skill is its placebo: the next other item in cyclic order with the same
    outcome and another task type; failing that, the next other one with the same outcome; None when no other item
    has that outcome."""
    n = len(outcomes)
    donors: list[int | None] = []
    for i in range(n):
        ring = [(i + k) % n for k in range(1, n)]
        same = [j for j in ring if outcomes[j] == outcomes[i]]
        other_type = [j for j in same if types[j] != types[i]]
        donors.append(other_type[0] if other_type else same[0] if same else None)
    return donors
