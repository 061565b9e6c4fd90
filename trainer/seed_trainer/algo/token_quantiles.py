"""Quantiles of per-token values (g, Δ) for the metrics row of an update, at the levels the run format names
(seed_trainer.runlog.quantiles.QUANTILE_LEVELS: the caller passes them, so algo imports nothing of the run files)."""

from __future__ import annotations

from collections.abc import Mapping

import torch


def token_quantiles(values: torch.Tensor, family: str, levels: Mapping[str, float]) -> dict[str, float | int | None]:
    """The quantile of each `levels` key (min, p05, …, max) and the count of the finite `values`, as `<family>/<key>`.
    Quantiles interpolate linearly between the two nearest ranks (numpy's and torch.quantile's default). One sort instead of torch.quantile,
    which refuses more than 2^24 values (an update of 16 tasks × 8 copies × 30 steps × 512 tokens has 2·10^6). No value:
    every quantile is None and count 0."""
    flat = values.detach().reshape(-1).to(torch.float64)
    ordered = torch.sort(flat[torch.isfinite(flat)]).values
    n = ordered.numel()
    out: dict[str, float | int | None] = {f"{family}/count": n}
    for key, level in levels.items():
        if n == 0:
            out[f"{family}/{key}"] = None
            continue
        position = level * (n - 1)
        below = int(position)
        above = min(below + 1, n - 1)
        fraction = position - below
        low, high = float(ordered[below]), float(ordered[above])
        out[f"{family}/{key}"] = low + (high - low) * fraction
    return out
