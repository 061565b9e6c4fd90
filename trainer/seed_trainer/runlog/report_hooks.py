"""Other places a run's records also go (`report_to`: TensorBoard, W&B), each after the record is on disk. A reporter
that fails is dropped for the rest of the run with one warning: a dashboard must never cost the run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol


class Reporter(Protocol):
    """Another place the run's records also go (TensorBoard, W&B: seed_trainer/reporting). Called after each record is
    in the run directory; an exception stops that reporter only (one `warning` event, code `report_failed`)."""

    name: str

    def metrics(self, row: Mapping[str, Any]) -> None: ...

    def trajectory(self, record: Mapping[str, Any]) -> None: ...

    def eval(self, report: Mapping[str, Any]) -> None: ...

    def close(self, status: str) -> None: ...


class Reporters:
    """The run's reporters. `warn(message)` records why one was dropped (the writer's `report_failed` warning)."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self._reporters: list[Reporter] = []
        self._warn = warn

    def add(self, reporter: Reporter) -> None:
        self._reporters.append(reporter)

    def send(self, method: str, *args: Any) -> None:
        # A dashboard is a convenience: its failure must never cost the run (the record is already on disk).
        for reporter in list(self._reporters):
            try:
                getattr(reporter, method)(*args)
            except Exception as exc:
                self._reporters.remove(reporter)
                self._warn(
                    f"report_to {reporter.name}: {method} failed, no more reporting to it in this "
                    f"run: {type(exc).__name__}: {exc}"
                )
                self._close([reporter], "failed", quiet=True)

    def close(self, status: str, *, quiet: bool = False) -> None:
        """Close every reporter (the run ends with `status`); none is left."""
        reporters, self._reporters = self._reporters, []
        self._close(reporters, status, quiet=quiet)

    def _close(self, reporters: list[Reporter], status: str, *, quiet: bool = False) -> None:
        for reporter in reporters:
            try:
                reporter.close(status)
            except Exception as exc:
                if not quiet:  # quiet: it already failed, or the run's files are closing
                    self._warn(f"report_to {reporter.name}: closing failed: {type(exc).__name__}: {exc}")
