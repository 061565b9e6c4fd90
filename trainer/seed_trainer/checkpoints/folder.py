"""The checkpoints folder of a run directory: which `step-NNNNNN` directories are complete, which one `resume`
continues from, and clearing away what it must not use (temporary directories a crash left, broken checkpoints).
What one checkpoint holds, and saving and loading it, is `checkpoints/checkpoint.py`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from seed_trainer.checkpoints.checkpoint import OPTIMIZER_FILE, RNG_FILE, STATE_FILE, is_adapter, read_state
from seed_trainer.runlog import layout
from seed_trainer.runlog.checkpoint_manifest import checkpoint_problem


def checkpoint_dirs(run_dir: Path) -> list[Path]:
    """`checkpoints/step-NNNNNN` directories, highest step first (temporary directories never count)."""
    checkpoints = run_dir / layout.CHECKPOINTS_DIR
    if not checkpoints.is_dir():
        return []
    found = [
        (int(m.group(1)), child)
        for child in checkpoints.iterdir()
        if (m := layout.CHECKPOINT_NAME.match(child.name)) and child.is_dir()
    ]
    return [path for _, path in sorted(found, reverse=True)]


def _legacy_complete(directory: Path) -> bool:
    """A checkpoint written before manifests existed that holds every file resume loads (it cannot be size-checked)."""
    weights = ("adapter_config.json", "adapter_model.safetensors") if is_adapter(directory) else ("config.json",)
    has_model = (directory / "model.safetensors").exists() or (directory / "model.safetensors.index.json").exists()
    required = (STATE_FILE, OPTIMIZER_FILE, RNG_FILE, *weights)
    return all((directory / name).is_file() for name in required) and (is_adapter(directory) or has_model)


def training_checkpoint_problem(directory: Path) -> str | None:
    """Why `directory` cannot be resumed from: incomplete (its manifest), or no readable training state. A checkpoint
    from before manifests is accepted when every file resume loads is there."""
    problem = checkpoint_problem(directory)
    if problem is not None and not (directory / layout.CHECKPOINT_MANIFEST).exists() and _legacy_complete(directory):
        problem = None
    if problem is None:
        try:
            state = read_state(directory)
        except (OSError, ValueError) as exc:
            return f"{STATE_FILE} is unreadable ({exc})"
        if not isinstance(state.get("update"), int) or not isinstance(state.get("files"), dict):
            return f"{STATE_FILE} has no `update` and `files`"
    return problem


def usable_checkpoint(run_dir: Path) -> tuple[Path | None, list[tuple[Path, str]]]:
    """The highest complete checkpoint, and the broken ones above it with what is wrong with each."""
    broken = []
    for directory in checkpoint_dirs(run_dir):
        problem = training_checkpoint_problem(directory)
        if problem is None:
            return directory, broken
        broken.append((directory, problem))
    return None, broken


def checkpoint_update(directory: Path) -> int:
    """The update a `step-NNNNNN` checkpoint holds, read from its name (its state file may be what is broken)."""
    match = layout.CHECKPOINT_NAME.match(directory.name)
    return int(match.group(1)) if match else 0


def checkpoint_before(run_dir: Path, update: int) -> Path | None:
    """The highest complete checkpoint of an update before `update` (what `resume --repair` redoes `update` from)."""
    for directory in checkpoint_dirs(run_dir):
        if checkpoint_update(directory) < update and training_checkpoint_problem(directory) is None:
            return directory
    return None


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The highest complete checkpoint (see `usable_checkpoint`)."""
    return usable_checkpoint(run_dir)[0]


def remove_partial_checkpoints(run_dir: Path) -> list[str]:
    """Delete temporary checkpoint directories (`.tmp-step-…`, `.old-step-…`) a crash left behind."""
    checkpoints = run_dir / layout.CHECKPOINTS_DIR
    removed = []
    if checkpoints.is_dir():
        for child in sorted(checkpoints.iterdir()):
            if layout.STALE_CHECKPOINT_TEMP.match(child.name) and child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
                removed.append(child.name)
    return removed


def set_aside_broken(directory: Path, why: str = "broken") -> str:
    """Rename a checkpoint resume must not use to `.<why>-step-NNNNNN` (kept for inspection, ignored by readers and by
    resume): `broken`, or `superseded` when `resume --repair` trains its updates again from an earlier one."""
    aside = directory.with_name(f".{why}-{directory.name}")
    shutil.rmtree(aside, ignore_errors=True)
    directory.rename(aside)
    return aside.name
