"""How `resume` takes a `train` run back before its loop continues: check that it can (the manifest, the inputs, write
access, a complete checkpoint and what it keeps), then own the run, clean up after the interrupted writer, set aside the
checkpoints it must not use, roll back what was written after the one it continues from, and reopen the writer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from seed_trainer.checkpoints.checkpoint import read_state
from seed_trainer.checkpoints.folder import (
    checkpoint_before,
    checkpoint_dirs,
    checkpoint_update,
    remove_partial_checkpoints,
    set_aside_broken,
    usable_checkpoint,
)
from seed_trainer.checkpoints.rollback import (
    first_damaged_update,
    plan_rollback,
    repair_to_update,
    roll_back,
    rollback_candidates,
)
from seed_trainer.compute import distributed as dist
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.experiment.loading import experiment_from_data
from seed_trainer.experiment.preflight import check_inputs
from seed_trainer.runlog import RunWriter, layout
from seed_trainer.runlog.ownership import RunLock, RunNotWritableError
from seed_trainer.runlog.reader import read_manifest


class ResumeError(RuntimeError):
    """A run directory that cannot be resumed, with the reason."""


def recorded_device(run_dir: Path) -> str:
    """The run's `model.device` (it picks the process group's backend); `auto` when run.json cannot say — resume's own
    checks report that."""
    try:
        return str(read_manifest(run_dir)["config"]["model"].get("device", "auto"))
    except Exception:
        return "auto"


def reopen_for_resume(
    run_dir: Path, echo: TextIO | None, repair: bool, ranks: dist.Ranks
) -> tuple[RunWriter, ExperimentConfig, Path | None]:
    """Rank 0's part of `resume` before the loop continues: own the run, check it (`check_resumable`), then clean up,
    set aside the checkpoints it must not use and roll back (or with `repair`, repair) what was written after the one
    it continues from, and say so in events. Returns the reopened writer, the recorded configuration and that
    checkpoint (None: from the start)."""
    lock = RunLock.acquire(run_dir, command=None)  # recorded once the checks pass: a refusal changes nothing
    try:
        config, checkpoint, broken, plan, superseded = check_resumable(run_dir, repair)
        lock.record_owner("resume")
        changes = clean_up(run_dir)
        changes += [f"{layout.CHECKPOINTS_DIR}/{set_aside_broken(path)}: {problem}" for path, problem in broken]
        changes += [
            f"{layout.CHECKPOINTS_DIR}/{set_aside_broken(path, 'superseded')}: set aside, as update "
            f"{checkpoint_update(checkpoint) + 1} is trained again"
            for path in superseded
        ]
        done = read_state(checkpoint)["update"] if checkpoint else 0
        changes += repair_to_update(run_dir, done) if repair else roll_back(run_dir, plan)
        writer = RunWriter.reopen(run_dir, echo=echo, lock=lock)
    except BaseException:
        lock.release()
        raise
    where = writer.paths.relative(checkpoint) if checkpoint else "the start (no checkpoint yet)"
    processes = f", {ranks.world} processes" if ranks.distributed else ""
    writer.event(
        "resumed",
        f"resumed from {where}, update {done + 1} next (pid {os.getpid()}{processes})",
        step=done,
        pid=os.getpid(),
    )
    if broken:
        writer.event(
            "warning",
            f"fell back to {where}: "
            + "; ".join(f"{writer.paths.relative(p)} is incomplete ({why})" for p, why in broken),
            code="checkpoint_incomplete",
        )
    if changes:
        writer.event(
            "warning",
            "rolled back what was written after the checkpoint: " + "; ".join(changes),
            code="repaired" if repair else "rolled_back",
        )
    if writer.paths.control.exists():  # the stop request this run obeyed has been served
        writer.paths.control.unlink()
        writer.event("info", "removed the control file of the stop this run obeyed")
    writer.set_progress(done)
    return writer, config, checkpoint


def check_resumable(run_dir: Path, repair: bool):
    """Everything `resume` checks before it changes anything: the manifest, the inputs, write access, the checkpoint to
    continue from and what it keeps of each file. Raises ResumeError (or an input/format error) when it cannot."""
    manifest = read_manifest(run_dir)
    if manifest["stage"] != "train":
        raise ResumeError(f"{run_dir}: only `train` runs can be resumed; this one is a `{manifest['stage']}` run")
    if manifest["status"] == "completed":
        raise ResumeError(f"{run_dir}: the run has completed all its updates")
    experiment = run_dir / manifest["experiment"]["path"]
    config = experiment_from_data(manifest["config"], experiment.parent, f"{run_dir / 'run.json'}: config")
    check_inputs(config)
    folders = [run_dir / name for name in (layout.TRAJECTORIES_DIR, layout.CHECKPOINTS_DIR, layout.EVAL_DIR)]
    for path in [
        run_dir,
        *[f for f in folders if f.is_dir()],
        run_dir / layout.MANIFEST,
        *rollback_candidates(run_dir),
    ]:
        if not os.access(path, os.W_OK):
            raise RunNotWritableError(f"{run_dir}: the run is read-only ({path} cannot be written)")
    checkpoint, broken = usable_checkpoint(run_dir)
    if broken and checkpoint is None:  # starting over would discard every update: the user decides that, not resume
        raise ResumeError(
            f"{run_dir}: no complete checkpoint to resume from ("
            + "; ".join(f"{p.relative_to(run_dir).as_posix()}: {why}" for p, why in broken)
            + "); nothing was changed. Delete the checkpoints folder to start the run over."
        )
    superseded: list[Path] = []
    if (
        repair
        and checkpoint is not None
        and (damage := first_damaged_update(run_dir, read_state(checkpoint)["update"]))
    ):
        update, why = damage
        earlier = checkpoint_before(run_dir, update)
        if earlier is None:  # never a "completed" run that skips the damaged update
            raise ResumeError(
                f"{run_dir}: update {update} must be trained again ({why}), but no complete checkpoint before it is "
                "kept; nothing was changed. Delete the checkpoints folder to start the run over."
            )
        superseded = [path for path in checkpoint_dirs(run_dir) if checkpoint_update(path) > checkpoint_update(earlier)]
        checkpoint = earlier
    plan = plan_rollback(run_dir, read_state(checkpoint)["files"] if checkpoint else {})
    if plan.problems and not repair:
        raise ResumeError(
            f"{run_dir}: what checkpoint {checkpoint.name if checkpoint else '(none)'} keeps is damaged, nothing was "
            "changed:\n  "
            + "\n  ".join(str(p) for p in plan.problems)
            + "\nresume --repair keeps the records that parse, moves the others to <file>.corrupt and rebuilds the index"
        )
    return config, checkpoint, broken, plan, superseded


def clean_up(run_dir: Path) -> list[str]:
    """Remove what an interrupted writer left: temporary checkpoint directories and `.<name>.tmp-<pid>` documents."""
    removed = [f"{layout.CHECKPOINTS_DIR}/{name}: removed" for name in remove_partial_checkpoints(run_dir)]
    for folder in (run_dir, run_dir / layout.EVAL_DIR):
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if layout.STALE_DOCUMENT_TEMP.match(path.name) and path.is_file():
                    path.unlink()
                    removed.append(f"{path.relative_to(run_dir).as_posix()}: stale temporary file removed")
    return removed
