"""Several processes under torchrun (`python -m torch.distributed.run --nproc_per_node=N -m seed_trainer train …`).

The rule that keeps the algorithm exact: each rank owns whole task groups. It rolls out its share of the update's
tasks, computes their GRPO advantages (a group's statistics never cross ranks), old/reference log-probs, analyses and
teacher pass; then every rank receives every episode (`gather_episodes`, in the order one process would have them).
The PPO update walks the same shuffled mini-batches on every rank, each rank back-propagating its share of each
mini-batch's micro-batches, and the summed gradients (`sum_gradients`) make the optimizer step the single-process
one. Rank 0 alone writes the run directory.

Data parallel by one flattened all-reduce per optimizer step rather than the DistributedDataParallel wrapper: ranks
back-propagate different numbers of micro-batches (they are packed by length), which the wrapper's per-backward
hooks cannot match up; one all-reduce after accumulation is what the wrapper does under `no_sync`.

`distributed.strategy: fsdp` shards a full fine-tune instead (compute/sharding.py): the same task groups per rank and the
same gathered episodes, but the update runs in lockstep (as many micro-batches on every rank, zero-weighted padding),
gradients are reduce-scattered in each backward rather than summed here, rollouts and scoring run on an unsharded
inference copy, and checkpoints are written by every rank (torch.distributed.checkpoint). See docs/trainer.md,
"Several processes".
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import sys
from collections.abc import Iterator
from typing import Any, TypeVar

import torch
import torch.distributed as torch_dist

# torch-free, in a module of their own (the CLI reads the ranks before it knows whether a command needs torch);
# re-exported here for the code that already works with torch
from seed_trainer.compute.ranks import SINGLE as SINGLE
from seed_trainer.compute.ranks import DistributedSetupError, Ranks, ranks_from_env

T = TypeVar("T")

# Long enough for rank 0's evaluation while the others wait; a rank that dies is noticed at once (its sockets close).
COLLECTIVE_TIMEOUT = datetime.timedelta(minutes=60)


class RankFailure(RuntimeError):
    """Another process of a torchrun job failed or vanished: this one cannot go on alone. Its message is on stderr
    already (`reported`), written the moment the failure was seen."""

    reported = True


def start(device: str = "auto") -> Ranks:
    """The ranks of this process, with the process group joined when there are several (nccl on CUDA, each rank on
    GPU LOCAL_RANK; gloo on the CPU)."""
    ranks = ranks_from_env()
    if not ranks.distributed or torch_dist.is_initialized():
        return ranks
    cuda = device != "cpu" and torch.cuda.is_available()
    if cuda:
        if ranks.local_rank >= torch.cuda.device_count():
            raise DistributedSetupError(
                f"LOCAL_RANK {ranks.local_rank} but torch sees {torch.cuda.device_count()} CUDA device(s)"
            )
        torch.cuda.set_device(ranks.local_rank)  # `cuda` (no index) now means this rank's GPU
    torch_dist.init_process_group("nccl" if cuda else "gloo", timeout=COLLECTIVE_TIMEOUT)
    return ranks


def stop(ranks: Ranks, *, clean: bool = False) -> None:
    """Leaves the process group. After a clean end (`clean`: the stage returned on this rank) every rank first meets
    at a barrier, so none tears its connections down while another still sends to it. The group is then destroyed and
    what still refers to it collected while the interpreter is fully alive: gloo's worker threads left for the
    interpreter's finalisation abort the process (SIGABRT, "terminate called without an active exception")."""
    if ranks.distributed and torch_dist.is_initialized():
        if clean:
            with contextlib.suppress(RuntimeError, ConnectionError):
                torch_dist.barrier()
        torch_dist.destroy_process_group()
        gc.collect()


@contextlib.contextmanager
def collective(ranks: Ranks, what: str) -> Iterator[None]:
    """Turns a failed collective (a rank died, was killed or timed out) into one clear error naming the step."""
    try:
        yield
    except (RuntimeError, ConnectionError) as exc:
        if isinstance(exc, RankFailure):
            raise
        failure = RankFailure(
            f"rank {ranks.rank} of {ranks.world}: another rank stopped responding while {what} "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no detail'}); "
            "the whole job stops — resume the run from its latest checkpoint"
        )
        # Now, not after the stage unwinds: torchrun soon SIGTERMs (then SIGKILLs) the ranks still alive, and a
        # rank killed between recording the failure and the command's last line would leave the terminal silent.
        sys.stderr.write(f"error: {failure}\n")
        sys.stderr.flush()
        raise failure from exc


