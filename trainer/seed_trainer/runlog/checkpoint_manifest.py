"""Whether a checkpoint directory is complete: `manifest.json`, written last, lists every file and its size.

A crash, a full disk or a hand edit can leave `checkpoints/step-NNNNNN/` without the model, the optimizer or the RNG
state; the rename into place only proves the writer got that far, not that each file is whole. The manifest makes the
check a matter of sizes, the same on both sides (src/runs/checkpointManifest.ts).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.errors import RunFormatError
from seed_trainer.runlog.jsonl import naming_file
from seed_trainer.runlog.schemas import SchemaSet


def _files_of(directory: Path) -> dict[str, int]:
    return {
        path.relative_to(directory).as_posix(): path.stat().st_size
        for path in sorted(directory.rglob("*"))
        if path.is_file() and path.name != layout.CHECKPOINT_MANIFEST
    }


def write_checkpoint_manifest(directory: str | Path, step: int) -> dict[str, Any]:
    """fsync every file of `directory`, then write its manifest (and fsync that): call it after the last file."""
    directory = Path(directory)
    files = _files_of(directory)
    for name in files:
        with naming_file(directory / name), open(directory / name, "rb") as handle:
            os.fsync(handle.fileno())
    manifest = {"step": step, "files": files}
    path = directory / layout.CHECKPOINT_MANIFEST
    with naming_file(path), open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(manifest, indent=2) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    return manifest


def checkpoint_problem(directory: str | Path, schemas: SchemaSet | None = None) -> str | None:
    """Why the checkpoint is incomplete (one line naming the file), or None when the manifest holds and every file it
    lists has its recorded size. With `schemas` the manifest is validated against its schema too."""
    directory = Path(directory)
    path = directory / layout.CHECKPOINT_MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"no {layout.CHECKPOINT_MANIFEST} (the checkpoint was never finished)"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{layout.CHECKPOINT_MANIFEST} is unreadable ({exc})"
    if schemas is not None:
        try:
            schemas.validate("checkpoint-manifest", manifest, layout.CHECKPOINT_MANIFEST)
        except RunFormatError as error:
            return f"{layout.CHECKPOINT_MANIFEST} is not valid: {error}"
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or not files:
        return f"{layout.CHECKPOINT_MANIFEST} lists no files"
    for name, size in files.items():
        try:
            found = (directory / name).stat().st_size
        except FileNotFoundError:
            return f"{name} is missing"
        except OSError as exc:
            return f"{name} is unreadable ({exc.strerror})"
        if found != size:
            return f"{name} has {found} bytes, the manifest says {size}"
    return None


class CheckpointWriteError(RuntimeError):
    """Saving a checkpoint failed; the message names its directory (the cause is chained)."""


@contextmanager
def checkpoint_in_place(final: Path, step: int, sync: Callable[[], None]) -> Iterator[Path]:
    """Yield an empty temporary directory next to `final` to save into; on success write its manifest, `sync` (the
    run's open files), and rename it to `final`, replacing an older one. On error it is removed and the error names
    it (RunWriter.checkpoint)."""
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
            raise CheckpointWriteError(f"could not write the checkpoint {tmp}: {type(exc).__name__}: {exc}") from exc
        raise
    sync()
    old = final.with_name(f".old-{final.name}")
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)
