"""The trainer on a real GPU, in one command: device facts, the trainer's tests on CUDA, and Stage-2 GRPO and SEED at
the Qwen2.5-0.5B and -1.5B shapes (random weights, a local tokenizer; nothing is downloaded) — seconds per update and
per phase, the SEED/GRPO ratio, decode milliseconds per step at batch 1 and 128, peak memory, and whether every
weight is finite after every update. Writes bench/results/gpu-<device>.json (or --out).

Needs only what a GPU machine with torch, transformers and peft has, plus the trainer:

    pip install -e trainer[test]     # pydantic, PyYAML, safetensors, jsonschema, pytest (bring wheels if offline)
    python bench/speed/gpu_check.py        # ≈ 8 minutes on one H100/H200-class GPU

`--shape tiny` runs the same code at a tiny shape (on the CPU when there is no GPU); `npm test` runs it that way so
this script cannot rot. `--skip-tests` leaves out the pytest run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer" / "tests" / "support"))  # the tests' counter environment

from stage2_step import analyses_always_valid  # noqa: E402  (the same stand-in for a trained analyzer)

from seed_trainer.compute.policy import Policy  # noqa: E402
from seed_trainer.experiment.config import ModelConfig  # noqa: E402
from seed_trainer.experiment.loading import load_experiment  # noqa: E402
from seed_trainer.models.tiny import save_tiny_policy  # noqa: E402
from seed_trainer.runlog import RunReader  # noqa: E402

# Real Qwen2.5 shapes (config.json of the published models); the vocabulary is padded to the real size.
SHAPES = {
    "tiny": dict(hidden_size=64, layers=2, heads=4, kv_heads=2, intermediate_size=128, model_vocab_size=None),
    "qwen2.5-0.5b": dict(
        hidden_size=896, layers=24, heads=14, kv_heads=2, intermediate_size=4864, model_vocab_size=151936
    ),
    "qwen2.5-1.5b": dict(
        hidden_size=1536, layers=28, heads=12, kv_heads=2, intermediate_size=8960, model_vocab_size=151936
    ),
}
CORPUS = [
    "Your task is to: set the counter to 3. The counter shows 0. add one. finish. Nothing happens.",
    "<think>The counter shows 2, the target is 3.</think><action>add one</action>",
    '{"episode_summary": "reached the target", "episode_skill": "add one until the target, then finish"}',
] * 30


def device_facts(device: torch.device) -> dict:
    facts = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": __import__("transformers").__version__,
        "peft": __import__("peft").__version__,
        "device": str(device),
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        facts.update(
            name=props.name,
            capability=f"{props.major}.{props.minor}",
            memory_gib=round(props.total_memory / 2**30, 1),
            cuda=torch.version.cuda,
            cudnn=torch.backends.cudnn.version(),
            bf16=torch.cuda.is_bf16_supported(),
            device_count=torch.cuda.device_count(),
        )
    return facts


def run_tests(device: torch.device) -> dict:
    """The trainer's own tests on this device (SEED_TEST_DEVICE), fp32 and bf16 where parametrised."""
    env = {**os.environ, "SEED_TEST_DEVICE": device.type}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(REPO / "trainer" / "tests"), "-q", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
    )
    summary = [line for line in done.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    return {
        "exit_code": done.returncode,
        "summary": summary[-1] if summary else done.stdout[-500:],
        "failed": failed,
        "seconds": round(time.perf_counter() - started, 1),
    }


def make_model(directory: Path, shape: str) -> int:
    """Saves a random model of `shape` with a 512-token local tokenizer; returns its parameter count."""
    from safetensors import safe_open

    save_tiny_policy(directory, CORPUS, vocab_size=512, **SHAPES[shape])
    count = 0
    for shard in directory.glob("*.safetensors"):  # tied embeddings are stored (and counted) once
        with safe_open(str(shard), "pt") as weights:
            count += sum(math.prod(weights.get_slice(name).get_shape()) for name in weights.keys())
    return count


FINITE_AFTER_UPDATE: list[bool] = []  # filled by the wrapped update, emptied before each run


def _check_weights_after_every_update() -> None:
    import seed_trainer.stages.train as stage

    real = stage.ppo_update

    def update(policy, *args, **kwargs):
        result = real(policy, *args, **kwargs)
        FINITE_AFTER_UPDATE.append(all(bool(torch.isfinite(p).all()) for p in policy.model.parameters()))
        return result

    stage.ppo_update = update


def stage2(tmp: Path, model: Path, algorithm: str, args, device: torch.device) -> dict:
    from seed_trainer.stages.train import train

    data = {
        "name": f"gpu-check-{algorithm}",
        "seed": 1,
        "algorithm": algorithm,
        "updates": args.updates,
        "model": {"path": str(model), "dtype": args.dtype, "device": device.type},
        "environment": {"name": "counter_env:CounterTasks"},
        "rollout": {
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "max_steps": args.steps,
            "history": 2,
            "max_prompt_tokens": 512,
            "max_response_tokens": args.response_tokens,
            "generation_batch_size": args.tasks * args.group,
        },
        "analyzer": {"max_tokens": 2 * args.response_tokens},
        "rl": {"mini_batch_size": 64, "micro_batch_size": 16, "micro_batch_tokens": args.micro_batch_tokens},
        "checkpoint": {"every": 10**6, "keep_last": 1},
    }
    path = tmp / f"{algorithm}.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    FINITE_AFTER_UPDATE.clear()
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    started = time.perf_counter()
    run_dir = train(load_experiment(path), path, runs_dir=tmp / "runs", echo=None)
    wall = time.perf_counter() - started
    rows = RunReader(run_dir).metrics()
    phases = {
        k.removeprefix("time/"): round(sum(r[k] for r in rows) / len(rows), 3) for k in rows[0] if k.startswith("time/")
    }
    return {
        "seconds_per_update": phases["total"],
        "phases": phases,
        "wall_seconds": round(wall, 1),
        "skipped_steps": sum(r.get("optim/skipped_steps") or 0 for r in rows),
        "weights_finite_after_every_update": list(FINITE_AFTER_UPDATE),
        "peak_memory_gib": round(torch.cuda.max_memory_allocated(device) / 2**30, 2) if device.type == "cuda" else None,
    }


def decode_ms_per_step(model: Path, device: torch.device, dtype: str, batch: int, new_tokens: int) -> float:
    policy = Policy.load(
        ModelConfig(path=str(model), device=device.type, dtype=dtype), with_reference=False, trainable=False
    )
    prompt = policy.encode_chat(CORPUS[0], 512)
    prompts = [prompt] * batch
    policy.model.generation_config.min_new_tokens = new_tokens  # every row decodes every step
    policy.generate(prompts[:1], 4)  # warm-up (kernels, allocator)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    started = time.perf_counter()
    policy.generate(prompts, new_tokens, batch_size=batch)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return round(1000 * (time.perf_counter() - started) / new_tokens, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--shape",
        choices=["tiny", "full"],
        default="full",
        help="full: the Qwen2.5-0.5B and 1.5B shapes; tiny: a 2-layer model (CPU-friendly)",
    )
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--response-tokens", type=int, default=48)
    parser.add_argument("--micro-batch-tokens", type=int, default=None, help="rl.micro_batch_tokens (default: none)")
    parser.add_argument("--decode-tokens", type=int, default=64, help="tokens decoded per decode measurement")
    parser.add_argument("--dtype", default="auto", help="model.dtype (auto: bf16 on CUDA, fp32 on the CPU)")
    parser.add_argument("--skip-tests", action="store_true", help="do not run the trainer's pytest suite")
    parser.add_argument("--out", type=Path, default=None, help="result file (default bench/results/gpu-<device>.json)")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    shapes = ["tiny"] if args.shape == "tiny" else ["qwen2.5-0.5b", "qwen2.5-1.5b"]
    result: dict = {
        "benchmark": "gpu_check",
        "setup": {**{k: v for k, v in vars(args).items() if k != "out"}},
        "device": device_facts(device),
    }
    if not args.skip_tests:
        result["tests"] = run_tests(device)
        print(json.dumps({"tests": result["tests"]["summary"]}), flush=True)
    analyses_always_valid()
    _check_weights_after_every_update()
    result["shapes"] = {}
    for shape in shapes:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            model = tmp / "model"
            entry: dict = {"parameters": make_model(model, shape)}
            for algorithm in ("grpo", "seed"):
                entry[algorithm] = stage2(tmp, model, algorithm, args, device)
                print(json.dumps({shape: {algorithm: entry[algorithm]["seconds_per_update"]}}), flush=True)
            entry["seed_over_grpo"] = round(
                entry["seed"]["seconds_per_update"] / entry["grpo"]["seconds_per_update"], 3
            )
            entry["decode_ms_per_step"] = {
                str(batch): decode_ms_per_step(model, device, args.dtype, batch, args.decode_tokens)
                for batch in (1, 128)
            }
            entry["all_finite"] = all(entry[a]["weights_finite_after_every_update"] for a in ("grpo", "seed")) and all(
                len(entry[a]["weights_finite_after_every_update"]) == args.updates for a in ("grpo", "seed")
            )
            result["shapes"][shape] = entry
            if device.type == "cuda":
                torch.cuda.empty_cache()
    result["goals"] = {"seed_over_grpo": "<= 1.25 at the 0.5B shape", "all_finite": True}
    slug = re.sub(r"[^a-z0-9]+", "-", (result["device"].get("name") or device.type).lower()).strip("-")
    out = args.out or REPO / "bench" / "results" / f"gpu-{slug}{'-tiny' if args.shape == 'tiny' else ''}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
