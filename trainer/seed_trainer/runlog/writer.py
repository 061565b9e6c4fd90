"""The trainer's side of the run directory: create it, keep run.json current, append records (docs/run-format.md)."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from seed_trainer.runlog import layout, space_reserve
from seed_trainer.runlog.atomic import write_json_atomic
from seed_trainer.runlog.checkpoint_manifest import checkpoint_in_place
from seed_trainer.runlog.environment import RunEnvironment
from seed_trainer.runlog.fields import Clock, finite_or_none, new_run_id, utc_now
from seed_trainer.runlog.jsonl import JsonlAppender, dumps_line
from seed_trainer.runlog.layout import RunPaths
from seed_trainer.runlog.manifest import new_manifest, resumed_fields, unique_run_dir
from seed_trainer.runlog.metric_names import check_writable_name
from seed_trainer.runlog.ownership import RunLock
from seed_trainer.runlog.reader import read_manifest
from seed_trainer.runlog.report_hooks import Reporter, Reporters
from seed_trainer.runlog.schemas import SchemaSet
from seed_trainer.runlog.tokens import TokenArrays
from seed_trainer.runlog.trajectory_index import index_row


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
        self._reporters = Reporters(lambda message: self.event("warning", message, code="report_failed"))

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
        run_dir = unique_run_dir(runs_dir, run_id or new_run_id(name, stage, started), exact=run_id is not None)
        manifest = new_manifest(
            run_dir,
            name=name,
            stage=stage,
            algorithm=algorithm,
            config=config,
            experiment_path=experiment_path,
            experiment_sha256=experiment_sha256,
            environment=environment,
            started=started,
            parent=parent,
            baseline_evals=baseline_evals,
            progress_total=progress_total,
            progress_unit=progress_unit,
        )
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
        space_reserve.hold(writer.paths.root)
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
        manifest.update(resumed_fields(environment, now))
        writer = cls(run_dir, manifest, clock=clock, schemas=schemas, echo=echo)
        writer._lock = lock
        writer._write_manifest()
        space_reserve.hold(writer.paths.root)
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
        self._reporters.add(reporter)

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
        """Append one metrics row. Names must be namespaced (`loss/pg`) and listed, not deprecated, in
        schemas/metric.schema.json (runlog/metric_names.py); NaN/inf and None are written as null."""
        record: dict[str, Any] = {"step": int(step), "time": self._clock(), "kind": kind}
        if epoch is not None:
            record["epoch"] = float(epoch)
        if split is not None:
            record["split"] = split
        for name, value in values.items():
            check_writable_name(name)
            record[name] = finite_or_none(name, value)
        self._append("metrics", self.paths.metrics, "metric", record)
        self._reporters.send("metrics", record)
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
        row = index_row(out, file, placed)
        self._append("index", self.paths.trajectory_index, "trajectory-index", row)
        self._reporters.send("trajectory", out)
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
        self._reporters.send("eval", out)
        return path

    # -- checkpoints and control -------------------------------------------------------------------------------

    @contextmanager
    def checkpoint(self, step: int, *, message: str | None = None) -> Iterator[Path]:
        """Yield an empty temporary directory to save into; on success its manifest is written (the sizes of every
        file, runlog/checkpoint_manifest.py), it is renamed to checkpoints/step-NNNNNN (replacing an older one of the
        same step) and a `checkpoint` event is appended. On error it is removed and the error names it."""
        final = self.paths.checkpoint(step)
        with checkpoint_in_place(final, step, self.sync) as tmp:
            yield tmp
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
        space_reserve.free(self.paths.root)  # first: on a full disk it is the room the writes below need
        if status == "failed" and error:
            self.event("error", error, **({"detail": detail} if detail else {}))
        now = self._clock()
        fields: dict[str, Any] = {"status": status, "ended": now, "heartbeat": now}
        if error is not None:
            fields["error"] = error
        self.update_manifest(**fields)
        self._reporters.close(status)  # before `finished`, the last event of the process
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
        # still open when finish() could not run (a full disk)
        self._reporters.close(str(self._manifest.get("status")), quiet=True)
        space_reserve.free(self.paths.root)
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
