"""What the learning benchmark runs: the starting policies, the algorithms with their variants and controls, the seeds
of each and which of those runs are still to make."""

from __future__ import annotations

from seed_bench import REPO
from seed_trainer.algo.skill_controls import SKILL_CONTROL_TABLE

DEFAULT_MODEL = REPO / "trainer" / "seed_trainer" / "assets" / "household-tiny"
# --env textworld: generated TextWorld cooking games (one ingredient; plain, cook and cut), the tiny policy that
# `python -m seed_trainer.bootstrap --env textworld` makes for them, and its own report and run folders. SDAR and
# GRPO+OPSD are household-only here (no static skill bank for TextWorld; OPSD adds nothing SEED's runs do not show).
TEXTWORLD = {
    "model": REPO / "trainer" / "seed_trainer" / "assets" / "textworld-tiny",
    "algorithms": ["grpo", "seed", "seed_oracle"],
    "out": REPO / "bench" / "results" / "learning-textworld.json",
    "runs": REPO / "bench" / "results" / "runs-textworld",
    "max_steps": 12,
    "eval_tasks": 42,
}
ALGORITHMS = ("grpo", "seed", "sdar", "grpo_opsd", "seed_oracle")
# Not in the benchmark by default: distillation from the oracle's skills alone, without the policy gradient (does the
# distillation term pull toward the teacher by itself?).
DIAGNOSTIC_ALGORITHMS = ("opsd_oracle",)
# SEED under each of the trainer's skill controls, `seed_<control>`: the controls of "is it the skill?"
# (docs/research/skill-controls-plan.md), another task's skill and a task-free text.
SKILL_CONTROL_VARIANTS = {
    f"seed_{name}": ("seed", {"opd": {"skill_control": name}})
    for name, control in SKILL_CONTROL_TABLE.items()
    if control.replaces_own_skill
}
SELF_ANALYZING = {
    "seed",
    "grpo_opsd",
    *SKILL_CONTROL_VARIANTS,
    "empty",
}  # algorithms whose policy writes its own skills (Stage 1 applies with --stage1)
# Bench names that are settings of a trainer algorithm: SEED with the oracle's skills in the teacher slot (the
# upper bound of what distillation can pull; opd.skill_source: oracle).
VARIANTS = {
    "seed_oracle": ("seed", {"opd": {"skill_source": "oracle"}}),
    "opsd_oracle": ("opsd", {"opd": {"skill_source": "oracle"}}),
    # the controls of "is it the skill?": the skill controls above, the constant gate (grpo_opsd: g = ½, the proximal
    # pull of `expected`), and GRPO without or against entropy
    **SKILL_CONTROL_VARIANTS,
    "empty": ("grpo_opsd", {}),
    "grpo_ent0": ("grpo", {"rl": {"entropy_coef": 0.0}}),
    "grpo_entneg": ("grpo", {"rl": {"entropy_coef": -0.001}}),
}
# Not in the benchmark by default either: the controls above, run into their own report (--algorithms ...).
CONTROL_ALGORITHMS = (*SKILL_CONTROL_VARIANTS, "empty", "grpo_ent0", "grpo_entneg")


def _algorithm_seeds(items, flag: str, algorithms: list[str]) -> dict[str, list[int]]:
    """ALG=0-4 / ALG=0,1,2 items of `flag`, by algorithm."""
    chosen: dict[str, list[int]] = {}
    for item in items or ():
        name, _, spec = item.partition("=")
        if name not in algorithms or not spec:
            raise SystemExit(f"{flag} {item!r}: expected ALG=SEEDS for one of {', '.join(algorithms)}")
        seeds: list[int] = []
        for part in spec.split(","):
            lo, _, hi = part.partition("-")
            seeds.extend(range(int(lo), int(hi or lo) + 1))
        chosen[name] = seeds
    return chosen


def seeds_of(args) -> dict[str, list[int]]:
    """Each algorithm's seeds: --seeds, or its --seeds-of ALG=0-4 / ALG=0,1,2."""
    return {a: list(args.seeds) for a in args.algorithms} | _algorithm_seeds(
        args.seeds_of, "--seeds-of", args.algorithms
    )


def runs_to_make(args, previous: dict) -> list[tuple[str, int]]:
    """(algorithm, seed) of the report's runs not completed in `previous`, seed-major (every algorithm of seed 0
    first), or with --only just those of them: a run cut off at the end of a session is lost with its folder, so a
    session makes only what it can finish, and the report keeps every seed."""
    seeds = seeds_of(args)
    only = _algorithm_seeds(args.only, "--only", args.algorithms) if args.only else None
    for algorithm, chosen in (only or {}).items():
        if outside := sorted(set(chosen) - set(seeds[algorithm])):
            raise SystemExit(
                f"--only {algorithm}: seeds {outside} are not the report's ({seeds[algorithm]}); "
                "widen --seeds or --seeds-of"
            )
    return [
        (a, s)
        for s in sorted({s for ss in seeds.values() for s in ss})
        for a in args.algorithms
        if s in seeds[a] and (a, s) not in previous and (only is None or s in only.get(a, ()))
    ]


def needs_stage1(algorithm: str, args) -> bool:
    return args.stage1 and algorithm in SELF_ANALYZING


SPLITS = ("valid_seen", "valid_unseen")  # the held-out report; --splits dev for choosing settings
