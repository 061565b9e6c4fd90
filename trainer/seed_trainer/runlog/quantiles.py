"""Per-update quantile metrics (docs/run-format.md §6, "Quantiles of g and Δ"): a family such as `gate` writes
`<family>/min`, `/p05`, `/p25`, `/p50`, `/p75`, `/p95`, `/max` (null when it summarizes no value) and `/count`. Readers
take a row's summary with `quantile_summary`; `quantile_order_error` is the cross-field rule of `check_run` (the values
of a family never decrease from min to max). src/runs/shared/metricQuantiles.ts is the TypeScript twin."""

from __future__ import annotations

from typing import Any

from seed_trainer.runlog import layout
from seed_trainer.runlog.errors import RunFormatError

#: Families the trainer writes: the gate g and Δ = ℓ^skill − ℓ^old over an update's distilled tokens.
QUANTILE_FAMILIES = ("gate", "delta")
#: The summary's keys from the lowest value to the highest, with the probability of each quantile.
QUANTILE_LEVELS = {"min": 0.0, "p05": 0.05, "p25": 0.25, "p50": 0.5, "p75": 0.75, "p95": 0.95, "max": 1.0}


def quantile_summary(row: dict[str, Any], family: str) -> dict[str, float] | None:
    """`{min, p05, …, max, count}` of `family` in a metrics row, or None when the row has none of it (no teacher pass,
    or no distilled token that update)."""
    values = {key: row.get(f"{family}/{key}") for key in QUANTILE_LEVELS}
    count = row.get(f"{family}/count")
    if not isinstance(count, int) or count <= 0 or any(not isinstance(v, (int, float)) for v in values.values()):
        return None
    return {**{key: float(v) for key, v in values.items()}, "count": count}


def quantile_order_error(rows: list[tuple[int, dict[str, Any]]]) -> RunFormatError | None:
    """The first metrics row in which a family's quantile is below the one before it (nulls are skipped)."""
    for line, row in rows:
        for family in QUANTILE_FAMILIES:
            previous: tuple[str, float] | None = None
            for key in QUANTILE_LEVELS:
                value = row.get(f"{family}/{key}")
                if not isinstance(value, (int, float)):
                    continue
                if previous is not None and value < previous[1]:
                    return RunFormatError(
                        "consistency",
                        layout.METRICS,
                        f"{value:g} is below {family}/{previous[0]} {previous[1]:g} "
                        "(quantiles never decrease from min to max)",
                        line=line,
                        field=f"{family}/{key}",
                    )
                previous = (key, value)
    return None
