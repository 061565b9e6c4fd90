"""The Stage-2 algorithms as settings of one loop (DESIGN §2 "Baselines and ablations"), in one table that the
update, the teacher pass and the trajectory records all read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SkillSource = Literal["self", "static"]


@dataclass(frozen=True)
class Variant:
    pg_coef: float  # weight of the policy-gradient (PPO) loss; 0: distillation only
    teacher: bool  # run the teacher pass and the OPD term
    gated: bool  # g = σ(β·Δ); False: β = 0, so g = 0.5 everywhere
    skills: SkillSource | None  # who writes the teacher's skill: the policy itself, the static bank, or nobody


VARIANTS: dict[str, Variant] = {
    "seed": Variant(pg_coef=1.0, teacher=True, gated=True, skills="self"),
    "grpo": Variant(pg_coef=1.0, teacher=False, gated=True, skills=None),
    "grpo_opsd": Variant(pg_coef=1.0, teacher=True, gated=False, skills="self"),
    "opsd": Variant(pg_coef=0.0, teacher=True, gated=True, skills="self"),
    "sdar": Variant(pg_coef=1.0, teacher=True, gated=True, skills="static"),
}


def gate_beta(algorithm: str, beta: float) -> float:
    """The β the gate uses under `algorithm` (0 for the ungated baseline)."""
    return beta if VARIANTS[algorithm].gated else 0.0
