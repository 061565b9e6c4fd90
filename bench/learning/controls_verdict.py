"""The verdict of "is it the skill?" (docs/research/skill-controls-plan.md), computed as that plan fixed it.

Reads the controls' finals (bench/results/final_eval-controls.json, made by final_eval.py), the own-skill SEED runs
(final_eval-expected.json `seed`) and GRPO (final_eval.json `grpo`), all 500 tasks per split on the same tasks, and
for each contrast own − X: per training seed the mean task-by-task difference over both splits pooled, in points;
over the seeds the mean, its 95 % t-interval and two-sided p; Holm over the five contrasts; each contrast's class
(resolved positive / negative, the same within ±2 points, unresolved); and the verdict. With the learning reports it
adds each run's last-third training entropy. Writes `contrasts` and `verdict` into the controls report and prints the
table.

    .venv/bin/python bench/learning/controls_verdict.py [--controls bench/results/final_eval-controls.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from scipy import stats
from seed_bench import REPO
from seed_bench.report import write_report
from seed_bench.stats import interval, paired_by_task

RESULTS = REPO / "bench" / "results"
SPLITS = ("valid_seen", "valid_unseen")
MARGIN = 2.0  # points: "the same" when the 95 % interval lies inside ±MARGIN
ALPHA = 0.05
# (label, report key, algorithm in that report) of own − X, in the plan's order
FAMILY = (
    ("own − other_task", "controls", "seed_other_task"),
    ("own − empty", "controls", "empty"),
    ("own − GRPO", "grpo", "grpo"),
    ("own − GRPO ent 0", "controls", "grpo_ent0"),
    ("own − GRPO ent −0.001", "controls", "grpo_entneg"),
)
MINUS = "−"


def outcomes(report: dict, algorithm: str) -> dict[int, dict[str, dict]]:
    """{seed: {split: {tasks, success}}} of one algorithm of a final_eval report (every split present only)."""
    found: dict[int, dict[str, dict]] = {}
    for key, outcome in (report.get("outcomes") or {}).items():
        kind, seed, split = key.split("/")
        if kind == algorithm and outcome and split in SPLITS:
            found.setdefault(int(seed), {})[split] = outcome
    return {seed: splits for seed, splits in found.items() if set(splits) == set(SPLITS)}


def seed_differences(a: dict[int, dict[str, dict]], b: dict[int, dict[str, dict]]) -> dict[int, float]:
    """Per seed both have, the mean over both splits' paired tasks of a − b, in points; a seed whose evaluations
    played other tasks is refused (they would not pair)."""
    out = {}
    for seed in sorted(set(a) & set(b)):
        pairs = [(a[seed][split], b[seed][split]) for split in SPLITS]
        if any(x["tasks"] != y["tasks"] or len(x["success"]) != len(y["success"]) for x, y in pairs):
            raise SystemExit(f"seed {seed}: the two evaluations played other tasks; they do not pair")
        out[seed] = 100.0 * paired_by_task(pairs)["d"]
    return out


def t_contrast(by_seed: dict[int, float]) -> dict:
    """Mean of the per-seed differences, its 95 % t-interval and two-sided p (None below two seeds or no spread)."""
    values = list(by_seed.values())
    entry = {"seeds": sorted(by_seed), "by_seed": values, "d": None, "lo": None, "hi": None, "p": None}
    if values:  # the interval the learning reports use (seed_bench.stats.interval); p from the same t distribution
        spread = interval(values)
        entry.update(d=spread["mean"], lo=spread["lo"], hi=spread["hi"])
    if len(values) >= 2 and statistics.stdev(values) > 0:
        sem = statistics.stdev(values) / len(values) ** 0.5
        entry["p"] = float(2 * stats.t.sf(abs(entry["d"]) / sem, len(values) - 1))
    return entry


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm–Bonferroni adjusted p-values (None stays None and does not count in the family)."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(present):
        running = max(running, min(1.0, (len(present) - rank) * p))
        adjusted[i] = running
    return adjusted


def classify(entry: dict) -> str:
    if entry["lo"] is not None and -MARGIN <= entry["lo"] and entry["hi"] <= MARGIN:
        return "the same"
    if entry.get("p_holm") is not None and entry["p_holm"] < ALPHA:
        return "resolved positive" if entry["d"] > 0 else "resolved negative"
    return "unresolved"


def verdict(contrasts: dict[str, dict], seeds_wanted: int = 5) -> str:
    """The plan's three verdicts, or what is still missing for one."""
    missing = [label for label, *_ in FAMILY if len(contrasts.get(label, {}).get("seeds", [])) < seeds_wanted]
    if missing:
        return f"not yet: fewer than {seeds_wanted} seeds in {', '.join(missing)}"
    other, empty = contrasts["own − other_task"]["class"], contrasts["own − empty"]["class"]
    not_reasons = [
        reason
        for cls, reason in (
            (other, "another task's skill does as well"),
            (empty, "a skill that changes nothing does as well"),
        )
        if cls in ("the same", "resolved negative")
    ]
    if not_reasons:
        return "not attributable to this trajectory's skill: " + "; ".join(not_reasons)
    if other == empty == "resolved positive":
        return "attributable to this trajectory's skill"
    return "inconclusive"


