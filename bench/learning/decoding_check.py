"""Is SEED-`expected`'s held-out gain over GRPO a sharper policy at temperature 0.4? The decoding check of issue 48.

Reads three final_eval reports made from the same start weights on the same 500 tasks per split:

- the stored sampled finals (0.4): GRPO's in bench/results/final_eval.json, SEED-`expected`'s in
  bench/results/final_eval-expected.json;
- `--greedy`: final_eval.py `--greedy` of re-runs of the same seeds (learning.py, `--keep-checkpoints 5`);
- `--reproduced` (optional): final_eval.py at 0.4 of some of those re-runs, checked task for task against the stored
  outcomes: where they agree the greedy finals belong to the stored runs;
- `--sampled` (optional): final_eval.py at 0.4 of the same re-runs as `--greedy`, used instead of the stored reports
  when the re-runs did not reproduce them (then the comparison is within the re-runs only).

Per seed it takes SEED − GRPO over both splits' paired tasks at 0.4 and greedy, and their difference (greedy − 0.4):
the gain shrinks under greedy decoding when that difference is negative. Over the seeds: the mean and its 95 %
t-interval (controls_verdict.difference_of_differences). Writes the result as JSON.

    .venv/bin/python bench/learning/decoding_check.py --greedy G.json [--reproduced R.json] --out bench/results/decoding_check.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controls_verdict import difference_of_differences, outcomes, seed_differences, t_contrast
from seed_bench import REPO
from seed_bench.report import shown_path, write_report
from seed_bench.stats import interval, wilson

RESULTS = REPO / "bench" / "results"
SPLITS = ("valid_seen", "valid_unseen")


def sampled_report(grpo: dict, seed: dict) -> dict:
    """One report of the stored sampled finals: GRPO's outcomes from one, SEED's from the other."""
    kept = {k: v for k, v in grpo["outcomes"].items() if k.startswith("grpo/")}
    kept |= {k: v for k, v in seed["outcomes"].items() if k.startswith("seed/")}
    return {"outcomes": kept}


def reproduction(reproduced: dict, sampled: dict) -> dict[str, bool]:
    """Per re-evaluated final (`algorithm/seed/split`): the same tasks and the same outcome on each as stored."""
    checks = {}
    for key, outcome in (reproduced.get("outcomes") or {}).items():
        if key.split("/")[0] in ("grpo", "seed") and outcome:
            stored = sampled["outcomes"].get(key)
            checks[key] = (
                bool(stored) and stored["tasks"] == outcome["tasks"] and stored["success"] == outcome["success"]
            )
    return checks


def pooled(report: dict, algorithm: str, seeds: list[int]) -> dict:
    """Success over the seeds' and both splits' episodes, with its Wilson interval."""
    played = "".join(report["outcomes"][f"{algorithm}/{s}/{split}"]["success"] for s in seeds for split in SPLITS)
    return wilson(played.count("1"), len(played))


def task_level(greedy: dict, sampled: dict, seeds: list[int]) -> dict:
    """(SEED − GRPO at greedy) − (SEED − GRPO at 0.4) per task, pooled over the seeds' and both splits' tasks, in
    points, with a t-interval over the tasks: the evaluation noise only (the seed-to-seed spread is not in it; the
    seed-level interval is `greedy_minus_sampled`)."""
    diffs = []
    for seed in seeds:
        for split in SPLITS:
            g = [greedy["outcomes"][f"{a}/{seed}/{split}"]["success"] for a in ("seed", "grpo")]
            s = [sampled["outcomes"][f"{a}/{seed}/{split}"]["success"] for a in ("seed", "grpo")]
            diffs += [100.0 * ((int(a) - int(b)) - (int(c) - int(d))) for a, b, c, d in zip(*g, *s)]
    spread = interval(diffs)
    return {"tasks": len(diffs), "d": spread["mean"], "lo": spread["lo"], "hi": spread["hi"]}


def gain(report: dict, seeds: list[int]) -> dict:
    """SEED − GRPO in points over the given seeds (the stored sampled reports hold five; the re-runs fewer)."""
    by_seed = seed_differences(outcomes(report, "seed"), outcomes(report, "grpo"))
    return t_contrast({s: d for s, d in by_seed.items() if s in seeds})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--greedy", type=Path, required=True)
    p.add_argument("--reproduced", type=Path)
    p.add_argument("--sampled", type=Path, help="the re-runs' own finals at 0.4, instead of the stored reports")
    p.add_argument("--grpo", type=Path, default=RESULTS / "final_eval.json")
    p.add_argument("--own", type=Path, default=RESULTS / "final_eval-expected.json")
    p.add_argument("--out", type=Path, default=RESULTS / "decoding_check.json")
    p.add_argument("--note", default="", help="a sentence the result keeps (which runs, at which commit, where)")
    args = p.parse_args(argv)
    read = lambda path: json.loads(path.read_text(encoding="utf-8"))  # noqa: E731
    greedy, grpo, own = read(args.greedy), read(args.grpo), read(args.own)
    if not greedy.get("greedy"):
        raise SystemExit(f"{args.greedy} is not a greedy report (final_eval.py --greedy)")
    for report, path in ((grpo, args.grpo), (own, args.own)):
        if (report.get("weights"), report.get("tasks_per_split")) != (
            greedy.get("weights"),
            greedy.get("tasks_per_split"),
        ):
            raise SystemExit(f"{path} and {args.greedy} were not made from the same weights and task count")
    stored = sampled_report(grpo, own)
    sampled = read(args.sampled) if args.sampled else stored
    seeds = sorted(set(outcomes(greedy, "seed")) & set(outcomes(greedy, "grpo")))
    result = {
        "benchmark": "decoding_check",
        "weights": greedy["weights"],
        "tasks_per_split": greedy["tasks_per_split"],
        "seeds": seeds,
        "sampled_from": shown_path(args.sampled) if args.sampled else "the stored reports",
        "reproduced": reproduction(read(args.reproduced), stored) if args.reproduced else {},
        "success": {
            decoding: {a: pooled(report, a, seeds) for a in ("grpo", "seed")}
            for decoding, report in (("sampled 0.4", sampled), ("greedy", greedy))
        },
        "seed_minus_grpo": {
            decoding: gain(report, seeds) for decoding, report in (("sampled 0.4", sampled), ("greedy", greedy))
        },
        "greedy_minus_sampled": difference_of_differences(greedy, sampled),
        "greedy_minus_sampled_task_level": task_level(greedy, sampled, seeds),
        **({"note": args.note} if args.note else {}),
    }
    write_report(result, args.out)
    print(json.dumps({k: v for k, v in result.items() if k != "reproduced"}, indent=2))
    print(f"reproduced: {sum(result['reproduced'].values())} of {len(result['reproduced'])} finals task for task")
    return 0


if __name__ == "__main__":
    sys.exit(main())
