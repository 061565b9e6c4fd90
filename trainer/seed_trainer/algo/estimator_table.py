"""The OPD estimators (`opd.estimator`; docs/trainer.md, "OPD estimator") as one table of names and properties, which
the experiment schema, the teacher pass, the update, the trajectory records, the memory estimate and the benchmarks
read: a new estimator is a row here (its maths in algo/estimators.py). Torch-free, so that experiment/config.py builds
the schema from it. The schema carries the table (`x-estimators` on `opd.estimator`); the viewer's copy
(src/runs/shared/opdEstimator.ts) is tested against that."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# What the update takes from the gate g of a sampled token (the trajectory record's `gate_baseline`): nothing, the
# centre ½, or b(s) = Σ_v π_old(v|s)·g(v).
Subtracted = Literal["nothing", "centre", "baseline"]
# Its memory cost class: what the teacher pass keeps per response token for the update besides the teacher's log-prob:
# nothing, b(s) (4 bytes), or the soft targets w(v) = π_old(v|s)·g(v) with b(s) (4·V bytes whole, 8·k + 8 for the top
# k; compute/memory.py). The update of an estimator that keeps soft targets is their cross-entropy.
Kept = Literal["nothing", "baseline", "soft_targets"]


@dataclass(frozen=True)
class Estimator:
    summary: str  # its per-token gradient and what it is for, one line (the schema's description)
    subtracts: Subtracted
    keeps: Kept

    @property
    def needs_distributions(self) -> bool:
        """Whether the teacher pass needs π_old's full next-token distributions (a student forward beside the
        teacher's): whatever it keeps beyond the teacher's log-prob is computed from them."""
        return self.keeps != "nothing"


OPD_ESTIMATORS: dict[str, Estimator] = {
    "sample": Estimator(
        summary="the paper's −g·∇ℓ_θ on the sampled token",
        subtracts="nothing",
        keeps="nothing",
    ),
    "centred": Estimator(
        summary="−(g − ½)·∇ℓ_θ, the same expected gradient for any skill without the constant likelihood push",
        subtracts="centre",
        keeps="nothing",
    ),
    "baseline": Estimator(
        summary=(
            "−(g − b)·∇ℓ_θ with b = Σ_v π_old(v)·g(v) over the vocabulary (a student forward beside the teacher pass)"
        ),
        subtracts="baseline",
        keeps="baseline",
    ),
    "expected": Estimator(
        # its weights sum to b(s) at each position: the record's g − b(s) is the direction of its push on y's logit
        summary="−Σ_v π_old(v)·g(v)·∇log π_θ(v), no sampling noise (keeps `expected_top_k` weights a token)",
        subtracts="baseline",
        keeps="soft_targets",
    ),
}

# The names `opd.estimator` accepts, in the table's order (the schema's enum).
ESTIMATORS: tuple[str, ...] = tuple(OPD_ESTIMATORS)


def estimator_row(name: str) -> Estimator:
    """The row of `name`; a ValueError that lists the known names for another."""
    try:
        return OPD_ESTIMATORS[name]
    except KeyError:
        raise ValueError(f"unknown OPD estimator {name!r} (known: {', '.join(ESTIMATORS)})") from None


def schema_description() -> str:
    """The description of `opd.estimator` in the experiment schema: each name with its summary. The estimators that
    subtract b(s) compute it from the trajectory's own skill, which a hindsight skill makes depend on y."""
    related = " and ".join(f"`{name}`" for name, row in OPD_ESTIMATORS.items() if row.subtracts == "baseline")
    return (
        "How the OPD gradient is estimated at each response token (docs/trainer.md, 'OPD estimator'). "
        + " ".join(f"`{name}`: {row.summary}." for name, row in OPD_ESTIMATORS.items())
        + f" {related} have the paper's expectation only for skills fixed before sampling (a static bank); with "
        "hindsight skills they are related objectives."
    )


def schema_extension() -> list[dict[str, Any]]:
    """The table as the experiment schema carries it (`x-estimators` of `opd.estimator`), in the table's order."""
    return [
        {
            "name": name,
            "summary": row.summary,
            "subtracts": row.subtracts,
            "keeps": row.keeps,
            "needs_distributions": row.needs_distributions,
        }
        for name, row in OPD_ESTIMATORS.items()
    ]
