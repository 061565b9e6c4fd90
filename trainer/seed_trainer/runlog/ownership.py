"""One owner per run directory: an exclusive OS file lock on `<run>/lock`, held for the trainer's lifetime.

The kernel drops the lock when its process dies, however it dies (kill -9 included), so a lock is never stale and a
second trainer can tell "someone writes this run" from "its writer is gone" without guessing from pids. The file's
content (`{"pid", "host", "since", "command"}`) only names the owner for messages; the lock is the truth.
Linux/macOS use `flock`; Windows locks one byte far past the content with `msvcrt.locking`.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.fields import utc_now

_WINDOWS_LOCK_OFFSET = 1 << 20  # the byte locked on Windows, past any content, so readers can still read the owner


class RunOwnedError(RuntimeError):
    """Another live process owns the run directory."""

    def __init__(self, run_dir: Path, owner: dict[str, Any] | None) -> None:
        self.run_dir, self.owner = run_dir, owner or {}
        who = f"pid {self.owner.get('pid', '?')} on {self.owner.get('host', '?')}"
        since = f" since {self.owner['since']}" if self.owner.get("since") else ""
        super().__init__(
            f"{run_dir}: the run is owned by another trainer ({who}{since}); wait for it to end or stop it"
        )


class RunNotWritableError(RuntimeError):
    """The run directory (or its lock file) cannot be written: read-only, immutable, or not ours."""


def _try_lock(fd: int) -> bool:
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def read_owner(run_dir: str | Path) -> dict[str, Any] | None:
    """Who the lock file names (the last owner, live or not); None when there is no readable record."""
    try:
        text = (Path(run_dir) / layout.LOCK).read_text(encoding="utf-8")
        owner = json.loads(text) if text.strip() else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return owner if isinstance(owner, dict) else None


def _current_owner(path: Path, wait: float) -> dict[str, Any] | None:
    """The record of the process that holds the lock. A new owner writes its record just after taking the lock, so
    the file may still name the previous one: where /proc/locks tells the holder's pid, wait up to `wait` seconds for
    the record to match it (and report that pid if it never does)."""
    deadline = time.monotonic() + wait
    while True:
        owner = read_owner(path.parent)
        holders = _holder_pids(path)
        if holders is None:  # no lock table: trust the record once there is one
            if owner is not None or time.monotonic() >= deadline:
                return owner
        elif owner is not None and owner.get("pid") in holders:
            return owner
        elif time.monotonic() >= deadline:
            known = [pid for pid in holders or [] if pid > 0]
            return {"pid": known[0], "host": socket.gethostname()} if known else owner
        time.sleep(0.01)


class RunLock:
    """The held lock of one run directory. `acquire` takes it or raises; `release` (or process death) frees it."""

    def __init__(self, run_dir: Path, fd: int, *, created: bool = False) -> None:
        self.run_dir, self._fd, self._created, self._recorded = run_dir, fd, created, False

    @classmethod
    def acquire(cls, run_dir: str | Path, *, command: str | None, owner_wait: float = 1.0) -> RunLock:
        """Take the lock of an existing run directory, then record this process as its owner (with `command` None,
        later, by `record_owner`: a process that may still refuse the run leaves the file as it was).

        Raises RunOwnedError naming the owner when another process holds it (after waiting up to `owner_wait` seconds
        for a just-started owner to write its name), RunNotWritableError when the lock file cannot be opened for
        writing."""
        run_dir = Path(run_dir)
        path = run_dir / layout.LOCK
        existed = path.exists()
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise RunNotWritableError(f"{run_dir}: the run directory is not writable ({exc.strerror}: {path})") from exc
        if not _try_lock(fd):
            os.close(fd)
            raise RunOwnedError(run_dir, _current_owner(path, owner_wait))
        lock = cls(run_dir, fd, created=not existed)
        if command is not None:
            lock.record_owner(command)
        return lock

    def record_owner(self, command: str) -> None:
        """Write this process's record into the held lock file (who owns the run, for others' messages)."""
        path = self.run_dir / layout.LOCK
        record = {"pid": os.getpid(), "host": socket.gethostname(), "since": _now(), "command": command}
        try:
            os.ftruncate(self._fd, 0)
            os.lseek(self._fd, 0, os.SEEK_SET)
            os.write(self._fd, (json.dumps(record) + "\n").encode("utf-8"))
        except OSError as exc:
            self.release()
            raise RunNotWritableError(
                f"{self.run_dir}: the run directory is not writable ({exc.strerror}: {path})"
            ) from exc
        self._recorded = True

    def release(self) -> None:
        """Give the run up (closing the descriptor drops the lock); the file stays, naming the last owner — unless
        this process made it and never recorded itself (a refused start leaves no trace)."""
        if self._fd >= 0:
            if self._created and not self._recorded:
                (self.run_dir / layout.LOCK).unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _now() -> str:
    return utc_now()


def _holder_pids(path: Path) -> list[int] | None:
    """Pids /proc/locks shows holding a flock on `path` (its inode); None where that table cannot be read."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        stat = path.stat()
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    wanted = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    pids = []
    for line in table.splitlines():  # "1: FLOCK  ADVISORY  WRITE 5743 fe:00:2149253 0 EOF"
        fields = line.split()
        if "FLOCK" in fields and wanted in fields:
            pid = fields[fields.index(wanted) - 1]
            pids.append(int(pid) if pid.lstrip("-").isdigit() else -1)
    return pids


def owned_by_live_process(run_dir: str | Path) -> bool | None:
    """Whether some live process holds the run's lock, without taking it (a probe that took the lock could make a
    starting trainer fail): Linux answers from /proc/locks by the lock file's inode; elsewhere, or without a lock
    file, None (unknown)."""
    path = Path(run_dir) / layout.LOCK
    if not path.exists():  # written by a trainer from before the lock: only its pid could tell
        return None
    pids = _holder_pids(path)
    return None if pids is None else bool(pids)
