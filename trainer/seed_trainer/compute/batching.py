"""Micro-batches grouped by length (as verl's dynamic batch size): sort the rows by token count and fill each
micro-batch up to a row limit and, optionally, a budget of *padded* tokens (rows × longest row), so short rows are
not padded to the longest row of a whole pass and a batch of long rows does not exceed the memory a budget allows."""

from __future__ import annotations

from collections.abc import Sequence


def plan_micro_batches(lengths: Sequence[int], max_rows: int, max_tokens: int | None = None) -> list[list[int]]:
    """Indices of `lengths` grouped into micro-batches of similar length, shortest first.

    Each micro-batch has at most `max_rows` rows and, when `max_tokens` is given, at most `max_tokens` padded tokens;
    a row longer than the budget gets a micro-batch of its own. The plan depends only on the lengths (ties keep their
    input order), so it is deterministic.
    """
    if max_rows < 1:
        raise ValueError(f"max_rows must be ≥ 1, got {max_rows}")
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"max_tokens must be ≥ 1, got {max_tokens}")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        # Sorted ascending, so row i is the longest of `current + [i]`: the padded size is rows × lengths[i].
        too_many = len(current) + 1 > max_rows
        too_big = max_tokens is not None and (len(current) + 1) * lengths[i] > max_tokens
        if current and (too_many or too_big):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches
