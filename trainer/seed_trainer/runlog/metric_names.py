"""The metric names of the run format. schemas/metric.schema.json lists every name the trainer writes (docs/run-format.md
§6): its `properties` with a slash, and the per-task-type family of its `patternProperties`, each with its unit
(`x-unit`, one of the root's `x-units`) and the dashboard chart that draws it (`x-chart`, false: none); a name no longer
written is kept, `deprecated`, so that older runs still read. The writer refuses a name it does not list
(`known_metric_names()`); readers read one (a newer trainer's: a new name keeps the format version) and `check_run`
reports it as an `unknown_metric` warning (`unknown_metrics`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.errors import UnknownMetric
from seed_trainer.runlog.fields import METRIC_NAME
from seed_trainer.runlog.schemas import find_schemas_dir

__all__ = ["UNKNOWN_METRIC", "MetricName", "MetricNames", "known_metric_names", "unknown_metrics"]
METRIC_SCHEMA = "metric.schema.json"
#: What the writer says of a name the schema does not list.
UNKNOWN_METRIC = "is not a metric name schemas/metric.schema.json lists (add it there: docs/run-format.md §6)"
#: The catch-all of `patternProperties`: any namespaced name, which readers read though the schema does not list it.
UNLISTED = "#/$defs/unlisted_metric"


@dataclass(frozen=True)
class MetricName:
    """One listed name, or a family of names (`pattern`; `name` then says what they look like)."""

    name: str
    unit: str
    chart: str | None  # the dashboard chart's id; None: not charted
    label: str | None = None
    deprecated: bool = False
    pattern: re.Pattern[str] | None = None


class MetricNames:
    """The names of one metric schema document; raises ValueError for an entry without a known unit or a chart."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.units: dict[str, dict[str, str]] = schema.get("x-units") or {}
        if not self.units:
            raise ValueError(f"{METRIC_SCHEMA}: no x-units at its root")
        self.names = {
            name: self._entry(f"#/properties/{name}", name, spec)
            for name, spec in schema.get("properties", {}).items()
            if "/" in name
        }
        self.families = [
            self._entry(f"#/patternProperties/{pattern}", spec.get("x-family", ""), spec, re.compile(pattern))
            for pattern, spec in schema.get("patternProperties", {}).items()
            if spec.get("$ref") != UNLISTED
        ]

    def _entry(self, where: str, name: str, spec: dict[str, Any], pattern: re.Pattern[str] | None = None) -> MetricName:
        unit, chart = spec.get("x-unit"), spec.get("x-chart")
        if unit not in self.units:
            raise ValueError(f"{METRIC_SCHEMA} {where}: x-unit {unit!r} is not one of x-units")
        if chart is not False and not (isinstance(chart, str) and chart):
            raise ValueError(f"{METRIC_SCHEMA} {where}: x-chart must be a chart id or false")
        if pattern is not None and not name:
            raise ValueError(f"{METRIC_SCHEMA} {where}: no x-family (what its names look like)")
        return MetricName(name, unit, chart or None, spec.get("x-label"), bool(spec.get("deprecated", False)), pattern)

    @classmethod
    def load(cls, schemas_dir: str | Path | None = None) -> MetricNames:
        path = find_schemas_dir(schemas_dir) / METRIC_SCHEMA
        return cls(json.loads(path.read_text(encoding="utf-8")))

    def find(self, name: str) -> MetricName | None:
        """The entry of `name`: its own, else its family's; None when the schema does not list it."""
        return self.names.get(name) or next((f for f in self.families if f.pattern and f.pattern.search(name)), None)

    def writable(self, name: str) -> bool:
        """Whether the trainer may write `name` now: listed, and not one kept only for older runs."""
        entry = self.find(name)
        return entry is not None and not entry.deprecated

    def check_writable(self, name: str) -> None:
        """Raises ValueError naming why the trainer may not write `name` (see `writable`)."""
        if not self.writable(name):
            deprecated = "is kept for older runs only (deprecated in the metric schema)"
            raise ValueError(f"metric {name!r} {deprecated if self.find(name) else UNKNOWN_METRIC}")


@lru_cache(maxsize=1)
def known_metric_names() -> MetricNames | None:
    """The schema's names, or None where the schemas folder cannot be found (an installed trainer without the
    repository's schemas/ and without SEED_SCHEMAS_DIR): a run must not fail for want of its checklist, and the
    trainer's tests, which run where the schemas are, hold every name it writes to the list."""
    try:
        return MetricNames.load()
    except FileNotFoundError:
        return None


def unknown_metrics(records: Iterable[tuple[int, dict[str, Any]]], names: MetricNames) -> list[UnknownMetric]:
    """One warning per metric name of metrics.jsonl that `names` does not list, at the first line holding it."""
    reserved = {"step", "time", "kind", "epoch", "split"}
    seen: dict[str, UnknownMetric] = {}
    for line, row in records:
        for key in row:
            if key not in reserved and key not in seen and names.find(key) is None:
                seen[key] = UnknownMetric(layout.METRICS, line, key)
    return list(seen.values())


def check_writable_name(name: str) -> None:
    """Raises ValueError unless the trainer may write the metric `name`: namespaced (`loss/pg`) and, where the schemas
    are found, listed and not deprecated."""
    if not METRIC_NAME.match(name):
        raise ValueError(f"metric name {name!r} must be namespaced as group/name (see metric_name())")
    names = known_metric_names()
    if names is not None:
        names.check_writable(name)
