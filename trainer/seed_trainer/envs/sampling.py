"""Drawing tasks from a fixed pool: a seeded order, without repeats while the pool lasts (then it wraps)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def draw(pool: Sequence[T], count: int, seed: int, key: Callable[[T], str]) -> list[T]:
    """`count` items of `pool` in an order fixed by `seed` and each item's `key` (not by the pool's order or size)."""
    ordered = sorted(pool, key=lambda item: hashlib.sha256(f"{seed}|{key(item)}".encode()).digest())
    return (list(ordered) * (count // max(len(ordered), 1) + 1))[:count]
