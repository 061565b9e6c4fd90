"""Do runs of one benchmark setting repeat bit for bit? Compares one (algorithm, seed) across learning.py reports.

Each report is made by `learning.py` (from a git worktree at a commit of your choice) with the same settings; the first
is the reference, e.g. the committed bench/results/learning.json. Per report: the training success summaries (first
10, last 10, last 5 updates), the in-training evaluations (the first update where one differs) and the final
evaluations' outcomes task by task (how many tasks end differently), each against the reference. Writes JSON.

    .venv/bin/python bench/learning/run_repeat.py --algorithm grpo --seed 1 \
        --report stored=bench/results/learning.json --report c5e3880=old.json --report 28188c2=new.json --out F
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from seed_bench.report import write_report

SUMMARY = ("train_success_first10", "train_success_last10", "train_success_last5")


def entry_of(report: dict, algorithm: str, seed: int) -> dict:
    entry = (report.get("algorithms") or {}).get(algorithm, {}).get(str(seed))
    if entry is None:
        raise SystemExit(f"no {algorithm} seed {seed} in the report")
    return entry


def outcome_differences(reference: dict, other: dict) -> dict[str, int | None]:
    """Per split, how many final-evaluation tasks end differently (None: not the same tasks, or missing)."""
    out = {}
    for split, theirs in (reference.get("final_outcomes") or {}).items():
        ours = (other.get("final_outcomes") or {}).get(split)
        if not theirs or not ours or theirs["tasks"] != ours["tasks"]:
            out[split] = None
        else:
            out[split] = sum(a != b for a, b in zip(theirs["success"], ours["success"]))
    return out


def first_curve_difference(reference: dict, other: dict) -> dict[str, int | None]:
    """Per split, the first update whose in-training evaluation differs (None: none differs)."""
    out = {}
    for split, points in (reference.get("curve") or {}).items():
        theirs = dict((int(u), v) for u, v in points)
        ours = dict((int(u), v) for u, v in (other.get("curve") or {}).get(split, []))
        out[split] = next((u for u in sorted(theirs) if u in ours and ours[u] != theirs[u]), None)
    return out


def compare(named: list[tuple[str, dict]], algorithm: str, seed: int) -> dict:
    (ref_name, ref_report), *others = named
    reference = entry_of(ref_report, algorithm, seed)
    rows = {ref_name: {k: reference.get(k) for k in (*SUMMARY, "final", "made_with")}}
    for name, report in others:
        entry = entry_of(report, algorithm, seed)
        rows[name] = {
            **{k: entry.get(k) for k in (*SUMMARY, "final", "made_with")},
            "same_summary_as_reference": all(entry.get(k) == reference.get(k) for k in SUMMARY),
            "first_eval_difference": first_curve_difference(reference, entry),
            "final_tasks_differing": outcome_differences(reference, entry),
        }
    return {"algorithm": algorithm, "seed": seed, "reference": ref_name, "reports": rows}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--algorithm", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--report", action="append", required=True, metavar="NAME=PATH", help="the first is the reference")
    p.add_argument("--note", default="", help="a sentence the result keeps (how and where the runs were made)")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    named = []
    for item in args.report:
        name, _, path = item.partition("=")
        named.append((name, json.loads(Path(path).read_text(encoding="utf-8"))))
    result = compare(named, args.algorithm, args.seed) | ({"note": args.note} if args.note else {})
    write_report(result, args.out)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
