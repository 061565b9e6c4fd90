"""The Stage-2 algorithms as settings of one loop (DESIGN §2 "Baselines and ablations"), in one table that the
update, the teacher pass and the trajectory records all read. The experiment schema carries it too (`x-algorithms` on
`algorithm`, see experiment/config.py): the names the schema accepts are this table's keys, and the editor takes its labels and
properties from there, so a new algorithm is added here only."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

SkillSource = Literal["self", "static"]


@dataclass(frozen=True)
class Variant:
    label: str  # the name people read: quick picks, tables
    summary: str  # what it does, one line (the schema's hover and the Train picker's detail)
    pg_coef: float  # weight of the policy-gradient (PPO) loss; 0: distillation only
    teacher: bool  # run the teacher pass and the OPD term
    gated: bool  # g = σ(β·Δ); False: β = 0, so g = 0.5 everywhere
    skills: SkillSource | None  # who writes the teacher's skill: the policy itself, the static bank, or nobody


ALGORITHM_VARIANTS: dict[str, Variant] = {
    "seed": Variant(
        label="SEED",
        summary="GRPO + gated on-policy distillation from self-written skills",
        pg_coef=1.0,
        teacher=True,
        gated=True,
        skills="self",
    ),
    "grpo": Variant(
        label="GRPO",
        summary="baseline: no analysis, no teacher pass",
        pg_coef=1.0,
        teacher=False,
        gated=True,
        skills=None,
    ),
    "grpo_opsd": Variant(
        label="GRPO+OPSD",
        summary="baseline: β = 0, every gate is 0.5",
        pg_coef=1.0,
        teacher=True,
        gated=False,
        skills="self",
    ),
    "opsd": Variant(
        label="OPSD",
        summary="baseline: distillation only, no policy gradient",
        pg_coef=0.0,
        teacher=True,
        gated=True,
        skills="self",
    ),
    "sdar": Variant(
        label="SDAR",
        summary="baseline: a static skill bank retrieved by task type",
        pg_coef=1.0,
        teacher=True,
        gated=True,
        skills="static",
    ),
}

# The names an experiment's `algorithm` accepts, in the table's order (the schema's enum).
ALGORITHMS: tuple[str, ...] = tuple(ALGORITHM_VARIANTS)


def gate_beta(algorithm: str, beta: float) -> float:
    """The β the gate uses under `algorithm` (0 for the ungated baseline)."""
    return beta if ALGORITHM_VARIANTS[algorithm].gated else 0.0


def schema_extension() -> list[dict[str, Any]]:
    """The table as the experiment schema carries it (`x-algorithms` of `algorithm`): a list, since the schema export
    sorts the keys of mappings and the order is the one the editor offers."""
    return [{"name": name, **asdict(variant)} for name, variant in ALGORITHM_VARIANTS.items()]


def schema_description() -> str:
    """The description of `algorithm` in the experiment schema: each name with its summary."""
    return "Stage-2 algorithm: " + "; ".join(f"`{name}` ({v.summary})" for name, v in ALGORITHM_VARIANTS.items()) + "."
