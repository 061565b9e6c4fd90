"""JSON Lines files: whole-line appends with flush on the writing side, torn-last-line tolerance on the reading side."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from seed_trainer.runlog.errors import RunFormatError, TornLine


def dumps_line(record: Any) -> bytes:
    """One record as a compact UTF-8 JSON line ending in a newline. NaN and infinities are refused (not JSON)."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8") + b"\n"


@contextmanager
def naming_file(path: str | Path) -> Iterator[None]:
    """Re-raise an OSError of a write or fsync (disk full, quota, I/O error: they carry no file name) with `path`
    as its filename, so the user learns which file could not be written."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise type(exc)(exc.errno, exc.strerror or str(exc), str(path)) from exc


@dataclass(frozen=True)
class Appended:
    """Where `JsonlAppender.append` put a record: 1-based line, byte offset of the line and its size with newline."""

    line: int
    offset: int
    size: int


class JsonlAppender:
    """Appends whole lines to one JSONL file and flushes after each, so a reader never sees half a record
    except while a write is in flight (the torn last line readers ignore).

    Opening repairs the tail a crashed writer may have left: bytes after the last newline are cut off, and
    `repaired` says how many.
    """

    def __init__(self, path: str | Path, *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: BinaryIO = open(self.path, "a+b")
        self.repaired = self._repair_tail()
        self._file.seek(0)
        self.lines = sum(1 for _ in self._file)
        self._file.seek(0, os.SEEK_END)

    def _repair_tail(self) -> int:
        size = self._file.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        self._file.seek(size - 1)
        if self._file.read(1) == b"\n":
            return 0
        keep, position, chunk = 0, size, 65536
        while position > 0:
            start = max(0, position - chunk)
            self._file.seek(start)
            data = self._file.read(position - start)
            newline = data.rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        self._file.truncate(keep)
        return size - keep

    def append(self, record: Any) -> Appended:
        data = dumps_line(record)
        with naming_file(self.path):
            offset = self._file.seek(0, os.SEEK_END)
            self._file.write(data)
            self._file.flush()
            if self.fsync:
                os.fsync(self._file.fileno())
        self.lines += 1
        return Appended(line=self.lines, offset=offset, size=len(data))

    def sync(self) -> None:
        if not self._file.closed:
            with naming_file(self.path):
                self._file.flush()
                os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            try:
                with naming_file(self.path):
                    self._file.flush()
                    os.fsync(self._file.fileno())
            finally:
                self._file.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Validator = Callable[[Any, int], None]


def parse_line(raw: bytes, file: str, line: int, path: str = "") -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RunFormatError("invalid_json", file, f"not UTF-8 ({exc.reason})", line=line, path=path) from None
    except json.JSONDecodeError as exc:
        raise RunFormatError(
            "invalid_json", file, f"not valid JSON: {exc.msg} at column {exc.colno}", line=line, path=path
        ) from None


def iter_jsonl(
    path: str | Path,
    file: str | None = None,
    *,
    validate: Validator | None = None,
    torn: list[TornLine] | None = None,
) -> Iterator[tuple[int, Any]]:
    """(line number, record) for every complete line of `path`, streaming.

    Blank lines are skipped. An unterminated last line is not a record: it is appended to `torn` (when given) and
    skipped. A complete line that is not JSON raises RunFormatError naming `file` (default: the path) and the line;
    `validate(record, line)` may raise too.
    """
    path = Path(path)
    name = file if file is not None else str(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                if torn is not None and raw.strip():
                    torn.append(TornLine(file=name, line=number, size=len(raw), path=str(path)))
                return
            if not raw.strip():
                continue
            record = parse_line(raw, name, number, str(path))
            if validate is not None:
                validate(record, number)
            yield number, record


@dataclass
class JsonlRead:
    records: list[tuple[int, Any]] = field(default_factory=list)
    torn: TornLine | None = None

    @property
    def values(self) -> list[Any]:
        return [record for _, record in self.records]


def read_jsonl(path: str | Path, file: str | None = None, *, validate: Validator | None = None) -> JsonlRead:
    """All complete records of a JSONL file (see `iter_jsonl`); a missing file reads as empty."""
    torn: list[TornLine] = []
    result = JsonlRead()
    if not Path(path).exists():
        return result
    result.records = list(iter_jsonl(path, file, validate=validate, torn=torn))
    result.torn = torn[0] if torn else None
    return result


def read_line_at(path: str | Path, offset: int, size: int) -> bytes:
    """The bytes of one line given its offset and size (from the trajectory index)."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read(size)
