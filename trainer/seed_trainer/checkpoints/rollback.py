"""What `resume` keeps of a run's metrics and trajectories, checked before anything is cut (docs/run-format.md §10).

The checkpoint recorded the byte size of `metrics.jsonl` and of every `trajectories/*.jsonl`. Everything after those
sizes belongs to the update that was interrupted and is cut; everything before them is kept, so it must be intact:
each file at least as long as recorded, the recorded size on a line boundary, every kept line a JSON object, and the
metrics and index rows valid against their schemas (a row that parses but lost a key would pass a JSON check and then
fail every reader of the run). A file that fails stops `resume` with a located error and nothing changed.
`repair_to_update` is the explicit way out (`resume --repair`): it keeps the records that parse and belong to updates
up to the checkpoint's, moves corrupt lines to `<file>.corrupt` (nothing is thrown away; a metrics row its schema
refuses counts as corrupt), and rebuilds the trajectory index's byte ranges.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.atomic import write_bytes_atomic
from seed_trainer.runlog.errors import RunFormatError
from seed_trainer.runlog.jsonl import Appended, dumps_line, parse_line
from seed_trainer.runlog.schemas import SchemaSet
from seed_trainer.runlog.trajectory_index import index_row

ROLLBACK_FILES = (layout.METRICS,)  # plus every file in trajectories/


def rollback_candidates(run_dir: Path) -> list[Path]:
    """The files a checkpoint records sizes of: metrics.jsonl and every trajectories/*.jsonl that exists."""
    found = [run_dir / name for name in ROLLBACK_FILES if (run_dir / name).exists()]
    trajectories = run_dir / layout.TRAJECTORIES_DIR
    if trajectories.is_dir():
        found += sorted(trajectories.glob("*.jsonl"))
    return found


@dataclass
class RollbackPlan:
    """What `roll_back` will do, and what stops it (`problems`: located errors in the ranges it would keep)."""

    cuts: list[tuple[Path, int, int]] = field(default_factory=list)  # (file, size now, size to keep)
    removals: list[Path] = field(default_factory=list)
    problems: list[RunFormatError] = field(default_factory=list)


def _checked_record(raw: bytes, relative: str, number: int, schemas: SchemaSet) -> dict[str, Any]:
    """The record of one complete line: parsed, a JSON object and, for the rows resume relies on (metrics, whose
    update numbers it continues from, and the trajectory index), valid against their schema; else the located
    RunFormatError. A trajectory line is parsed only: validating ~0.3 MB records would multiply the cost of a resume
    check, and a damaged one loses only that record (its reader reports it)."""
    record = parse_line(raw, relative, number)
    if not isinstance(record, dict):
        raise RunFormatError("schema", relative, "a record must be a JSON object", line=number)
    if relative == layout.METRICS:
        schemas.validate("metric", record, relative, number)
    elif relative == layout.TRAJECTORY_INDEX:
        schemas.validate("trajectory-index", record, relative, number)
    return record


def _kept_range_problem(path: Path, relative: str, keep: int, schemas: SchemaSet) -> RunFormatError | None:
    """The first problem of bytes [0, keep) of `path`: a line that is not a valid record, or `keep` not on a line
    boundary (the file was changed before the checkpoint's end). Reads no further than `keep`."""
    with open(path, "rb") as handle:
        offset = 0
        for number, raw in enumerate(handle, start=1):
            end = offset + len(raw)
            if raw.strip() and raw.endswith(b"\n"):
                try:
                    _checked_record(raw, relative, number, schemas)
                except RunFormatError as error:
                    return error
            if end > keep:
                return RunFormatError(
                    "rollback",
                    relative,
                    f"the checkpoint kept {keep} bytes, which ends inside this line (bytes {offset}–{end}): the file "
                    "was changed before the checkpoint's end",
                    line=number,
                )
            offset = end
            if offset == keep:
                return None
    return None


def plan_rollback(run_dir: Path, sizes: dict[str, int], schemas: SchemaSet | None = None) -> RollbackPlan:
    """Check every file against the checkpoint's `sizes` (relative path → bytes) and say what to cut or delete."""
    schemas = schemas or SchemaSet()
    plan = RollbackPlan()
    for path in rollback_candidates(run_dir):
        relative = path.relative_to(run_dir).as_posix()
        size, keep = path.stat().st_size, sizes.get(relative)
        if keep is None:
            plan.removals.append(path)
            continue
        problem = _kept_range_problem(path, relative, keep, schemas) if keep else None
        if problem is None and size < keep:
            problem = RunFormatError(
                "rollback",
                relative,
                f"{size} bytes, shorter than the {keep} the checkpoint recorded: records it covers are gone",
            )
        if problem is not None:
            plan.problems.append(problem)
        elif size > keep:
            plan.cuts.append((path, size, keep))
    for relative, keep in sorted(sizes.items()):
        if keep > 0 and not (run_dir / relative).exists():
            plan.problems.append(RunFormatError("rollback", relative, f"missing; the checkpoint recorded {keep} bytes"))
    return plan


def roll_back(run_dir: Path, plan: RollbackPlan) -> list[str]:
    """Cut and delete what `plan` says (its `problems` must be empty); one line per file changed."""
    changed = []
    for path in plan.removals:
        size = path.stat().st_size
        path.unlink()
        changed.append(f"{path.relative_to(run_dir).as_posix()}: removed ({size} bytes written after the checkpoint)")
    for path, size, keep in plan.cuts:
        with open(path, "r+b") as handle:
            handle.truncate(keep)
        changed.append(f"{path.relative_to(run_dir).as_posix()}: cut {size - keep} bytes written after the checkpoint")
    return changed


# -- repair ----------------------------------------------------------------------------------------------------------


def _update_of(record: dict[str, Any], relative: str) -> int | None:
    """The update a record belongs to: `step` of a metrics row, `update` of a trajectory or index row."""
    value = record.get("step") if relative == layout.METRICS else record.get("update")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _split_lines(
    path: Path, relative: str, last_update: int, schemas: SchemaSet
) -> tuple[list[bytes], list[bytes], int]:
    """(lines to keep, corrupt lines, lines dropped as after the checkpoint) of one JSONL file."""
    keep, corrupt, dropped = [], [], 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                dropped += 1  # a torn tail: a write in flight when the process died
                continue
            if not raw.strip():
                continue
            try:
                record = _checked_record(raw, relative, number, schemas)
            except RunFormatError:
                corrupt.append(raw)
                continue
            update = _update_of(record, relative)
            if update is not None and update > last_update:
                dropped += 1
            else:
                keep.append(raw)
    return keep, corrupt, dropped


def first_damaged_update(run_dir: Path, last_update: int) -> tuple[int, str] | None:
    """The first update ≤ `last_update` that metrics.jsonl has no parseable `update` row of (its line is corrupt or
    gone), and why; None when every row is there. Such an update must be trained again: setting its row aside would
    leave a run whose updates skip one. (A corrupt trajectory line only loses that record: it is set aside.)"""
    metrics = run_dir / layout.METRICS
    if not metrics.exists():
        return None
    keep, corrupt, _ = _split_lines(metrics, layout.METRICS, last_update, SchemaSet())
    steps = {r["step"] for r in map(json.loads, keep) if r.get("kind") == "update" and isinstance(r.get("step"), int)}
    missing = [u for u in range(1, last_update + 1) if u not in steps]
    if not missing:
        return None
    why = f"the file has {len(corrupt)} corrupt line(s)" if corrupt else "its row is gone"
    return missing[0], f"{layout.METRICS} has no row of it: {why}"


def _set_aside(path: Path, corrupt: list[bytes]) -> None:
    aside = path.with_name(path.name + ".corrupt")
    with open(aside, "ab") as handle:
        handle.write(b"".join(corrupt))
        handle.flush()
        os.fsync(handle.fileno())


def repair_to_update(run_dir: Path, last_update: int) -> list[str]:
    """Keep the records of updates ≤ `last_update` that parse, set corrupt lines aside, delete trajectory files of
    later updates, and rewrite the index with the byte ranges of the rewritten trajectory files. One line per change."""
    changed: list[str] = []
    placed: dict[str, tuple[str, Appended]] = {}  # trajectory id → (file, where its line is now)
    records: dict[str, dict[str, Any]] = {}
    index = run_dir / layout.TRAJECTORY_INDEX
    schemas = SchemaSet()
    for path in rollback_candidates(run_dir):
        relative = path.relative_to(run_dir).as_posix()
        if path == index:
            continue
        match = layout.UPDATE_TRAJECTORY_FILE.match(path.name)
        if match and int(match.group(1)) > last_update:
            path.unlink()
            changed.append(f"{relative}: removed (update after the checkpoint)")
            continue
        keep, corrupt, dropped = _split_lines(path, relative, last_update, schemas)
        if corrupt:
            _set_aside(path, corrupt)
            changed.append(f"{relative}: {len(corrupt)} corrupt line(s) moved to {relative}.corrupt")
        if corrupt or dropped:
            write_bytes_atomic(path, b"".join(keep))
            if dropped:
                changed.append(f"{relative}: {dropped} record(s) after the checkpoint removed")
        if path.parent.name == layout.TRAJECTORIES_DIR:
            offset = 0
            for number, raw in enumerate(keep, start=1):
                record = json.loads(raw)
                placed[str(record.get("id"))] = (path.name, Appended(line=number, offset=offset, size=len(raw)))
                records[str(record.get("id"))] = record
                offset += len(raw)
    changed += _rebuild_index(run_dir, index, placed, records)
    return changed


def _rebuild_index(run_dir: Path, index: Path, placed: dict, records: dict) -> list[str]:
    """Index rows for exactly the kept trajectories, in the old order, with their new byte ranges."""
    rows, corrupt, seen = [], [], set()
    if index.exists():
        with open(index, "rb") as handle:
            for raw in handle:
                try:
                    row = json.loads(raw) if raw.endswith(b"\n") else None
                except (UnicodeDecodeError, json.JSONDecodeError):
                    row = None
                if not isinstance(row, dict):
                    if raw.strip() and raw.endswith(b"\n"):
                        corrupt.append(raw)
                    continue
                where = placed.get(str(row.get("id")))
                if where is None or row["id"] in seen:
                    continue
                seen.add(row["id"])
                rows.append(
                    {**row, "file": where[0], "line": where[1].line, "offset": where[1].offset, "size": where[1].size}
                )
    rebuilt = [index_row(records[id_], file, at) for id_, (file, at) in placed.items() if id_ not in seen]
    data = b"".join(dumps_line(row) for row in rows + rebuilt)
    if index.exists() and index.read_bytes() == data:
        return []
    if corrupt:
        _set_aside(index, corrupt)
    write_bytes_atomic(index, data)
    return [f"{layout.TRAJECTORY_INDEX}: rewritten for the kept trajectories ({len(rebuilt)} row(s) rebuilt)"]
