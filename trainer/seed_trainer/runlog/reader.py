"""Reading a run directory back, validated against the schemas, with located errors (docs/run-format.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.errors import RunFormatError, TornLine, format_field_path
from seed_trainer.runlog.jsonl import JsonlRead, iter_jsonl, parse_line, read_jsonl, read_line_at
from seed_trainer.runlog.layout import RunPaths
from seed_trainer.runlog.quantiles import quantile_summary
from seed_trainer.runlog.schemas import SchemaSet
from seed_trainer.runlog.tokens import BASELINE_FIELD, TokenArrays, gate_baseline_problem, token_array_problems

_JSONL_KINDS = {
    "events": (layout.EVENTS, "event"),
    "metrics": (layout.METRICS, "metric"),
    "skills": (layout.SKILLS, "skill"),
    "trajectory_index": (layout.TRAJECTORY_INDEX, "trajectory-index"),
}


def check_format_version(manifest: Any, file: str = layout.MANIFEST, path: str = "") -> None:
    """Refuse a run.json whose integer format_version this code does not read (other problems: the schema's job)."""
    if not isinstance(manifest, dict):
        return
    version = manifest.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version != layout.FORMAT_VERSION:
        hint = (
            "written by a newer trainer; update SEED Studio"
            if version > layout.FORMAT_VERSION
            else "not a valid version"
        )
        raise RunFormatError(
            "unsupported_version",
            file,
            f"format_version {version} is not supported ({hint}); this reader reads format_version {layout.FORMAT_VERSION}",
            field="format_version",
            path=path,
        )


def _read_json_document(path: Path, file: str) -> Any:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RunFormatError("missing_file", file, "file not found", path=str(path)) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise RunFormatError("invalid_json", file, f"not valid JSON{where}: {reason}", path=str(path)) from None


def read_manifest(run_dir: str | Path, schemas: SchemaSet | None = None) -> dict[str, Any]:
    """run.json, version-checked and (with `schemas`) validated."""
    path = RunPaths(Path(run_dir)).manifest
    manifest = _read_json_document(path, layout.MANIFEST)
    check_format_version(manifest, layout.MANIFEST, str(path))
    if schemas is not None:
        schemas.validate("run", manifest, layout.MANIFEST, path=str(path))
    if not isinstance(manifest, dict):
        raise RunFormatError("schema", layout.MANIFEST, "run.json must be a JSON object", path=str(path))
    return manifest


def baseline_splits(eval_run_dir: str | Path, schemas: SchemaSet | None = None) -> list[str]:
    """The splits an `eval` run evaluated (its eval/<split>.json files), for `train --baseline-eval`. Raises
    RunFormatError when the directory is not a finished eval run with at least one report."""
    run_dir = Path(eval_run_dir)
    manifest = read_manifest(run_dir, schemas)
    if manifest.get("stage") != "eval":
        raise RunFormatError(
            "schema",
            layout.MANIFEST,
            f"a baseline must be an eval run, not a {manifest.get('stage')!r} run",
            field="stage",
            path=str(RunPaths(run_dir).manifest),
        )
    eval_dir = RunPaths(run_dir).eval_dir
    splits = sorted(p.stem for p in eval_dir.glob("*.json") if not p.name.startswith(".")) if eval_dir.is_dir() else []
    if not splits:
        raise RunFormatError(
            "missing_file",
            f"{layout.EVAL_DIR}/<split>.json",
            "the eval run has no evaluation report",
            path=str(eval_dir),
        )
    return splits


def baseline_evals(run_dir: str | Path, manifest: Mapping[str, Any] | None = None) -> dict[str, Path]:
    """run.json's `baseline_evals` resolved: split → the base evaluation's run directory (it may no longer exist)."""
    run_dir = Path(run_dir)
    manifest = manifest if manifest is not None else read_manifest(run_dir)
    links = manifest.get("baseline_evals") or {}
    if not isinstance(links, Mapping):
        return {}
    return {str(split): (run_dir / str(rel)) for split, rel in links.items() if isinstance(rel, str) and rel}


def read_control(run_dir: str | Path, schemas: SchemaSet | None = None) -> dict[str, Any] | None:
    """The control request, or None when there is no control file or it is empty (an empty file still means stop)."""
    path = RunPaths(Path(run_dir)).control
    if not path.exists() or not path.read_bytes().strip():
        return None
    control = _read_json_document(path, layout.CONTROL)
    if schemas is not None:
        schemas.validate("control", control, layout.CONTROL, path=str(path))
    return control


def read_tags(run_dir: str | Path, schemas: SchemaSet | None = None) -> list[str]:
    """The run's tags (tags.json, written by the extension), [] when there is no such file."""
    path = RunPaths(Path(run_dir)).tags
    if not path.exists():
        return []
    document = _read_json_document(path, layout.TAGS)
    if schemas is not None:
        schemas.validate("tags", document, layout.TAGS, path=str(path))
    if not isinstance(document, dict) or not isinstance(document.get("tags"), list):
        raise RunFormatError("schema", layout.TAGS, "tags.json must be an object with a list of tags", path=str(path))
    return [str(tag) for tag in document["tags"]]


def check_trajectory_tokens(record: Mapping[str, Any], file: str, line: int | None, path: str = "") -> None:
    """Raise a `token_array` error for the first step whose arrays disagree with their `count`, or whose
    `gate_baseline` does not decode to finite numbers (the one array whose values are checked: readers subtract it)."""
    for index, step in enumerate(record.get("steps", [])):
        tokens = step.get("tokens") if isinstance(step, Mapping) else None
        if isinstance(tokens, Mapping):
            problems = token_array_problems(tokens)
            name, problem = problems[0] if problems else (BASELINE_FIELD, gate_baseline_problem(tokens))
            if problem:
                field = format_field_path(["steps", index, "tokens", name])
                raise RunFormatError("token_array", file, problem, line=line, field=field, path=path)


class RunReader:
    """Reads one run directory. Every record is validated (unless `validate=False`); JSONL readers skip a torn
    last line and add it to `warnings`. Problems raise RunFormatError with file, line and field."""

    def __init__(self, run_dir: str | Path, *, schemas: SchemaSet | None = None, validate: bool = True) -> None:
        self.paths = RunPaths(Path(run_dir))
        self.schemas = (schemas or SchemaSet()) if validate else None
        self.warnings: list[TornLine] = []

    @property
    def run_dir(self) -> Path:
        return self.paths.root

    def manifest(self) -> dict[str, Any]:
        return read_manifest(self.paths.root, self.schemas)

    def baseline_evals(self) -> dict[str, Path]:
        """split → the run directory of this run's base evaluation (run.json `baseline_evals`)."""
        return baseline_evals(self.run_dir, self.manifest())

    def control(self) -> dict[str, Any] | None:
        return read_control(self.paths.root, self.schemas)

    def tags(self) -> list[str]:
        return read_tags(self.paths.root, self.schemas)

    def _validator(self, kind: str, file: str, path: Path) -> Any:
        if self.schemas is None:
            return None
        schemas = self.schemas

        def validate(record: Any, line: int) -> None:
            schemas.validate(kind, record, file, line, path=str(path))

        return validate

    def read(self, name: str) -> JsonlRead:
        """events | metrics | skills | trajectory_index, with line numbers; a missing file reads as empty."""
        file, kind = _JSONL_KINDS[name]
        path = self.paths.root / file
        result = read_jsonl(path, file, validate=self._validator(kind, file, path))
        if result.torn is not None:
            self.warnings.append(result.torn)
        return result

    def events(self) -> list[dict[str, Any]]:
        return self.read("events").values

    def metrics(self) -> list[dict[str, Any]]:
        return self.read("metrics").values

    def metric_quantiles(self, family: str) -> list[tuple[int, dict[str, float]]]:
        """(update, {min, p05, …, max, count}) of every update row holding quantiles of `family` (`gate`, `delta`)."""
        rows = [(row["step"], quantile_summary(row, family)) for row in self.metrics() if row.get("kind") == "update"]
        return [(step, summary) for step, summary in rows if summary is not None]

    def skills(self) -> list[dict[str, Any]]:
        return self.read("skills").values

    def trajectory_index(self) -> list[dict[str, Any]]:
        return self.read("trajectory_index").values

    def trajectory_files(self) -> list[str]:
        """Names of the trajectory files in trajectories/ (not the index), sorted."""
        if not self.paths.trajectories.is_dir():
            return []
        index = Path(layout.TRAJECTORY_INDEX).name
        return sorted(p.name for p in self.paths.trajectories.glob("*.jsonl") if p.name != index)

    def iter_trajectories(self, file: str) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line, trajectory) for every complete line of trajectories/<file>, validated and token-checked."""
        path = self.paths.trajectory_file(file)
        relative = f"{layout.TRAJECTORIES_DIR}/{file}"
        validate = self._validator("trajectory", relative, path)

        def check(record: Any, line: int) -> None:
            if validate is not None:
                validate(record, line)
            check_trajectory_tokens(record, relative, line, str(path))

        torn: list[TornLine] = []
        yield from iter_jsonl(path, relative, validate=check, torn=torn)
        self.warnings.extend(torn)

    def trajectory(self, entry: Mapping[str, Any] | str) -> dict[str, Any]:
        """One trajectory, read by the byte range of its index row (or its id, looked up in the index)."""
        if isinstance(entry, str):
            found = next((row for row in self.trajectory_index() if row.get("id") == entry), None)
            if found is None:
                raise KeyError(f"{self.paths.trajectory_index}: no trajectory with id {entry!r}")
            entry = found
        file, line = f"{layout.TRAJECTORIES_DIR}/{entry['file']}", int(entry["line"])
        path = self.paths.trajectory_file(entry["file"])
        raw = read_line_at(path, int(entry["offset"]), int(entry["size"]))
        if len(raw) != entry["size"] or not raw.endswith(b"\n"):
            raise RunFormatError(
                "index",
                file,
                f"the index points at bytes {entry['offset']}+{entry['size']}, which are not a whole line",
                line=line,
                path=str(path),
            )
        record = parse_line(raw, file, line, str(path))
        if self.schemas is not None:
            self.schemas.validate("trajectory", record, file, line, path=str(path))
        if record.get("id") != entry["id"]:
            raise RunFormatError(
                "index",
                file,
                f"holds trajectory {record.get('id')!r}, the index says {entry['id']!r}",
                line=line,
                field="id",
                path=str(path),
            )
        check_trajectory_tokens(record, file, line, str(path))
        return record

    @staticmethod
    def tokens(step: Mapping[str, Any]) -> TokenArrays | None:
        """The decoded per-token arrays of a step (None when the step recorded none)."""
        tokens = step.get("tokens")
        return TokenArrays.decode(tokens) if tokens is not None else None

    def eval_splits(self) -> list[str]:
        if not self.paths.eval_dir.is_dir():
            return []
        return sorted(
            p.name.removesuffix(".json") for p in self.paths.eval_dir.glob("*.json") if not p.name.startswith(".")
        )

    def eval(self, split: str) -> dict[str, Any]:
        path = self.paths.eval_file(split)
        file = self.paths.relative(path)
        report = _read_json_document(path, file)
        if self.schemas is not None:
            self.schemas.validate("eval", report, file, path=str(path))
        return report

    def checkpoints(self) -> list[tuple[int, Path]]:
        """(step, directory) of every complete checkpoint, by step; temporary directories are not listed."""
        if not self.paths.checkpoints.is_dir():
            return []
        found = []
        for child in self.paths.checkpoints.iterdir():
            match = layout.CHECKPOINT_NAME.match(child.name)
            if match and child.is_dir():
                found.append((int(match.group(1)), child))
        return sorted(found)

    def latest_checkpoint(self) -> Path | None:
        found = self.checkpoints()
        return found[-1][1] if found else None