def difference_of_differences(greedy: dict, sampled: dict, a: str = "seed", b: str = "grpo") -> dict:
    """Does a − b shrink under greedy decoding? Per seed: the mean over both splits' paired tasks of
    (a − b at greedy) − (a − b sampled), in points, from two final_eval reports of the same runs and tasks; over the
    seeds, the mean and its 95 % t-interval."""
    dg = seed_differences(outcomes(greedy, a), outcomes(greedy, b))
    ds = seed_differences(outcomes(sampled, a), outcomes(sampled, b))
    return t_contrast({seed: dg[seed] - ds[seed] for seed in sorted(set(dg) & set(ds))})


def holm_classified(table: dict[str, dict]) -> dict[str, dict]:
    """A family of contrasts with each one's Holm-adjusted p (over the family) and its class, in place."""
    for label, p in zip(table, holm([e["p"] for e in table.values()])):
        table[label]["p_holm"] = p
        table[label]["class"] = classify(table[label])
    return table


def contrasts_of(own: dict, controls: dict, grpo: dict) -> dict[str, dict]:
    reports = {"controls": controls, "grpo": grpo}
    mine = outcomes(own, "seed")
    return holm_classified(
        {label: t_contrast(seed_differences(mine, outcomes(reports[key], name))) for label, key, name in FAMILY}
    )


def last_third_entropy(report_path: Path, algorithm: str) -> dict[str, float]:
    """Each completed seed's mean `loss/entropy` over the last third of its updates, from a learning report."""
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        seed: entry["diagnostics"]["last_third"]["loss/entropy"]
        for seed, entry in (report.get("algorithms", {}).get(algorithm) or {}).items()
        if entry.get("status") == "completed"
        and (entry.get("diagnostics") or {}).get("last_third", {}).get("loss/entropy") is not None
    }


def table_lines(contrasts: dict[str, dict]) -> list[str]:
    def points(x):
        return "—" if x is None else f"{x:+.1f}".replace("-", MINUS)

    lines = [
        "| contrast (both splits, points) | seeds | mean [95 % t-interval] | per seed | p | p (Holm) | class |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, e in contrasts.items():
        interval = f"{points(e['d'])} [{points(e['lo'])}, {points(e['hi'])}]"
        p = "—" if e["p"] is None else f"{e['p']:.3f}"
        ph = "—" if e.get("p_holm") is None else f"{e['p_holm']:.3f}"
        per_seed = ", ".join(points(v) for v in e["by_seed"])
        lines.append(f"| {label} | {len(e['seeds'])} | {interval} | {per_seed} | {p} | {ph} | {e['class']} |")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--controls", type=Path, default=RESULTS / "final_eval-controls.json")
    p.add_argument("--own", type=Path, default=RESULTS / "final_eval-expected.json")
    p.add_argument("--grpo", type=Path, default=RESULTS / "final_eval.json")
    p.add_argument("--learning-controls", type=Path, default=RESULTS / "learning-controls.json")
    p.add_argument("--learning-own", type=Path, default=RESULTS / "learning-expected.json")
    args = p.parse_args(argv)
    reports = [json.loads(path.read_text(encoding="utf-8")) for path in (args.own, args.controls, args.grpo)]
    own, controls, grpo = reports
    if len({(r.get("weights"), r.get("tasks_per_split"), r.get("temperature")) for r in reports}) != 1:
        raise SystemExit("the three reports were not made from the same weights, task count and temperature")
    contrasts = contrasts_of(own, controls, grpo)
    controls["contrasts"] = contrasts
    controls["verdict"] = verdict(contrasts)
    controls["last_third_entropy"] = {"seed": last_third_entropy(args.learning_own, "seed")} | {
        name: last_third_entropy(args.learning_controls, name) for _, key, name in FAMILY if key == "controls"
    }
    write_report(controls, args.controls)
    print("\n".join(table_lines(contrasts)))
    print(f"\nverdict: {controls['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