def broadcast(ranks: Ranks, value: T, what: str) -> T:
    """Rank 0's `value` on every rank."""
    if not ranks.distributed:
        return value
    box = [value]
    with collective(ranks, what):
        torch_dist.broadcast_object_list(box, src=0)
    return box[0]


def all_gather(ranks: Ranks, value: T, what: str) -> list[T]:
    """Every rank's `value`, in rank order."""
    if not ranks.distributed:
        return [value]
    out: list[Any] = [None] * ranks.world
    with collective(ranks, what):
        torch_dist.all_gather_object(out, value)
    return out


def gather_episodes(ranks: Ranks, episodes: list, first_group: int) -> list:
    """Every rank's episodes, in the order one process would hold them; `first_group` is the index of this rank's
    first task in the update (`Ranks.share`), so `Episode.group` becomes the update-wide group."""
    for episode in episodes:
        episode.group += first_group
    if not ranks.distributed:
        return episodes
    return [episode for part in all_gather(ranks, episodes, "gathering the episodes") for episode in part]


def sum_values(ranks: Ranks, values: dict[str, float], what: str) -> dict[str, float]:
    """Per-key sums over the ranks (a key a rank lacks counts as 0), added in rank order."""
    if not ranks.distributed:
        return dict(values)
    total: dict[str, float] = {}
    for part in all_gather(ranks, dict(values), what):
        for key, value in part.items():
            total[key] = total.get(key, 0.0) + value
    return total


def sum_gradients(ranks: Ranks, model: torch.nn.Module) -> None:
    """Sums the trainable parameters' gradients over the ranks in one flat all-reduce. A rank that back-propagated
    nothing this mini-batch contributes zeros."""
    if not ranks.distributed:
        return
    params = [p for p in model.parameters() if p.requires_grad]
    grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
    flat = torch.cat([g.reshape(-1) for g in grads])
    with collective(ranks, "summing the gradients"):
        torch_dist.all_reduce(flat, op=torch_dist.ReduceOp.SUM)
    offset = 0
    for param, grad in zip(params, grads):
        size = grad.numel()
        param.grad = flat[offset : offset + size].view_as(grad).clone()
        offset += size


def copy_weights_from_main(ranks: Ranks, model: torch.nn.Module) -> None:
    """Every rank starts from rank 0's weights (they load the same files; this makes it so whatever the loader did)."""
    if not ranks.distributed:
        return
    with collective(ranks, "copying rank 0's weights"), torch.no_grad():
        for tensor in [*model.parameters(), *model.buffers()]:
            torch_dist.broadcast(tensor.data, src=0)


def rank_seed(seed: int, ranks: Ranks) -> int:
    """The sampling seed of a rank other than 0 (rank 0 keeps the run's own stream, so one process is unchanged)."""
    return seed * 1_000_003 + 7919 * ranks.rank


def rank_rng_states(ranks: Ranks) -> list[dict[str, Any]] | None:
    """Every rank's torch RNG state (rank 0's checkpoint keeps them for an exact resume); None with one process."""
    if not ranks.distributed:
        return None
    state: dict[str, Any] = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state()
    return all_gather(ranks, state, "collecting the ranks' RNG states for the checkpoint")


def forward_events(ranks: Ranks, writer: Any) -> None:
    """The events other ranks held back (QuietWriter), written by rank 0 with the rank named."""
    if not ranks.distributed:
        return
    held = writer.take_events() if isinstance(writer, QuietWriter) else []
    for rank, events in enumerate(all_gather(ranks, held, "forwarding the ranks' events")):
        if ranks.main:
            for kind, message, fields in events:
                writer.event(kind, f"rank {rank}: {message}", **fields)


class QuietWriter:
    """What ranks other than 0 write through: rank 0 owns the run directory, so the records are dropped (rank 0
    writes the same, gathered) and events wait for `forward_events`."""

    def __init__(self) -> None:
        self._events: list[tuple[str, str, dict[str, Any]]] = []

    def event(self, kind: str, message: str, **fields: Any) -> None:
        self._events.append((kind, message, fields))

    def take_events(self) -> list[tuple[str, str, dict[str, Any]]]:
        events, self._events = self._events, []
        return events

    def metrics(self, *args: Any, **kwargs: Any) -> None:
        pass

    def trajectory(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_progress(self, *args: Any, **kwargs: Any) -> None:
        pass

    def begin_stop(self, *args: Any, **kwargs: Any) -> None:
        pass

    def finish(self, *args: Any, **kwargs: Any) -> None:
        pass

    def stop_requested(self) -> bool:
        return False
