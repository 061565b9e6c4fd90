"""The second reading of "is it the skill?" (docs/research/skill-controls-plan-2.md), computed as that plan fixed it.

Two parts, each from final_eval reports of 500 tasks per split on the same tasks:
- `unrelated` at 3 seeds: own − unrelated and unrelated − empty, Holm over the two;
- seeds 5–9 of own and `other_task`: own − other_task over seeds 0–9 (and over the new seeds alone), its p Holm-adjusted
  in the first plan's family with the other four contrasts' p as the first reading computed them, and the first plan's
  verdict rule applied to it and the first reading's own − empty.
A part whose report is missing is left out and said so. Writes `contrasts` (and `verdict`) into each new report and
prints the tables.

    .venv/bin/python bench/learning/second_reading.py [--unrelated bench/results/final_eval-unrelated.json]
        [--seeds5-9 bench/results/final_eval-seeds5-9.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controls_verdict import (
    FAMILY,
    RESULTS,
    classify,
    holm,
    holm_classified,
    last_third_entropy,
    outcomes,
    seed_differences,
    t_contrast,
    table_lines,
)
from seed_bench.report import write_report

OWN_OTHER = FAMILY[0][0]  # "own − other_task"
OWN_EMPTY = FAMILY[1][0]  # "own − empty"


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def unrelated_contrasts(own: dict, controls: dict, unrelated: dict) -> dict[str, dict]:
    """own − unrelated and unrelated − empty, per seed both have, Holm over the two."""
    mine, text, empty = outcomes(own, "seed"), outcomes(unrelated, "seed_unrelated"), outcomes(controls, "empty")
    return holm_classified(
        {
            "own − unrelated": t_contrast(seed_differences(mine, text)),
            "unrelated − empty": t_contrast(seed_differences(text, empty)),
        }
    )


def ten_seed_contrasts(own: dict, controls: dict, new: dict) -> dict[str, dict]:
    """own − other_task over seeds 0–9 (the first reading's seeds with the new ones) and over the new seeds alone; the
    ten-seed p is Holm-adjusted with the first reading's other four contrasts' raw p."""
    first = controls["contrasts"]
    new_own, new_other = outcomes(new, "seed"), outcomes(new, "seed_other_task")
    all_own = outcomes(own, "seed") | new_own
    all_other = outcomes(controls, "seed_other_task") | new_other
    ten = t_contrast(seed_differences(all_own, all_other))
    family = [ten["p"], *(first[label]["p"] for label, *_ in FAMILY[1:])]
    ten["p_holm"] = holm(family)[0]
    ten["class"] = classify(ten)
    alone = t_contrast(seed_differences(new_own, new_other))
    alone["p_holm"] = None  # reported beside, not tested
    alone["class"] = classify(alone)
    return {f"{OWN_OTHER} (seeds 0–9)": ten, f"{OWN_OTHER} (new seeds only)": alone}


def second_verdict(ten: dict, first_empty_class: str) -> str:
    """The first plan's rule on the ten-seed own − other_task and the first reading's own − empty."""
    reasons = [
        reason
        for cls, reason in (
            (ten["class"], "another task's skill does as well"),
            (first_empty_class, "a skill that changes nothing does as well"),
        )
        if cls in ("the same", "resolved negative")
    ]
    if reasons:
        return "not attributable to this trajectory's skill: " + "; ".join(reasons)
    if ten["class"] == first_empty_class == "resolved positive":
        return "attributable to this trajectory's skill"
    return "inconclusive"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--own", type=Path, default=RESULTS / "final_eval-expected.json")
    p.add_argument("--controls", type=Path, default=RESULTS / "final_eval-controls.json")
    p.add_argument("--unrelated", type=Path, default=RESULTS / "final_eval-unrelated.json")
    p.add_argument("--seeds5-9", dest="seeds59", type=Path, default=RESULTS / "final_eval-seeds5-9.json")
    p.add_argument("--learning-unrelated", type=Path, default=RESULTS / "learning-unrelated.json")
    p.add_argument("--learning-seeds5-9", dest="learning59", type=Path, default=RESULTS / "learning-seeds5-9.json")
    args = p.parse_args(argv)
    own, controls = _read(args.own), _read(args.controls)
    unrelated, new = _read(args.unrelated), _read(args.seeds59)
    for path, report in ((args.unrelated, unrelated), (args.seeds59, new)):
        if report is None:
            print(f"{path}: not there, that part is left out")
        elif (report.get("weights"), report.get("tasks_per_split"), report.get("temperature")) != (
            own.get("weights"),
            own.get("tasks_per_split"),
            own.get("temperature"),
        ):
            raise SystemExit(f"{path}: not made from the stored runs' weights, task count and temperature")
    if unrelated is not None:
        unrelated["contrasts"] = unrelated_contrasts(own, controls, unrelated)
        unrelated["last_third_entropy"] = {
            "seed_unrelated": last_third_entropy(args.learning_unrelated, "seed_unrelated")
        }
        write_report(unrelated, args.unrelated)
        print("\n".join(table_lines(unrelated["contrasts"])))
    if new is not None:
        new["contrasts"] = ten_seed_contrasts(own, controls, new)
        ten = new["contrasts"][f"{OWN_OTHER} (seeds 0–9)"]
        new["verdict"] = second_verdict(ten, controls["contrasts"][OWN_EMPTY]["class"])
        new["last_third_entropy"] = {
            name: last_third_entropy(args.learning59, name) for name in ("seed", "seed_other_task")
        }
        write_report(new, args.seeds59)
        print("\n".join(table_lines(new["contrasts"])))
        print(f"\nsecond reading's verdict: {new['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
