"""Checks across records and files that break `resume` or mislead a reader although every record is valid on its own:
update numbers that repeat or skip, trajectories of updates the metrics lack, incomplete checkpoints, and temporary
files an interrupted write left behind. Used by `check_run`; src/runs/runConsistency.ts does the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.checkpoint_manifest import checkpoint_problem
from seed_trainer.runlog.errors import RunFormatError, StaleFile
from seed_trainer.runlog.ownership import owned_by_live_process
from seed_trainer.runlog.schemas import SchemaSet

# Metric kinds numbered 1, 2, 3 … one row each (sft rows may repeat a step for the validation loss; eval rows are
# per split).
NUMBERED_KINDS = ("update", "collect")


def metric_sequence_error(rows: list[tuple[int, dict[str, Any]]]) -> RunFormatError | None:
    """The first metrics row of a numbered kind whose step is not the previous one's + 1 (starting at 1)."""
    last: dict[str, int] = {}
    for line, row in rows:
        kind = row.get("kind")
        if kind not in NUMBERED_KINDS:
            continue
        expected = last.get(kind, 0) + 1
        if row["step"] != expected:
            what = "repeats" if row["step"] <= last.get(kind, 0) else "skips"
            return RunFormatError(
                "sequence",
                layout.METRICS,
                f"{kind} step {row['step']} {what} (expected {expected})",
                line=line,
                field="step",
            )
        last[kind] = row["step"]
    return None


def index_errors(rows: list[tuple[int, dict[str, Any]]], metric_updates: set[int] | None) -> list[RunFormatError]:
    """The first repeated trajectory id, the first train update number that goes back or skips one, and the first
    train trajectory of an update the metrics have no row of (`metric_updates` None: no metrics to compare with)."""
    errors: list[RunFormatError] = []
    seen: set[str] = set()
    previous = 0
    repeated = backwards = orphan = None
    for line, row in rows:
        if repeated is None and row["id"] in seen:
            repeated = RunFormatError(
                "sequence", layout.TRAJECTORY_INDEX, f"trajectory id {row['id']!r} repeats", line=line, field="id"
            )
        seen.add(row["id"])
        if row.get("phase") != "train" or not isinstance(row.get("update"), int):
            continue
        if backwards is None and not previous <= row["update"] <= previous + 1:  # every update has trajectories
            gap = "" if row["update"] < previous else f" (update {previous + 1} has no trajectories)"
            backwards = RunFormatError(
                "sequence",
                layout.TRAJECTORY_INDEX,
                f"update {row['update']} after update {previous}{gap}",
                line=line,
                field="update",
            )
        previous = max(previous, row["update"])
        if orphan is None and metric_updates is not None and row["update"] not in metric_updates:
            orphan = RunFormatError(
                "consistency",
                layout.TRAJECTORY_INDEX,
                f"trajectory {row['id']!r} belongs to update {row['update']}, which metrics.jsonl has no row of",
                line=line,
                field="update",
            )
    errors += [e for e in (repeated, backwards, orphan) if e is not None]
    return errors


def lost_index_rows(status: str | None, index_read: bool, indexed: int, held: int) -> RunFormatError | None:
    """A run that ended (completed or stopped) indexes every trajectory its files hold; fewer rows mean the index lost
    some, and every reader that goes through it would miss them. A running run's index may trail its files by the
    record being written, and a failed one may have died between the two appends."""
    if status not in ("completed", "stopped") or not index_read or indexed >= held:
        return None
    return RunFormatError(
        "index",
        layout.TRAJECTORY_INDEX,
        f"lists {indexed} trajectories; the trajectory files hold {held}: the index lost rows",
    )


def checkpoint_errors(run_dir: Path, schemas: SchemaSet | None = None) -> list[RunFormatError]:
    checkpoints = run_dir / layout.CHECKPOINTS_DIR
    errors = []
    if checkpoints.is_dir():
        for child in sorted(checkpoints.iterdir()):
            if layout.CHECKPOINT_NAME.match(child.name) and child.is_dir():
                problem = checkpoint_problem(child, schemas)
                if problem is not None:
                    errors.append(
                        RunFormatError("checkpoint", f"{layout.CHECKPOINTS_DIR}/{child.name}", f"incomplete: {problem}")
                    )
    return errors


def stale_files(run_dir: Path, status: str | None) -> list[StaleFile]:
    """Temporary files of interrupted writes — only when no live trainer owns the run (its own temporary files are
    in flight, not stale). Where ownership cannot be read, a run that says it is running is given the benefit."""
    owned = owned_by_live_process(run_dir)
    if owned or (owned is None and status in ("running", "stopping")):
        return []
    found = []
    for folder, pattern in (
        (run_dir, layout.STALE_DOCUMENT_TEMP),
        (run_dir / layout.EVAL_DIR, layout.STALE_DOCUMENT_TEMP),
        (run_dir / layout.CHECKPOINTS_DIR, layout.STALE_CHECKPOINT_TEMP),
    ):
        if folder.is_dir():
            found += [
                StaleFile(child.relative_to(run_dir).as_posix())
                for child in sorted(folder.iterdir())
                if pattern.match(child.name)
            ]
    return found
