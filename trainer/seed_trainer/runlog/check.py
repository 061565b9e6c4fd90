"""`check_run`: read every file of a run directory and report each file's first problem, what breaks `resume` across
files (runlog/consistency.py), every torn line, every metric name the schema does not list (runlog/metric_names.py) and
every stale temporary file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.consistency import (
    checkpoint_errors,
    index_errors,
    lost_index_rows,
    metric_sequence_error,
    stale_files,
)
from seed_trainer.runlog.errors import RunFormatError, StaleFile, TornLine, UnknownMetric
from seed_trainer.runlog.jsonl import read_line_at
from seed_trainer.runlog.metric_names import MetricNames, unknown_metrics
from seed_trainer.runlog.quantiles import quantile_order_error
from seed_trainer.runlog.reader import RunReader
from seed_trainer.runlog.schemas import SchemaSet


@dataclass
class RunCheck:
    errors: list[RunFormatError] = field(default_factory=list)
    warnings: list[TornLine | UnknownMetric | StaleFile] = field(default_factory=list)
    counts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors


def _check_index_entry(reader: RunReader, line: int, row: dict[str, Any]) -> RunFormatError | None:
    """The row must point at a whole line of its file holding the trajectory with its id."""
    path = reader.paths.trajectory_file(row["file"])
    problem = None
    if not path.is_file():
        problem = f"points into {layout.TRAJECTORIES_DIR}/{row['file']}, which does not exist"
    else:
        raw = read_line_at(path, row["offset"], row["size"])
        before = read_line_at(path, row["offset"] - 1, 1) if row["offset"] > 0 else b"\n"
        if len(raw) != row["size"] or not raw.endswith(b"\n") or before != b"\n":
            problem = f"bytes {row['offset']}+{row['size']} of {row['file']} are not a whole line"
        else:
            try:
                found = json.loads(raw.decode("utf-8")).get("id")
            except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
                found = None
            if found != row["id"]:
                problem = f"{row['file']} holds {found!r} at offset {row['offset']}, not {row['id']!r}"
    if problem is None:
        return None
    return RunFormatError("index", layout.TRAJECTORY_INDEX, problem, line=line, field="offset")


def check_run(run_dir: str | Path, schemas: SchemaSet | None = None) -> RunCheck:
    """Validate a whole run directory. A bad run.json stops the check (nothing else can be interpreted)."""
    reader = RunReader(run_dir, schemas=schemas)
    names = MetricNames.load(reader.schemas.dir if reader.schemas is not None else None)
    report = RunCheck()
    try:
        reader.manifest()
    except RunFormatError as error:
        report.errors.append(error)
        return report
    index_rows: list[tuple[int, dict[str, Any]]] = []
    metric_updates: set[int] | None = None
    unknown: list[UnknownMetric] = []
    for name in ("events", "metrics", "skills", "trajectory_index"):
        try:
            result = reader.read(name)
        except RunFormatError as error:
            report.errors.append(error)
            continue
        report.counts[name] = len(result.records)
        if name == "trajectory_index":
            index_rows = result.records
        if name == "metrics":
            sequence = metric_sequence_error(result.records)
            if sequence is not None:
                report.errors.append(sequence)
            disorder = quantile_order_error(result.records)
            if disorder is not None:
                report.errors.append(disorder)
            unknown = unknown_metrics(result.records, names)
            if reader.paths.metrics.exists():  # partial directories (fixtures, a copy) may lack it: nothing to compare
                metric_updates = {row["step"] for _, row in result.records if row.get("kind") == "update"}
    total = 0
    for file in reader.trajectory_files():
        try:
            total += sum(1 for _ in reader.iter_trajectories(file))
        except RunFormatError as error:
            report.errors.append(error)
    report.counts["trajectories"] = total
    for line, row in index_rows:
        error = _check_index_entry(reader, line, row)
        if error is not None:
            report.errors.append(error)
            break
    report.errors += index_errors(index_rows, metric_updates)
    lost = lost_index_rows(reader.manifest().get("status"), "trajectory_index" in report.counts, len(index_rows), total)
    if lost is not None:
        report.errors.append(lost)
    report.counts["eval"] = reader.eval_splits()
    for split in report.counts["eval"]:
        try:
            reader.eval(split)
        except RunFormatError as error:
            report.errors.append(error)
    try:
        reader.control()
    except RunFormatError as error:
        report.errors.append(error)
    try:
        reader.tags()
    except RunFormatError as error:
        report.errors.append(error)
    report.errors += checkpoint_errors(reader.paths.root, schemas)
    report.counts["checkpoints"] = len(reader.checkpoints())
    report.warnings = [*reader.warnings, *unknown, *stale_files(reader.paths.root, reader.manifest().get("status"))]
    return report
