"""The learning benchmark's report (bench/results/learning.json) as the Markdown tables of docs/embedded-default.md.

Prints two tables: held-out success per run and evaluation (with the run's train success, first 10 → last 10
updates), and each algorithm's final success against its own start and against GRPO, with the 95 % intervals the
report holds (across seeds, paired by seed, pooled episodes). The docs' prose around them is written by hand; the
numbers in it come from here, so a session with a fresh checkout rebuilds the tables from the committed report alone.

    .venv/bin/python bench/learning/learning_tables.py [bench/results/learning.json]
    .venv/bin/python bench/learning/learning_tables.py bench/results/final_eval.json    # bench/learning/final_eval.py's table
    .venv/bin/python bench/learning/learning_tables.py bench/results/final_eval-expected.json    # the same, paired with its --reference
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NAMES = {
    "grpo": "GRPO",
    "seed": "SEED",
    "sdar": "SDAR",
    "grpo_opsd": "GRPO+OPSD",
    "seed_oracle": "SEED, oracle skills",
    "opsd_oracle": "OPSD alone, oracle skills",
}
MINUS = "\u2212"


def points(x: float | None, signed: bool = True) -> str:
    """A rate as points with one decimal, typeset minus: 0.033 → '+3.3'."""
    if x is None:
        return "—"
    text = f"{100 * x:+.1f}" if signed else f"{100 * x:.1f}"
    return text.replace("-", MINUS)


def with_interval(entry: dict | None) -> str:
    """A difference (`d`) or a mean across seeds (`mean`, as seed_bench.stats.interval gives it) with its interval."""
    value = (entry or {}).get("d", (entry or {}).get("mean"))
    if value is None:
        return "—"
    if entry.get("lo") is None:
        return points(value)
    return f"{points(value)} [{points(entry['lo'])}, {points(entry['hi'])}]"


def runs_table(results: dict, splits: list[str]) -> list[str]:
    updates = sorted(
        {
            int(u)
            for per_seed in results["algorithms"].values()
            for entry in per_seed.values()
            for split in splits
            for u, _ in entry["curve"][split]
        }
    )
    lines = [
        f"| run | split | {' | '.join(f'u{u}' for u in updates)} | train success, first 10 → last 10 updates |",
        "|---" * (len(updates) + 3) + "|",
    ]
    for algorithm, per_seed in results["algorithms"].items():
        for seed, entry in sorted(per_seed.items(), key=lambda item: int(item[0])):
            state = "" if entry["status"] == "completed" else f" (at update {entry['updates_done']})"
            for i, split in enumerate(splits):
                by_update = {int(u): rate for u, rate in entry["curve"][split]}
                cells = [points(by_update.get(u), signed=False) if u in by_update else "" for u in updates]
                train = ""
                if i == 0 and entry.get("train_success_first10") is not None:
                    train = f"{entry['train_success_first10']:.2f} → {entry['train_success_last10']:.2f}"
                name = f"{NAMES.get(algorithm, algorithm)} seed {seed}{state}" if i == 0 else ""
                lines.append(f"| {name} | {split} | {' | '.join(cells)} | {train} |")
    return lines


def paired_cell(entry: dict | None) -> str:
    if not entry or entry.get("d") is None:
        return "—"
    seeds = entry.get("seeds") or []
    if entry.get("lo") is None and len(seeds) == 1:
        return f"{points(entry['d'])} (seed {seeds[0]})"
    return with_interval(entry)


def summary_table(results: dict, splits: list[str]) -> list[str]:
    header = ["", "seeds"]
    for split in splits:
        header += [
            f"{split}, across seeds",
            f"{split}, paired by seed",
            f"{split}, pooled episodes",
            f"{split}, task by task",
        ]
    lines = ["| " + " | ".join(header).lstrip() + " |", "|---" * len(header) + "|"]
    summary = results["summary"]
    grpo_seeds = summary.get("grpo", {}).get(splits[0], {}).get("final_across_seeds", {}).get("n")
    for algorithm, per_split in summary.items():
        if splits[0] not in per_split:  # no completed run yet (a benchmark under way)
            continue
        name = NAMES.get(algorithm, algorithm)
        n = per_split[splits[0]]["final_across_seeds"]["n"]
        rows = [(f"{name} {MINUS} its start", str(n), "over_start")]
        if algorithm != "grpo" and grpo_seeds:  # a report without GRPO runs (another estimator's) has no such row
            rows.append((f"{name} {MINUS} GRPO", f"{n} against {grpo_seeds}", "against_grpo"))
        for label, seeds, key in rows:
            cells = [label, seeds]
            for split in splits:
                entry = per_split[split].get(key) or {}
                paired = paired_cell(entry.get("paired_seeds")) if key == "against_grpo" else "—"
                across = entry.get("across_seeds") or {}
                # with one seed there is no across-seeds interval, and its point is the pooled one: not repeated
                cells += [
                    with_interval(across) if across.get("lo") is not None else "—",
                    paired,
                    with_interval(entry.get("pooled_episodes")),
                    with_interval(entry.get("paired_tasks")),
                ]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def against(entry: dict | None) -> str:
    """A difference task by task, then across training seeds where the report has it: '+3.6 [+1.7, +5.4]; seeds +3.6
    [+0.6, +6.5]'."""
    text = with_interval(entry)
    across = (entry or {}).get("across_seeds")
    if across and across.get("lo") is not None:
        text += f"; seeds {with_interval(across)}"
    return text


def final_eval_table(report: dict) -> list[str]:
    """bench/learning/final_eval.py's report: per algorithm and split, start → final success pooled over seeds, the change task
    by task, each seed's change with their t-interval, and the difference from GRPO task by task."""
    splits = [s for s in ("valid_seen", "valid_unseen", "dev") if any(s in e for e in report["algorithms"].values())]
    # a report paired with another one (final_eval.py --reference): each algorithm also against itself there
    reference = report.get("reference")
    if isinstance(reference, list):  # several reports: no one "same algorithm" to compare with (see its contrasts)
        reference = None
    header = ["", "seeds"]
    for split in splits:
        header += [
            f"{split}: start → final",
            "change, task by task",
            "change, across seeds (per seed)",
            f"{MINUS} GRPO, task by task (; across seeds)",
        ]
        if reference:
            header.append(f"{MINUS} the same algorithm in {Path(reference).name}, task by task (; across seeds)")
    lines = ["| " + " | ".join(header).lstrip() + " |", "|---" * len(header) + "|"]
    for algorithm, entry in report["algorithms"].items():
        cells = [NAMES.get(algorithm, algorithm), ", ".join(str(s) for s in entry["seeds"])]
        for split in splits:
            x = entry[split]
            across = x.get("over_start_across_seeds") or {}
            by_seed = ", ".join(points(d) for d in x.get("over_start_by_seed", []))
            spread = with_interval(across)
            cells += [
                f"{points(x['start']['p'], signed=False)} → {points(x['final']['p'], signed=False)}",
                with_interval(x["over_start"]),
                f"{spread} ({by_seed})" if across.get("lo") is not None else by_seed,
                against(x.get("against_grpo")),
            ]
            if reference:
                cells.append(against((x.get("against_reference") or {}).get(algorithm)))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("report", nargs="?", type=Path, default=REPO / "bench" / "results" / "learning.json")
    path = cli.parse_args(argv).report
    results = json.loads(path.read_text(encoding="utf-8"))
    if results.get("benchmark") == "final_eval":
        print("\n".join(final_eval_table(results)))
        return 0
    splits = list(results["settings"]["splits"])
    print("\n".join(runs_table(results, splits)))
    print()
    print("\n".join(summary_table(results, splits)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
