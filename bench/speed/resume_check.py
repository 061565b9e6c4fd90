"""What `resume` pays to check the records it keeps before it cuts anything (docs/run-format.md §10).

Builds a synthetic Stage-2 run directory — `--updates` × `--per-update` trajectory lines shaped like the realistic
trajectory of docs/run-format.md §7.4 (`--tokens` response tokens over 30 steps: five base64 arrays and one text piece
per token, observations; about 260 KB a line), with their index rows and metrics rows — and
times, in the same process, (1) reading every kept byte line by line without parsing (the baseline: what any check
must at least do) and (2) `plan_rollback`, which also parses every kept line and validates the metrics and index rows. Prints JSON: seconds, MB/s, the ratio
to the baseline, and the time projected for the 200-update × 128-trajectory run of §7.4 (6.16 GiB).

    .venv/bin/python bench/speed/resume_check.py [--updates 8] [--per-update 16] [--tokens 6215] [--repeat 3]
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import tempfile
import time
from pathlib import Path

from seed_trainer.checkpoints.checkpoint import file_sizes
from seed_trainer.checkpoints.rollback import plan_rollback, rollback_candidates

PAPER_RUN_BYTES = 6.16 * 2**30


PIECES = [" the", " mug", " take", " 1", "<", "action", ">", " counter", "top", ".", " I", " heat"]


def trajectory(rng: random.Random, update: int, n: int, tokens: int, steps: int = 30) -> dict:
    per_step = tokens // steps
    arrays = {
        name: base64.b64encode(rng.randbytes(4 * per_step)).decode()
        for name in ("ids", "logp", "teacher_logp", "delta", "gate")
    }
    return {
        "id": f"it-{update:06d}-{n + 1:04d}",
        "phase": "train",
        "update": update,
        "steps": [
            {
                "t": t,
                "observation": "You are in the middle of a room. " * 40,
                "response": "<think>…</think>",
                "tokens": {"count": per_step, "text": [rng.choice(PIECES) for _ in range(per_step)], **arrays},
            }
            for t in range(steps)
        ],
    }


def build_run(root: Path, updates: int, per_update: int, tokens: int, seed: int) -> None:
    rng = random.Random(seed)
    trajectories = root / "trajectories"
    trajectories.mkdir(parents=True)
    index_rows, metrics = [], []
    for update in range(1, updates + 1):
        lines, offset = [], 0
        for n in range(per_update):
            record = trajectory(rng, update, n, tokens)
            data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
            index_rows.append(
                {
                    "id": record["id"],
                    "file": f"it-{update:06d}.jsonl",
                    "line": n + 1,
                    "offset": offset,
                    "size": len(data),
                    "phase": "train",
                    "update": update,
                    "task": {"id": f"household/task-{n}", "type": "heat"},
                    "success": False,
                    "reward": 0.0,
                    "length": len(record["steps"]),
                    "tokens": sum(step["tokens"]["count"] for step in record["steps"]),
                    "teacher": True,
                }
            )
            lines.append(data)
            offset += len(data)
        (trajectories / f"it-{update:06d}.jsonl").write_bytes(b"".join(lines))
        metrics.append({"step": update, "time": "2026-03-01T12:00:00.000Z", "kind": "update", "success/overall": 0.5})
    (trajectories / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in index_rows), encoding="utf-8")
    (root / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in metrics), encoding="utf-8")


def read_lines(root: Path) -> int:
    total = 0
    for path in rollback_candidates(root):
        with open(path, "rb") as handle:
            for raw in handle:
                total += len(raw)
    return total


def best_of(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--updates", type=int, default=8)
    parser.add_argument("--per-update", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=6215)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_run(root, args.updates, args.per_update, args.tokens, args.seed)
        sizes = file_sizes(root)  # the checkpoint after the last update: everything is kept
        size = sum(sizes.values())
        read_lines(root)  # warm the page cache for both measurements
        baseline = best_of(args.repeat, lambda: read_lines(root))
        plan = None

        def check() -> None:
            nonlocal plan
            plan = plan_rollback(root, sizes)

        checked = best_of(args.repeat, check)
        assert plan is not None and not plan.problems, plan.problems
    mb = size / 1e6
    print(
        json.dumps(
            {
                "run": {
                    "updates": args.updates,
                    "trajectories_per_update": args.per_update,
                    "tokens": args.tokens,
                    "bytes_kept": size,
                    "line_kb": round(size / (args.updates * args.per_update) / 1024, 1),
                },
                "read_lines": {"seconds": round(baseline, 4), "mb_per_s": round(mb / baseline, 1), "ratio": 1.0},
                "plan_rollback": {
                    "seconds": round(checked, 4),
                    "mb_per_s": round(mb / checked, 1),
                    "ratio": round(checked / baseline, 2),
                },
                "projected_seconds_200x128_run": {
                    "read_lines": round(PAPER_RUN_BYTES / (size / baseline), 1),
                    "plan_rollback": round(PAPER_RUN_BYTES / (size / checked), 1),
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
