"""run.json as the writer starts it: a new run's fresh, unique directory and manifest, and the fields a resumed run
takes from the process that continues it (docs/run-format.md)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.environment import RunEnvironment
from seed_trainer.runlog.fields import relative_path


def unique_run_dir(runs_dir: Path, base: str, *, exact: bool) -> Path:
    """Create `runs_dir/base`, or unless `exact` (a run id the caller chose) the first free `base-2`, `base-3`, …"""
    run_dir, suffix = runs_dir / base, 1
    while True:
        try:
            run_dir.mkdir()
            return run_dir
        except FileExistsError:
            if exact:
                raise
            suffix += 1
            run_dir = runs_dir / f"{base}-{suffix}"


def new_manifest(
    run_dir: Path,
    *,
    name: str,
    stage: str,
    algorithm: str,
    config: Mapping[str, Any],
    experiment_path: Path,
    experiment_sha256: str,
    environment: RunEnvironment,
    started: str,
    parent: Mapping[str, Any] | None,
    baseline_evals: Mapping[str, str | Path] | None,
    progress_total: int | None,
    progress_unit: str | None,
) -> dict[str, Any]:
    """The run.json of a run just created in `run_dir`: status running, this process's pid, host, versions and
    device; paths relative to the run directory."""
    return {
        "format_version": layout.FORMAT_VERSION,
        "id": run_dir.name,
        "name": name,
        "experiment": {"path": relative_path(experiment_path, run_dir), "sha256": experiment_sha256},
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
            {"baseline_evals": {split: relative_path(Path(d), run_dir) for split, d in baseline_evals.items()}}
            if baseline_evals
            else {}
        ),
        "versions": dict(environment.versions),
        "device": dict(environment.device),
    }


def resumed_fields(environment: RunEnvironment, now: str) -> dict[str, Any]:
    """What run.json changes when `resume` continues the run: status running again with this process's pid, host,
    versions and device, `ended` and `error` cleared."""
    return dict(
        status="running",
        pid=environment.pid,
        host=environment.host,
        ended=None,
        error=None,
        heartbeat=now,
        versions=dict(environment.versions),
        device=dict(environment.device),
    )
