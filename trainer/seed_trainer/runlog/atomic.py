"""Whole-file replacement that a concurrent reader sees either before or after, never half-written."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from seed_trainer.runlog.jsonl import naming_file


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, fsync it, then rename it over `path`.

    On Windows a rename over a file another process holds open can fail for a moment; it is retried briefly.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with naming_file(tmp), open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        for attempt in range(20):
            try:
                os.replace(tmp, path)
                return
            except PermissionError:  # pragma: no cover - Windows sharing violation
                if attempt == 19:
                    raise
                time.sleep(0.05)
    finally:
        tmp.unlink(missing_ok=True)


def dumps_document(value: Any) -> bytes:
    """A whole-file JSON document (run.json, eval/<split>.json, control): indented, UTF-8, final newline."""
    return (json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False) + "\n").encode("utf-8")


def write_json_atomic(path: str | Path, value: Any) -> None:
    write_bytes_atomic(path, dumps_document(value))
