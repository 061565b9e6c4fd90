"""Located errors: every problem in a run directory names the file, the line (JSONL) and the field."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_/-]*$")

#: Kinds of RunFormatError; the TypeScript reader uses the same words.
ERROR_KINDS = (
    "missing_file",  # a required file (run.json) is absent
    "invalid_json",  # a complete line / file that does not parse as JSON
    "unsupported_version",  # run.json format_version this reader does not know
    "schema",  # a record that violates its JSON Schema
    "token_array",  # a token array that does not decode to `count` items
    "index",  # a trajectory index row that does not point at its trajectory
    "sequence",  # update / step numbers that repeat or skip (metrics rows, trajectory index)
    "consistency",  # records of one file that another contradicts (trajectories of an update the metrics lack)
    "checkpoint",  # a checkpoint directory whose manifest is missing or whose files do not match it
    "rollback",  # resume: what the latest checkpoint keeps of a file is not intact
)


def format_field_path(parts: Iterable[str | int]) -> str:
    """`steps[1].tokens.gate`, `loss/pg`, `config["odd key"]`; the empty path (the whole record) is ``""``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


class RunFormatError(ValueError):
    """A run file that does not follow docs/run-format.md.

    `file` is the path relative to the run directory (POSIX), `line` the 1-based line of a JSONL file (None for whole-
    file JSON), `field` the field path in the record (`format_field_path`; None when the record as a whole is bad).
    """

    def __init__(
        self, kind: str, file: str, detail: str, *, line: int | None = None, field: str | None = None, path: str = ""
    ) -> None:
        self.kind = kind
        self.file = file
        self.line = line
        self.field = field or None
        self.detail = detail
        self.path = path or file
        super().__init__(self._message())

    def _message(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        field = f" {self.field}:" if self.field else ""
        return f"{where}:{field} {self.detail}"


@dataclass(frozen=True)
class TornLine:
    """An unterminated last line: a writer is mid-append or crashed. Ignored by readers, reported as a warning."""

    file: str
    line: int
    size: int  # bytes after the last newline
    path: str = ""

    @property
    def kind(self) -> str:
        return "torn_line"

    @property
    def message(self) -> str:
        return f"{self.path or self.file}:{self.line}: torn last line ({self.size} bytes without a newline) ignored"


@dataclass(frozen=True)
class StaleFile:
    """A temporary file or directory an interrupted writer left behind (`.run.json.tmp-<pid>`, `checkpoints/.tmp-…`).
    Harmless to readers, removed by the next `resume`; a checker reports it as a warning."""

    file: str
    kind: str = "stale_temp"
    line: None = None

    @property
    def message(self) -> str:
        return f"{self.file}: left behind by an interrupted write (the next resume removes it)"


@dataclass(frozen=True)
class UnknownMetric:
    """A metric name schemas/metric.schema.json does not list: a newer trainer's (a new name keeps the format version)
    or a typo. Read, drawn in no chart; a checker reports it as a warning, once per name at its first line."""

    file: str
    line: int
    field: str  # the metric name
    kind: str = "unknown_metric"

    @property
    def message(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.field}: not a metric name schemas/metric.schema.json lists "
            "(a newer trainer's, or a typo): read, drawn in no chart"
        )
