"""What `report_to` costs the trainer: the same records (a Stage-2 update's metrics row and its trajectories, with
per-token arrays) written by a RunWriter alone and with TensorBoard, W&B (offline) or both attached. Prints one JSON
object: per backend the one-off start + finish seconds and the milliseconds per update (the fastest of interleaved
rounds), with the ratio of the latter to the writer alone, measured in the same process.

    .venv/bin/python bench/speed/report_overhead.py [--updates 30] [--trajectories 16] [--steps 5] [--tokens 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

from seed_trainer.reporting import attach_reporters  # noqa: E402
from seed_trainer.runlog import RunWriter, TokenArrays, known_metric_names  # noqa: E402

METRICS = [name for name, entry in known_metric_names().names.items() if not entry.deprecated][:40]
MODES = {"writer alone": [], "tensorboard": ["tensorboard"], "wandb": ["wandb"], "both": ["tensorboard", "wandb"]}


def update_records(update: int, args, rng: random.Random):
    # 40 of the names the trainer writes (the writer refuses others: schemas/metric.schema.json lists them)
    metrics = {name: rng.random() for name in METRICS}
    trajectories = []
    for n in range(args.trajectories):
        steps = []
        for t in range(args.steps):
            count = args.tokens
            tokens = TokenArrays(
                ids=[rng.randrange(1000) for _ in range(count)],
                text=[f"tok{i}" for i in range(count)],
                logp=[-rng.random() for _ in range(count)],
                teacher_logp=[-rng.random() for _ in range(count)],
                delta=[rng.random() - 0.5 for _ in range(count)],
                gate=[rng.random() for _ in range(count)],
            )
            steps.append(
                {
                    "t": t,
                    "observation": "You are in the kitchen. " * 8,
                    "response": "<think>…</think>" * 4,
                    "action": "go to fridge 1",
                    "valid": True,
                    "advantage": rng.random(),
                    "tokens": tokens,
                }
            )
        trajectories.append(
            {
                "phase": "train",
                "update": update,
                "task": {"id": f"task-{n}", "type": "pick", "description": "put a mug", "split": "train"},
                "group": n // 4,
                "sample": n % 4,
                "success": n % 3 == 0,
                "reward": float(n % 3 == 0),
                "length": args.steps,
                "skill": {"text": "look first", "summary": "", "valid": True, "source": "self"},
                "steps": steps,
            }
        )
    return metrics, trajectories


def measure(root: Path, backends: list[str], args) -> dict:
    root.mkdir()
    experiment = root / "bench.seed.yaml"
    experiment.write_text("name: bench\n", encoding="utf-8")
    rng = random.Random(0)
    records = [update_records(u, args, rng) for u in range(1, args.updates + 1)]
    started = time.perf_counter()
    writer = RunWriter.create(
        root / "runs",
        name="bench",
        stage="train",
        algorithm="seed",
        config={"report_to": backends},
        experiment_path=experiment,
    )
    attach_reporters(writer)
    opened = time.perf_counter() - started
    started = time.perf_counter()
    for update, (metrics, trajectories) in enumerate(records, start=1):
        writer.metrics(update, "update", metrics)
        for record in trajectories:
            writer.trajectory(record)
    per_update = (time.perf_counter() - started) / args.updates
    started = time.perf_counter()
    writer.finish("completed")
    warnings = [line for line in writer.paths.events.read_text().splitlines() if '"warning"' in line]
    if warnings:
        raise SystemExit(f"{backends}: {warnings}")
    return {
        "start_and_finish_s": round(opened + time.perf_counter() - started, 3),
        "ms_per_update": round(per_update * 1e3, 2),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=30)
    parser.add_argument("--trajectories", type=int, default=16)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("WANDB_CONFIG_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR"):
            os.environ[name] = str(Path(tmp) / name.lower())
        os.environ["WANDB_MODE"] = "offline"
        measure(Path(tmp) / "warm-up", MODES["both"], argparse.Namespace(**{**vars(args), "updates": 1}))  # imports
        rounds = {mode: [] for mode in MODES}
        for number in range(args.rounds):  # interleaved, the fastest round kept: the machine's other load is noise
            for mode, backends in MODES.items():
                rounds[mode].append(measure(Path(tmp) / f"{mode.replace(' ', '-')}-{number}", backends, args))
        results = {mode: min(runs, key=lambda r: r["ms_per_update"]) for mode, runs in rounds.items()}
    base = results["writer alone"]["ms_per_update"]
    for result in results.values():
        result["ratio_per_update"] = round(result["ms_per_update"] / base, 2)
    print(
        json.dumps(
            {
                "rounds": args.rounds,
                "updates": args.updates,
                "trajectories_per_update": args.trajectories,
                "steps": args.steps,
                "tokens_per_step": args.tokens,
                "results": results,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
