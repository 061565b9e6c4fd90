"""Per-phase wall time of one Stage-2 SEED update on SmolLM2-135M-Instruct on the CPU: fp32 against bf16 autocast,
LoRA against a full fine-tune, with Hugging Face generate (issue 38, item 4: first measurement; vLLM comes later).

    OMP_NUM_THREADS=1 nice -n 15 python bench/smollm2_speed.py [--repeat 2] [--threads 1] [--out FILE.json]

Each configuration is a real `train` run of one update on the household environment (oracle skills, so the teacher
pass always runs) at a reduced protocol (--tasks × --group, --steps, --history, --response tokens); the phases are the
run's own `time/*` metrics (rollout = HF generate plus the environment, logprobs = π_old and reference scoring,
teacher, update). Also timed: the plain `from_pretrained` load of the converted folder, and the conversion itself when
the cache has none yet (else the manifest's recorded seconds). The configurations run in --repeat interleaved rounds
and each phase reports its minimum (other processes on a shared machine only add time; every round is kept too).
Ratios are against fp32 LoRA measured in the same invocation; the load average is recorded before, after and with
every round.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "trainer"))

CONFIGS = [("float32", True), ("bfloat16", True), ("float32", False), ("bfloat16", False)]


def _experiment(folder: Path, dtype: str, lora: bool, args) -> Path:
    import yaml

    data = {
        "name": f"speed-{dtype}-{'lora' if lora else 'full'}",
        "seed": args.seed,
        "algorithm": "seed",
        "updates": 1,
        "model": {
            "path": "builtin:smollm2-135m-instruct-q4_1",
            "device": "cpu",
            "dtype": dtype,
            **({"lora": {"r": 16, "alpha": 32}} if lora else {}),
        },
        "environment": {"name": "household"},
        "rollout": {
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "max_steps": args.steps,
            "history": args.history,
            "max_prompt_tokens": 1024,
            "max_response_tokens": args.response,
            "temperature": 1.0,
        },
        "opd": {"skill_source": "oracle"},
        "rl": {"mini_batch_size": 256, "micro_batch_size": 4, "lr": 1e-5},
        "checkpoint": {"every": 1, "keep_last": 1},
    }
    path = folder / "speed.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tasks", type=int, default=1)
    parser.add_argument("--group", type=int, default=4)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--history", type=int, default=1)
    parser.add_argument("--response", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="rounds over the configurations, interleaved; each phase's minimum over them is reported "
        "(on a shared machine the other processes only ever add time)",
    )
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "smollm2-speed.json"))
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    from seed_trainer.builtin_models import MANIFEST_FILE, SMOLLM2, cache_problem, converted_dir
    from seed_trainer.config import ModelConfig, load_experiment
    from seed_trainer.models.smollm2 import ensure_converted
    from seed_trainer.policy import Policy
    from seed_trainer.runlog import RunReader
    from seed_trainer.runlog.tokens import decode_int32
    from seed_trainer.stages.train import train

    load_before = os.getloadavg()
    converted_now = cache_problem(SMOLLM2, converted_dir(SMOLLM2)) is not None
    started = time.perf_counter()
    directory = ensure_converted(SMOLLM2)
    conversion = (
        time.perf_counter() - started
        if converted_now
        else json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))["seconds"]
    )

    started = time.perf_counter()
    Policy.load(ModelConfig(path=str(directory), device="cpu", dtype="float32"), with_reference=False, trainable=False)
    load_seconds = time.perf_counter() - started

    rounds: dict[tuple[str, bool], list[dict]] = {config: [] for config in CONFIGS}
    for round_ in range(args.repeat):
        for dtype, lora in CONFIGS:
            with tempfile.TemporaryDirectory(prefix="smollm2-speed-") as tmp:
                path = _experiment(Path(tmp), dtype, lora, args)
                started = time.perf_counter()
                run_dir = train(load_experiment(path), path, echo=None)
                wall = time.perf_counter() - started
                reader = RunReader(run_dir)
                (row,) = [r for r in reader.metrics() if r["kind"] == "update"]
                steps = [s for _, t in reader.iter_trajectories("it-000001.jsonl") for s in t["steps"]]
                measured = {
                    "phases_s": {k[len("time/") :]: round(v, 2) for k, v in row.items() if k.startswith("time/")},
                    "run_wall_s": round(wall, 1),  # phases + model load, reference copy, checkpoint
                    "samples": len(steps),
                    "prompt_tokens": sum(s["prompt_tokens"] for s in steps),
                    "response_tokens": sum(len(decode_int32(s["tokens"]["ids"])) for s in steps),
                    "load_average": round(os.getloadavg()[0], 2),
                }
                rounds[(dtype, lora)].append(measured)
                print(json.dumps({"round": round_, "dtype": dtype, "lora": lora, **measured}), flush=True)

    results = []
    for (dtype, lora), measured in rounds.items():
        phases = measured[0]["phases_s"].keys()
        results.append(
            {
                "dtype": dtype,
                "lora": lora,
                "phases_s": {k: min(m["phases_s"][k] for m in measured) for k in phases},  # the least disturbed
                "rounds": measured,
            }
        )
    base = next(r for r in results if r["dtype"] == "float32" and r["lora"])
    for entry in results:
        entry["ratio_to_fp32_lora"] = {
            k: round(v / base["phases_s"][k], 2) for k, v in entry["phases_s"].items() if base["phases_s"].get(k)
        }
    report = {
        "command": "OMP_NUM_THREADS=1 nice -n 15 python bench/smollm2_speed.py " + " ".join(argv or sys.argv[1:]),
        "model": SMOLLM2.title,
        "statistic": f"minimum per phase over {args.repeat} interleaved rounds",
        "protocol": {
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "max_steps": args.steps,
            "history": args.history,
            "max_response_tokens": args.response,
            "engine": "hf",
            "skills": "oracle (teacher pass on every trajectory)",
        },
        "machine": {
            "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "platform": platform.platform(),
            "torch": torch.__version__,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "conversion_s": round(conversion, 1),
        "conversion_measured_now": converted_now,
        "load_s": round(load_seconds, 1),
        "results": results,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
