"""The trainer's side of the run directory: create it, keep run.json current, append records (docs/run-format.md)."""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TextIO

from seed_trainer.runlog import layout
from seed_trainer.runlog.atomic import write_json_atomic
from seed_trainer.runlog.checkpoint_manifest import write_checkpoint_manifest
from seed_trainer.runlog.environment import RunEnvironment
from seed_trainer.runlog.jsonl import JsonlAppender, dumps_line
from seed_trainer.runlog.layout import RunPaths
from seed_trainer.runlog.ownership import RunLock
from seed_trainer.runlog.reader import read_manifest
from seed_trainer.runlog.schemas import SchemaSet
from seed_trainer.runlog.tokens import TokenArrays

Clock = Callable[[], str]
METRIC_NAME = re.compile(r"^[A-Za-z0-9_.-]+(/[^/\s]+)+$")
_SLUG = re.compile(r"[^a-z0-9]+")


def utc_now() -> str:
    """Now as the run format writes instants: 2026-03-01T12:00:00.123Z."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def metric_name(*parts: str) -> str:
    """`metric_name("success", "pick and place")` → `success/pick_and_place` (no slashes or spaces inside parts)."""
    cleaned = [re.sub(r"[\s/]+", "_", str(part).strip()) for part in parts]
    name = "/".join(cleaned)
    if len(cleaned) < 2 or not METRIC_NAME.match(name):
        raise ValueError(f"metric name {name!r} must be namespaced as group/name")
    return name


def new_run_id(name: str, stage: str, started: str) -> str:
    """`20260301-120000-train-household-seed` from the start instant, the stage and the experiment name."""
    stamp = re.sub(r"[^0-9]", "", started[:19])
    slug = _SLUG.sub("-", name.lower()).strip("-")[:40].strip("-") or "run"
    return f"{stamp[:8]}-{stamp[8:14]}-{stage}-{slug}"


def _relative_path(target: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return str(target.resolve())


def _finite_or_none(name: str, value: Any) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if hasattr(value, "item"):  # 0-d tensors and numpy scalars
            value = value.item()
        else:
            raise TypeError(f"metric {name} must be a number or None, got {type(value).__name__}")
    return value if math.isfinite(value) else None


class Reporter(Protocol):
    """Another place the run's records also go (TensorBoard, W&B: seed_trainer/reporting). Called after each record is
    in the run directory; an exception stops that reporter only (one `warning` event, code `report_failed`)."""

    name: str

    def metrics(self, row: Mapping[str, Any]) -> None: ...

    def trajectory(self, record: Mapping[str, Any]) -> None: ...

    def eval(self, report: Mapping[str, Any]) -> None: ...

    def close(self, status: str) -> None: ...


class CheckpointWriteError(RuntimeError):
    """Saving a checkpoint failed; the message names its directory (the cause is chained)."""


@dataclass
class _Files:
    events: JsonlAppender | None = None
    metrics: JsonlAppender | None = None
    skills: JsonlAppender | None = None
    index: JsonlAppender | None = None
    trajectories: dict[str, JsonlAppender] = field(default_factory=dict)


class RunWriter:
    """Writes one run directory. Make one with `RunWriter.create(...)`; end it with `finish(status)`.

    Every append is one whole line, flushed; run.json is replaced atomically. With `schemas` each record is validated
    before anything is written (tests do this; the trainer may). With `echo` (e.g. sys.stdout) every event is also
    printed as one JSON line.
    """

    def __init__(
        self,
        run_dir: str | Path,
        manifest: dict[str, Any],
        *,
        clock: Clock = utc_now,
        schemas: SchemaSet | None = None,
        echo: TextIO | None = None,
    ) -> None:
        self.paths = RunPaths(Path(run_dir))
        self._manifest = manifest
        self._clock = clock
        self._schemas = schemas
        self._echo = echo
        self._files = _Files()
        self._lock: RunLock | None = None
        self._reporters: list[Reporter] = []

    # -- creation and manifest ---------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        runs_dir: str | Path,
        *,
        name: str,
        stage: str,
        algorithm: str,
        config: Mapping[str, Any],
        experiment_path: str | Path,
        experiment_sha256: str | None = None,
        run_id: str | None = None,
        environment: RunEnvironment | None = None,
        parent: Mapping[str, Any] | None = None,
        baseline_evals: Mapping[str, str | Path] | None = None,
        progress_total: int | None = None,
        progress_unit: str | None = None,
        clock: Clock = utc_now,
        schemas: SchemaSet | None = None,
        echo: TextIO | None = None,
        lock: bool = True,
    ) -> RunWriter:
        """Create `runs_dir/<id>/` (a fresh, unique directory) with its run.json (status running) and a `started` event.
        With `lock` (the trainer's case) this process owns the directory (runlog/ownership.py) before run.json exists;
        `close()` gives it up."""
        if stage not in layout.STAGES:
            raise ValueError(f"stage {stage!r} is not one of {layout.STAGES}")
        experiment_path = Path(experiment_path)
        if experiment_sha256 is None:
            experiment_sha256 = hashlib.sha256(experiment_path.read_bytes()).hexdigest()
        environment = environment or RunEnvironment.detect(repo_dir=experiment_path.parent)
        started = clock()
        runs_dir = Path(runs_dir)
        runs_dir.mkdir(parents=True, exist_ok=True)
        base = run_id or new_run_id(name, stage, started)
        run_dir, suffix = runs_dir / base, 1
        while True:
            try:
                run_dir.mkdir()
                break
            except FileExistsError:
                if run_id is not None:
                    raise
                suffix += 1
                run_dir = runs_dir / f"{base}-{suffix}"
        manifest: dict[str, Any] = {
            "format_version": layout.FORMAT_VERSION,
            "id": run_dir.name,
            "name": name,
            "experiment": {"path": _relative_path(experiment_path, run_dir), "sha256": experiment_sha256},
            "config": dict(config),
            "stage": stage,
            "algorithm": algorithm,
            "status": "running",
            "pid": environment.pid,
            "host": environment.host,
            "started": started,
            "ended": None,
            "heartbeat": started,
            "progress": {"step": 0, "total": progress_total, **({"unit": progress_unit} if progress_unit else {})},
            "git_commit": environment.git_commit,
            "git_dirty": environment.git_dirty,
            "parent": dict(parent) if parent else None,
            **(
                {"baseline_evals": {split: _relative_path(Path(d), run_dir) for split, d in baseline_evals.items()}}
                if baseline_evals
                else {}
            ),
            "versions": dict(environment.versions),
            "device": dict(environment.device),
        }
        writer = cls(run_dir, manifest, clock=clock, schemas=schemas, echo=echo)
        try:
            if lock:
                writer._lock = RunLock.acquire(run_dir, command=stage)
            writer._write_manifest()
        except Exception:
            writer.close()
            shutil.rmtree(run_dir, ignore_errors=True)
            raise
        writer.paths.trajectories.mkdir()
        writer.event(
            "started", f"{stage} started ({algorithm}, pid {environment.pid})", stage=stage, pid=environment.pid
        )
        return writer

    @classmethod
    def reopen(
        cls,
        run_dir: str | Path,
        *,
        environment: RunEnvironment | None = None,
        clock: Clock = utc_now,
        schemas: SchemaSet | None = None,
        echo: TextIO | None = None,
        lock: RunLock | None = None,
    ) -> RunWriter:
        """Continue an existing run directory (`resume`): run.json gets status `running` again with this process's
        pid, host, versions and device, `ended` and `error` cleared; `started`, the config and the git fields stay.
        Appends go to the end of the existing files (an appender cuts a torn tail first, with a warning event).
        `lock` is the run's lock the caller already holds (resume takes it before it checks anything); without one
        it is taken here. The writer releases it in `close()`."""
        run_dir = Path(run_dir)
        own_lock = lock is None
        lock = RunLock.acquire(run_dir, command="resume") if lock is None else lock
        try:
            manifest = read_manifest(run_dir)
        except BaseException:
            if own_lock:
                lock.release()
            raise
        environment = environment or RunEnvironment.detect()
        now = clock()
        manifest.update(
            status="running",
            pid=environment.pid,
            host=environment.host,
            ended=None,
            error=None,
            heartbeat=now,
            versions=dict(environment.versions),
            device=dict(environment.device),
        )
        writer = cls(run_dir, manifest, clock=clock, schemas=schemas, echo=echo)
        writer._lock = lock
        writer._write_manifest()
        return writer

    @property
    def run_dir(self) -> Path:
        return self.paths.root

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the current run.json content."""
        return dict(self._manifest)

    def _validate(self, kind: str, record: Any, file: str, line: int | None = None) -> None:
        if self._schemas is not None:
            self._schemas.validate(kind, record, file, line)

    def _write_manifest(self) -> None:
        self._validate("run", self._manifest, layout.MANIFEST)
        write_json_atomic(self.paths.manifest, self._manifest)

    def update_manifest(self, **fields: Any) -> None:
        """Change top-level run.json fields (atomically); the heartbeat is refreshed too."""
        updated = {**self._manifest, "heartbeat": self._clock(), **fields}
        previous, self._manifest = self._manifest, updated
        try:
            self._write_manifest()
        except Exception:
            self._manifest = previous
            raise

    def set_progress(self, step: int, total: int | None = None, unit: str | None = None) -> None:
        progress = dict(self._manifest.get("progress") or {})
        progress["step"] = step
        if total is not None:
            progress["total"] = total
        if unit is not None:
            progress["unit"] = unit
        self.update_manifest(progress=progress)

    # -- reporters ---------------------------------------------------------------------------------------------

    def add_reporter(self, reporter: Reporter) -> None:
        """Send every metrics row, trajectory and evaluation also to `reporter` until the run ends."""
        self._reporters.append(reporter)

    def _report(self, method: str, *args: Any) -> None:
        # A dashboard is a convenience: its failure must never cost the run (the record is already on disk).
        for reporter in list(self._reporters):
            try:
                getattr(reporter, method)(*args)
            except Exception as exc:
                self._reporters.remove(reporter)
                self.event(
                    "warning",
                    f"report_to {reporter.name}: {method} failed, no more reporting to it in this "
                    f"run: {type(exc).__name__}: {exc}",
                    code="report_failed",
                )
                self._close_reporters([reporter], "failed", quiet=True)

    def _close_reporters(self, reporters: list[Reporter], status: str, *, quiet: bool = False) -> None:
        for reporter in reporters:
            try:
                reporter.close(status)
            except Exception as exc:
                if not quiet:  # quiet: it already failed, or the run's files are closing
                    self.event(
                        "warning",
                        f"report_to {reporter.name}: closing failed: {type(exc).__name__}: {exc}",
                        code="report_failed",
                    )

    # -- appends -----------------------------------------------------------------------------------------------

    def _appender(self, slot: str, path: Path) -> JsonlAppender:
        appender = getattr(self._files, slot)
        if appender is None:
            appender = JsonlAppender(path)
            setattr(self._files, slot, appender)
            if appender.repaired:
                self.event(
                    "warning",
                    f"{self.paths.relative(path)}: cut {appender.repaired} bytes of a torn last line",
                    code="torn_line_repaired",
                )
        return appender

    def _append(self, slot: str, path: Path, kind: str, record: Mapping[str, Any]) -> Any:
        appender = self._appender(slot, path)
        self._validate(kind, record, self.paths.relative(path), appender.lines + 1)
        return appender.append(record)

    def event(self, type: str, message: str, **fields: Any) -> dict[str, Any]:
        """Append an event (see event.schema.json for the fields each type carries) and echo it when asked."""
        record = {"time": self._clock(), "type": type, "message": message, **fields}
        self._append("events", self.paths.events, "event", record)
        if self._echo is not None:
            self._echo.write(dumps_line(record).decode("utf-8"))
            self._echo.flush()
        return record

    def metrics(
        self,
        step: int,
        kind: str,
        values: Mapping[str, Any],
        *,
        epoch: float | None = None,
        split: str | None = None,
    ) -> dict[str, Any]:
        """Append one metrics row. Names must be namespaced (`loss/pg`); NaN/inf and None are written as null."""
        record: dict[str, Any] = {"step": int(step), "time": self._clock(), "kind": kind}
        if epoch is not None:
            record["epoch"] = float(epoch)
        if split is not None:
            record["split"] = split
        for name, value in values.items():
            if not METRIC_NAME.match(name):
                raise ValueError(f"metric name {name!r} must be namespaced as group/name (see metric_name())")
            record[name] = _finite_or_none(name, value)
        self._append("metrics", self.paths.metrics, "metric", record)
        self._report("metrics", record)
        return record

    def _trajectory_appender(self, name: str) -> JsonlAppender:
        files = self._files.trajectories
        if name not in files:
            for other in list(files):  # one trajectory file at a time: updates are written in order
                files.pop(other).close()
            files[name] = JsonlAppender(self.paths.trajectory_file(name))
        return files[name]

    def trajectory(self, record: Mapping[str, Any], *, file: str | None = None) -> dict[str, Any]:
        """Append a trajectory to its file (it-NNNNNN.jsonl for phase train, …) then its row to the index.

        `steps[i]["tokens"]` may be a TokenArrays (encoded here) or the already-encoded dict. A missing `id` becomes
        `<file stem>-<line, 4 digits>`. Returns the index row.
        """
        phase = record.get("phase")
        if file is None:
            number = record.get("update") if phase != "eval" else record.get("task", {}).get("split")
            file = layout.trajectory_file_name(str(phase), number if number is not None else "")
        appender = self._trajectory_appender(file)
        steps = []
        for step in record.get("steps", []):
            tokens = step.get("tokens")
            steps.append({**step, "tokens": tokens.encode()} if isinstance(tokens, TokenArrays) else dict(step))
        out = {**record, "steps": steps}
        if "id" not in out:
            out = {"id": f"{file.removesuffix('.jsonl')}-{appender.lines + 1:04d}", **out}
        relative = f"{layout.TRAJECTORIES_DIR}/{file}"
        self._validate("trajectory", out, relative, appender.lines + 1)
        placed = appender.append(out)
        row = self.index_row(out, file, placed)
        self._append("index", self.paths.trajectory_index, "trajectory-index", row)
        self._report("trajectory", out)
        return row

    @staticmethod
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

    def skill(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Append a Stage-1 analysis record; `time` defaults to now and `review` to pending."""
        out = {**record}
        out.setdefault("time", self._clock())
        out.setdefault("review", {"state": "pending"})
        self._append("skills", self.paths.skills, "skill", out)
        return out

    def write_eval(self, report: Mapping[str, Any]) -> Path:
        """Write eval/<split>.json atomically (`time` defaults to now); returns its path."""
        out = {**report}
        out.setdefault("time", self._clock())
        path = self.paths.eval_file(out["split"])
        self._validate("eval", out, self.paths.relative(path))
        path.parent.mkdir(exist_ok=True)
        write_json_atomic(path, out)
        self._report("eval", out)
        return path

    # -- checkpoints and control -------------------------------------------------------------------------------

    @contextmanager
    def checkpoint(self, step: int, *, message: str | None = None) -> Iterator[Path]:
        """Yield an empty temporary directory to save into; on success its manifest is written (the sizes of every
        file, runlog/checkpoint_manifest.py), it is renamed to checkpoints/step-NNNNNN (replacing an older one of the
        same step) and a `checkpoint` event is appended. On error it is removed and the error names it."""
        final = self.paths.checkpoint(step)
        tmp = final.with_name(f".tmp-{final.name}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            yield tmp
            write_checkpoint_manifest(tmp, step)  # last: the checkpoint is complete once this exists
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError) and not exc.filename:
                raise type(exc)(exc.errno, exc.strerror or str(exc), str(tmp)) from exc
            if isinstance(exc, Exception) and not isinstance(exc, OSError):
                # torch and safetensors report a full disk without the file (RuntimeError, SafetensorError)
                raise CheckpointWriteError(
                    f"could not write the checkpoint {tmp}: {type(exc).__name__}: {exc}"
                ) from exc
            raise
        self.sync()
        old = final.with_name(f".old-{final.name}")
        if final.exists():
            shutil.rmtree(old, ignore_errors=True)
            final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)
        relative = self.paths.relative(final)
        self.event("checkpoint", message or f"checkpoint {relative}", step=step, path=relative)

    def stop_requested(self) -> bool:
        """True when a `control` file exists: in format 1 its existence is the stop request (its content, when
        readable, only says who asked and when), so an empty file written by `touch` stops a run too."""
        return self.paths.control.exists()

    def begin_stop(self, source: str, *, signal: str | None = None) -> None:
        """Record a stop request seen at a step boundary: status stopping and a `stop_requested` event. The loop then
        checkpoints and calls `finish("stopped")`."""
        if self._manifest.get("status") != "stopping":
            self.update_manifest(status="stopping")
            what = f"signal {signal}" if signal else "the control file"
            self.event(
                "stop_requested", f"stop requested by {what}", source=source, **({"signal": signal} if signal else {})
            )

    # -- the end -----------------------------------------------------------------------------------------------

    def finish(
        self, status: str, message: str | None = None, *, error: str | None = None, detail: str | None = None
    ) -> None:
        """Set the final status (stopped | failed | completed), append `finished` (after `error` when failed), close."""
        if status not in layout.FINAL_STATUSES:
            raise ValueError(f"final status {status!r} is not one of {layout.FINAL_STATUSES}")
        if status == "failed" and error:
            self.event("error", error, **({"detail": detail} if detail else {}))
        now = self._clock()
        fields: dict[str, Any] = {"status": status, "ended": now, "heartbeat": now}
        if error is not None:
            fields["error"] = error
        self.update_manifest(**fields)
        reporters, self._reporters = self._reporters, []
        self._close_reporters(reporters, status)  # before `finished`, the last event of the process
        self.event("finished", message or f"run {status}", status=status)
        self.close()

    def sync(self) -> None:
        """fsync every open JSONL file (done at checkpoints, so a resumed run finds what the checkpoint saw)."""
        for appender in (
            self._files.events,
            self._files.metrics,
            self._files.skills,
            self._files.index,
            *self._files.trajectories.values(),
        ):
            if appender is not None:
                appender.sync()

    def close(self) -> None:
        reporters, self._reporters = self._reporters, []  # still open when finish() could not run (a full disk)
        self._close_reporters(reporters, str(self._manifest.get("status")), quiet=True)
        for slot in ("events", "metrics", "skills", "index"):
            appender = getattr(self._files, slot)
            if appender is not None:
                appender.close()
                setattr(self._files, slot, None)
        for appender in self._files.trajectories.values():
            appender.close()
        self._files.trajectories.clear()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._manifest.get("status") in ("running", "stopping"):
            if exc is None:
                self.finish("completed")
            else:
                self.finish("failed", error=f"{exc_type.__name__}: {exc}")
        else:
            self.close()
