"""How the run format writes its fields: instants, run ids, metric names and values, paths relative to the run."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

Clock = Callable[[], str]
METRIC_NAME = re.compile(r"^[A-Za-z0-9_.-]+(/[^/\s]+)+$")
_SLUG = re.compile(r"[^a-z0-9]+")


def utc_now() -> str:
    """Now as the run format writes instants: 2026-03-01T12:00:00.123Z."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def metric_name(*parts: str) -> str:
    """`metric_name("success", "pick and place")` → `success/pick_and_place` (no slashes or spaces inside parts)."""
    cleaned = [re.sub(r"[\s/]+", "_", str(part).strip()) for part in parts]
    name = "/".join(cleaned)
    if len(cleaned) < 2 or not METRIC_NAME.match(name):
        raise ValueError(f"metric name {name!r} must be namespaced as group/name")
    return name


def new_run_id(name: str, stage: str, started: str) -> str:
    """`20260301-120000-train-household-seed` from the start instant, the stage and the experiment name."""
    stamp = re.sub(r"[^0-9]", "", started[:19])
    slug = _SLUG.sub("-", name.lower()).strip("-")[:40].strip("-") or "run"
    return f"{stamp[:8]}-{stamp[8:14]}-{stage}-{slug}"


def relative_path(target: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return str(target.resolve())


def finite_or_none(name: str, value: Any) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if hasattr(value, "item"):  # 0-d tensors and numpy scalars
            value = value.item()
        else:
            raise TypeError(f"metric {name} must be a number or None, got {type(value).__name__}")
    return value if math.isfinite(value) else None
