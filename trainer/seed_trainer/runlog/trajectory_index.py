"""One row of `trajectories/index.jsonl`: where a trajectory record's line is and what a list of runs shows of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def index_row(record: Mapping[str, Any], file: str, placed: Any) -> dict[str, Any]:
    """The index row of a trajectory `record` whose line `placed` (line, offset, size) is in `file`."""
    task = record["task"]
    steps = record["steps"]
    skill = record.get("skill")
    row: dict[str, Any] = {
        "id": record["id"],
        "file": file,
        "line": placed.line,
        "offset": placed.offset,
        "size": placed.size,
        "phase": record["phase"],
        "update": record["update"],
        "task": {key: task[key] for key in ("id", "type", "split") if key in task},
    }
    for key in ("group", "sample"):
        if key in record:
            row[key] = record[key]
    row.update(
        success=record["success"],
        reward=record["reward"],
        length=record["length"],
        tokens=sum(step.get("tokens", {}).get("count", 0) for step in steps),
        teacher=any("teacher_logp" in step.get("tokens", {}) for step in steps),
        skill={"valid": skill["valid"], "source": skill["source"]} if skill else None,
    )
    return row
