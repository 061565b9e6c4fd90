"""Which process of a torchrun job this is (RANK / WORLD_SIZE / LOCAL_RANK), without importing torch.

The CLI reads the ranks before every command, and most commands (`schema`, `validate`, `doctor`, `export-verl`, a stage
refused for bad input) never need torch: importing it costs seconds. compute/distributed.py holds what needs torch and re-exports these.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


class DistributedSetupError(RuntimeError):
    """torchrun's environment is incomplete or inconsistent."""


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world > 1

    def share(self, items: Sequence[T]) -> tuple[int, list[T]]:
        """This rank's contiguous share of `items` and the index of its first one (shares differ by at most one)."""
        per, extra = divmod(len(items), self.world)
        start = self.rank * per + min(self.rank, extra)
        return start, list(items[start : start + per + (self.rank < extra)])


SINGLE = Ranks()


def ranks_from_env(environ: dict[str, str] | None = None) -> Ranks:
    """RANK / WORLD_SIZE / LOCAL_RANK as torchrun sets them; one process when they are absent."""
    environ = os.environ if environ is None else environ
    names = ("RANK", "WORLD_SIZE", "LOCAL_RANK")
    if not any(name in environ for name in names):
        return SINGLE
    try:
        rank, world = int(environ["RANK"]), int(environ["WORLD_SIZE"])
        local = int(environ.get("LOCAL_RANK", rank))
    except (KeyError, ValueError) as exc:
        raise DistributedSetupError(
            f"RANK, WORLD_SIZE and LOCAL_RANK must be integers set together (as torchrun sets them): {exc}"
        ) from exc
    if world < 1 or not 0 <= rank < world or local < 0:
        raise DistributedSetupError(f"RANK {rank} / WORLD_SIZE {world} / LOCAL_RANK {local} are inconsistent")
    return Ranks(rank, world, local)
