"""Room kept for a run's last records on a disk that fills up (docs/run-format.md §10, "A full disk").

While a run is live its writer holds `layout.SPACE_RESERVE` in the run directory; when the run ends (and first thing
when it fails) the file is deleted, so the `error` and `finished` events and the rewritten run.json fit even when a
write of the run itself found the disk full.
"""

from __future__ import annotations

from pathlib import Path

from seed_trainer.runlog import layout


def hold(run_dir: Path) -> None:
    """Write SPACE_RESERVE_BYTES of real blocks (zeros, not a sparse file). A disk already too full to take them is
    left to fail at the run's own writes."""
    try:
        with open(run_dir / layout.SPACE_RESERVE, "wb") as handle:
            handle.write(bytes(layout.SPACE_RESERVE_BYTES))
    except OSError:
        free(run_dir)


def free(run_dir: Path) -> None:
    (run_dir / layout.SPACE_RESERVE).unlink(missing_ok=True)
