"""How far each phase of our trainer runs from this CPU's limit (issue 53): the matmul peak torch reaches here (fp32
and bf16, one and two threads), the memory bandwidth (a large copy and a large add), the machine balance (peak ÷
bandwidth); then, for one Stage-2 update of SEED on SmolLM2-135M (household, oracle skills, so the teacher pass scores
every step), per phase — generation, log-probs, teacher pass, update — the matmul FLOPs of the tokens processed,
achieved FLOP/s against the peak, the arithmetic intensity against the balance: compute-bound or not.

    OMP_NUM_THREADS=1 nice -n 5 .venv/bin/python bench/speed/roofline.py [--dtype fp32] [--run-threads 1] \
        [--tasks 1 --group 4 --steps 4 --response 48 --updates 2] [--out bench/results/roofline.json]
    .venv/bin/python bench/speed/roofline.py --quick     # a smoke test: small matmuls, one tiny update

The phase times are the trainer's own `time/*` metrics of the last update (stages/train.py's phase timers): rollout
(generation, prompt building and the environment), logprobs (advantages, π_old where recomputed, the reference pass),
teacher, update. What is counted as FLOPs and traffic: roofline_model.py. The peaks are measured in this process
before the run, on the thread counts asked for. Only meaningful on an idle machine.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import torch
import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(HERE), str(REPO / "trainer")]

import roofline_model  # noqa: E402
from roofline_model import Shape, Work, generation_work, scoring_work, update_work, verdict  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
CONFIG_DTYPES = {"fp32": "float32", "bf16": "bfloat16"}


def _best_rate(work, amount: float, min_seconds: float, repeats: int) -> float:
    """The best of `repeats` timings of `work` (each repeated until `min_seconds`), as `amount` per second."""
    work()  # warm-up: thread pools, packing buffers
    best = 0.0
    for _ in range(repeats):
        count, started = 0, time.perf_counter()
        while True:
            work()
            count += 1
            elapsed = time.perf_counter() - started
            if elapsed >= min_seconds:
                break
        best = max(best, amount * count / elapsed)
    return best


def matmul_peak(dtype: torch.dtype, shapes: list[tuple[int, int, int]], min_seconds: float, repeats: int) -> dict:
    """FLOP/s of torch.matmul per (m, k, n), and the best over the shapes."""
    rates = {}
    for m, k, n in shapes:
        a, b = torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
        out = torch.empty(m, n, dtype=dtype)
        product = functools.partial(torch.matmul, a, b, out=out)
        rates[f"{m}x{k}x{n}"] = _best_rate(product, 2.0 * m * k * n, min_seconds, repeats)
    return {"flops": max(rates.values()), "by_shape": {s: round(r / 1e9, 2) for s, r in rates.items()}}


def bandwidth(mib: int, min_seconds: float, repeats: int) -> dict:
    """Bytes per second of a copy (read + write) and an add (two reads + a write) of `mib`-MiB fp32 tensors."""
    n = mib * 2**20 // 4
    a, b, c = torch.rand(n), torch.rand(n), torch.empty(n)
    size = 4 * n
    copy = _best_rate(lambda: c.copy_(a), 2 * size, min_seconds, repeats)
    add = _best_rate(lambda: torch.add(a, b, out=c), 3 * size, min_seconds, repeats)
    return {"bytes_per_s": max(copy, add), "copy_gbs": round(copy / 1e9, 2), "add_gbs": round(add / 1e9, 2)}


def machine_limits(threads: list[int], quick: bool) -> dict:
    """Peaks, bandwidth and balance per thread count (and dtype), in this process."""
    shapes = (
        [(256, 256, 256), (128, 576, 1536)] if quick else [(1024, 1024, 1024), (2048, 2048, 2048), (512, 576, 1536)]
    )
    seconds, repeats, mib = (0.05, 2, 16) if quick else (0.5, 3, 256)
    limits = {}
    for count in threads:
        torch.set_num_threads(count)
        memory = bandwidth(mib, seconds, repeats)
        entry = {"bandwidth_gbs": round(memory["bytes_per_s"] / 1e9, 2), "bandwidth": memory}
        for name, dtype in DTYPES.items():
            peak = matmul_peak(dtype, shapes, seconds, repeats)
            entry[name] = {
                "peak_gflops": round(peak["flops"] / 1e9, 2),
                "by_shape_gflops": peak["by_shape"],
                "balance_flop_per_byte": round(peak["flops"] / memory["bytes_per_s"], 1),
            }
        limits[str(count)] = entry
    return limits


def experiment(args) -> dict:
    return {
        "name": "roofline",
        "seed": 0,
        "algorithm": "seed",
        "updates": args.updates,
        "model": {"path": args.model, "device": "cpu", "dtype": CONFIG_DTYPES[args.dtype]},
        "environment": {"name": "household", "options": {"max_steps": args.steps}},
        "rollout": {
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "max_steps": args.steps,
            "history": 1,
            "max_prompt_tokens": 1024,
            "max_response_tokens": args.response,
            "temperature": 1.0,
        },
        "opd": {"skill_source": "oracle"},
        "rl": {"mini_batch_size": 256, "micro_batch_size": 4, "lr": 1e-5},
        "eval": {"every": 0},
        "checkpoint": {"every": args.updates, "keep_last": 1},
    }


def run_trainer(args, tmp: Path) -> Path:
    path, run_dir = tmp / "roofline.seed.yaml", tmp / "run"
    path.write_text(yaml.safe_dump(experiment(args), sort_keys=False), encoding="utf-8")
    threads = str(args.run_threads)
    env = {**os.environ, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads, "TQDM_DISABLE": "1"}
    env["PYTHONPATH"] = str(REPO / "trainer")
    done = subprocess.run(
        [sys.executable, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the trainer run failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return run_dir


def phase_work(run_dir: Path, update: int) -> tuple[dict[str, Work], dict, Shape]:
    """Each phase's Work in `update` of the run, from its trajectories and its recorded configuration."""
    from transformers import AutoTokenizer

    from seed_trainer.compute.batching import plan_micro_batches
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.loading import experiment_from_data
    from seed_trainer.rl.teacher import teacher_prompt_ids
    from seed_trainer.runlog import RunReader
    from seed_trainer.runlog.tokens import decode_int32

    reader = RunReader(run_dir)
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    config = experiment_from_data(run["config"], REPO, "the run's configuration")
    model_dir = config.resolved_model().path
    shape = Shape.from_config(json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8")))
    rl, rollout = config.rl, config.rollout
    bf16 = config.model.dtype == "bfloat16"
    trajectories = [t for _, t in reader.iter_trajectories(f"it-{update:06d}.jsonl")]
    rows, rounds, teacher_rows = [], defaultdict(list), []
    tokenizer_policy = Policy(None, AutoTokenizer.from_pretrained(model_dir), torch.device("cpu"))
    for trajectory in trajectories:
        skill = (trajectory.get("skill") or {}).get("text")
        for step in trajectory["steps"]:
            row = (step["prompt_tokens"], len(decode_int32(step["tokens"]["ids"])))
            rows.append(row)
            rounds[step["t"]].append(row)
            if "teacher_logp" in step["tokens"] and skill:
                ids = teacher_prompt_ids(tokenizer_policy, step["prompt"], skill, rollout.max_prompt_tokens)
                teacher_rows.append((len(ids), row[1]))

    def plan(of):
        return plan_micro_batches([p + r for p, r in of], rl.micro_batch_size, rl.micro_batch_tokens)

    batch = rollout.generation_batch_size
    generation = [r[i : i + batch] for r in rounds.values() for i in range(0, len(r), batch)]
    recompute = not (rl.old_logprobs == "rollout" or (rl.old_logprobs == "auto" and not bf16))
    logprobs = Work()
    if recompute:
        logprobs = logprobs.add(scoring_work(shape, rows, plan(rows), 4))
    if rl.kl_coef > 0:  # the reference copy is stored in the compute dtype
        logprobs = logprobs.add(scoring_work(shape, rows, plan(rows), 2 if bf16 else 4))
    minis = [list(range(i, min(i + rl.mini_batch_size, len(rows)))) for i in range(0, len(rows), rl.mini_batch_size)]
    micro = [[mini[j] for j in b] for mini in minis for b in plan([rows[i] for i in mini])] * rl.ppo_epochs
    work = {
        "generation": generation_work(shape, generation, 4),
        "logprobs": logprobs,
        "teacher": scoring_work(shape, teacher_rows, plan(teacher_rows), 4) if teacher_rows else Work(),
        "update": update_work(shape, rows, micro, len(minis) * rl.ppo_epochs, 4),
    }
    notes = {"pi_old_recomputed": recompute, "steps": len(rows), "teacher_steps": len(teacher_rows)}
    return work, notes, shape


PHASE_TIMERS = {"generation": "rollout", "logprobs": "logprobs", "teacher": "teacher", "update": "update"}


def diagnose(entry: dict, bandwidth_gbs: float) -> list[str]:
    """Why a phase is far from its limit, from its own numbers (empty: within half of it)."""
    if entry["seconds"] <= 0 or entry["gflop"] == 0:
        return []
    reasons = []
    memory_share = entry["traffic_gb"] / entry["seconds"] / bandwidth_gbs
    if entry["compute_bound"] and entry["share_of_peak"] < 0.5:
        reasons.append(f"compute-bound at {entry['share_of_peak']:.0%} of the matmul peak")
    if not entry["compute_bound"] and memory_share < 0.5:
        reasons.append(f"memory-bound by intensity, yet moving {memory_share:.0%} of the bandwidth: overhead")
    if entry["padding_share"] > 0.1:
        reasons.append(f"{entry['padding_share']:.0%} of the computed tokens are padding")
    if entry["decoding_share_of_flops"] > 0:
        reasons.append(
            f"decoding steps ({entry['decoding_share_of_flops']:.0%} of the FLOPs) read every weight for one token per "
            "row: memory-bound, whatever the phase's intensity says"
        )
    if entry["share_of_roofline"] is not None and entry["share_of_roofline"] < 0.5:
        reasons.append(
            f"at {entry['share_of_roofline']:.0%} of the roofline's least time: the rest is overhead (per-step Python "
            "and kernel launches, prompt building, the environment)"
        )
    return reasons


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small matmuls and one tiny update (a smoke test)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts of the peaks")
    p.add_argument("--run-threads", type=int, default=1, help="threads of the trainer run")
    p.add_argument("--model", default="builtin:smollm2-135m-instruct-q4_1")
    p.add_argument("--dtype", choices=tuple(DTYPES), default="fp32")
    p.add_argument("--tasks", type=int, default=1)
    p.add_argument("--group", type=int, default=4)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--response", type=int, default=48)
    p.add_argument("--updates", type=int, default=2, help="the last one is measured (the first pays start-up costs)")
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "roofline.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.group, args.steps, args.response, args.updates = 2, 1, 8, 1
    if args.run_threads not in args.threads:
        args.threads.append(args.run_threads)
    load_before = list(os.getloadavg())
    limits = machine_limits(args.threads, args.quick)
    with tempfile.TemporaryDirectory(prefix="roofline-") as tmp:
        run_dir = run_trainer(args, Path(tmp))
        from seed_trainer.runlog import RunReader

        last = [r for r in RunReader(run_dir).metrics() if r["kind"] == "update"][-1]
        work, notes, shape = phase_work(run_dir, last["step"])
    limit = limits[str(args.run_threads)]
    peak = limit[args.dtype]["peak_gflops"] * 1e9
    balance = limit[args.dtype]["balance_flop_per_byte"]
    phases = {}
    for name, timer in PHASE_TIMERS.items():
        entry = verdict(work[name], last.get(f"time/{timer}", 0.0), peak, balance, limit["bandwidth_gbs"] * 1e9)
        entry["far_from_limit"] = diagnose(entry, limit["bandwidth_gbs"])
        phases[name] = entry
    report = {
        "command": "nice -n 5 .venv/bin/python bench/speed/roofline.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "counted": roofline_model.__doc__.strip(),
        "machine": {
            "cpu": _cpu_model(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "torch": torch.__version__,
            "load_average_before": load_before,
            "load_average_after": list(os.getloadavg()),
        },
        "limits_by_threads": limits,
        "run": {
            "experiment": experiment(args),
            "threads": args.run_threads,
            "dtype": args.dtype,
            "update_measured": last["step"],
            "shape": vars(shape),
            **notes,
        },
        "goal": "every compute-bound phase at ≥ 50 % of the measured matmul peak",
        "phases": phases,
        "time_total_s": round(last.get("time/total", 0.0), 3),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({"limits_by_threads": limits, "phases": phases}, indent=2))
    return 0


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


if __name__ == "__main__":
    sys.exit(main())
