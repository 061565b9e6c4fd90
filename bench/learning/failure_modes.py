"""Where household episodes go wrong: the placements a policy makes, against the task's target receptacle.

Reads trajectory files of household runs (a run's `trajectories/*.jsonl`: training rollouts or evaluations) and, per
group of files, counts what the policy put where. The target receptacle type comes from the environment itself (the
task id names split, seed and type; `HouseholdSpec.instance` rebuilds the instance), not from the task sentence.

    python bench/learning/failure_modes.py --group base 'RUN/base-eval-dev/trajectories/eval-*.jsonl' \
                                  --group trained 'RUN/grpo/trajectories/it-00005*.jsonl'

Prints JSON: per group, the episodes of placing tasks (every type but look_at_obj_in_light), their success rate,
the share whose first successful placement went to a receptacle of the target's type, and the failed episodes split
by what went wrong (placed something in a wrong receptacle type / never placed anything / placed only in the target).
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "trainer"))

from seed_trainer.envs.household import HouseholdSpec, catalogue, world


def target_of(task_id: str) -> tuple[str, str] | None:
    """(task type, target receptacle type) of a household task id `household-<split>-<seed>-<type>`; None for a
    task without a target (looking at an object in light) or an id of another environment."""
    parts = task_id.split("-")
    if len(parts) != 4 or parts[0] != "household" or parts[1] not in catalogue.SPLITS:
        return None
    instance = HouseholdSpec(parts[1], int(parts[2]), parts[3]).instance  # cached: a group plays each task often
    return (instance.task_type, instance.target) if instance.target else None


def placements(episode: dict) -> list[str]:
    """The receptacle types the episode's valid `put` actions went to, in order (an action's result is the next
    step's observation, or the final one after the last step)."""
    steps = episode["steps"]
    results = [s.get("observation") or "" for s in steps[1:]] + [episode.get("final_observation") or ""]
    placed = []
    for step, result in zip(steps, results):
        action = step.get("action") or ""
        if action.startswith("put ") and " in/on " in action and result.startswith("You put "):
            placed.append(world.receptacle_type(action.split(" in/on ", 1)[1]))
    return placed


def summarise(files: list[str]) -> dict:
    counts: Counter = Counter()
    by_type: dict[str, Counter] = {}
    for file in files:
        with open(file, encoding="utf-8") as lines:
            for line in lines:
                episode = json.loads(line)
                goal = target_of(episode["task"]["id"])
                if goal is None:
                    continue
                task_type, target = goal
                placed = placements(episode)
                outcome = (
                    "success"
                    if episode["success"]
                    else "failed, placed in a wrong receptacle type"
                    if any(p != target for p in placed)
                    else "failed, never placed"
                    if not placed
                    else "failed, placed only in the target type"
                )
                for counter in (counts, by_type.setdefault(task_type, Counter())):
                    counter["episodes"] += 1
                    counter[outcome] += 1
                    counter["placed at least once"] += bool(placed)
                    counter["first placement in the target type"] += bool(placed) and placed[0] == target

    def shares(c: Counter) -> dict:
        n, placed = c["episodes"], c["placed at least once"]
        failed = n - c["success"]
        return {
            "episodes": n,
            "success": round(c["success"] / n, 4) if n else None,
            "first placement in the target type (of episodes that placed)": round(
                c["first placement in the target type"] / placed, 4
            )
            if placed
            else None,
            "failed episodes": {
                k: c[k]
                for k in (
                    "failed, placed in a wrong receptacle type",
                    "failed, never placed",
                    "failed, placed only in the target type",
                )
            },
            "wrong receptacle type, share of failures": round(
                c["failed, placed in a wrong receptacle type"] / failed, 4
            )
            if failed
            else None,
        }

    return {"files": len(files), **shares(counts), "by_task_type": {t: shares(c) for t, c in sorted(by_type.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--group",
        nargs=2,
        action="append",
        metavar=("NAME", "GLOB"),
        required=True,
        help="a name and a glob of trajectory files (repeat for each group)",
    )
    args = parser.parse_args()
    report = {"benchmark": "failure_modes", "groups": {}}
    for name, pattern in args.group:
        files = sorted(glob.glob(pattern))
        if not files:
            parser.error(f"--group {name}: no file matches {pattern}")
        report["groups"][name] = summarise(files)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
