"""Cost of one Stage-2 update: SEED vs GRPO on the same batch, and batched vs one-at-a-time generation.

Prints one JSON object:
  seconds_per_update.{seed,grpo}, seed_over_grpo (goal ≤ 1.25), phases.{seed,grpo} (the loop's own time/* metrics),
  batched_over_sequential (generation throughput, tokens/s, of the batched rollout over one environment at a time;
  goal ≥ 8).
Both algorithms start from the same weights and seed, so they sample the same rollouts. Tiny local model on CPU;
the ratios, not the seconds, are the result (this machine is shared and noisy).

    .venv/bin/python bench/speed/stage2_step.py [--updates 2] [--steps 8] [--response-tokens 32]

**Household mode** (`--household`) times the embedded default's Stage-2 update — the committed tiny policy on the
`household` world at the demo's settings (4 tasks × 8, 20 steps, H = 3, 1024-token prompts, 48-token responses,
192-token analyses, mini-batch 256, micro-batch 16) — for this checkout and, with `--baseline REV`, for the trainer
of another git revision (its own committed policy), each in its own worker process, alternating baseline and current
`--repeats` times. It prints seconds per update (wall, and the worker's own CPU seconds, which a shared machine
disturbs less) and per phase of both, and the speed-up baseline/current:

    .venv/bin/python bench/speed/stage2_step.py --household --baseline f4d86f9 [--updates 2] [--repeats 2] [--threads 1]
        [--processes 2] [--policy MODEL_DIR]

`--processes N` also times this checkout under torchrun with N CPU processes (the replicate data parallelism of
trainer/seed_trainer/compute/distributed.py: the same update, its task groups shared out); its CPU seconds are all processes'.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import yaml

REPO = Path(__file__).resolve().parents[2]
if "--worker" in sys.argv:  # a household worker imports the trainer it was given, not this checkout's
    sys.path.insert(0, sys.argv[sys.argv.index("--trainer") + 1])
sys.path.insert(0, str(REPO / "trainer" / "tests" / "support"))  # the tests' counter environment

from counter_env import CounterTasks  # noqa: E402

from seed_trainer.compute.policy import Policy  # noqa: E402
from seed_trainer.experiment.config import ModelConfig  # noqa: E402
from seed_trainer.experiment.loading import load_experiment  # noqa: E402
from seed_trainer.models.tiny import save_tiny_policy  # noqa: E402
from seed_trainer.rl.rollout import play_episodes  # noqa: E402
from seed_trainer.runlog import RunReader  # noqa: E402
from seed_trainer.stages.train import train  # noqa: E402

CORPUS = [
    "Your task is to: set the counter to 3. The counter shows 0. add one. finish. Nothing happens.",
    "<think>The counter shows 2, the target is 3.</think><action>add one</action>",
    '{"episode_summary": "reached the target", "episode_skill": "add one until the target, then finish"}',
] * 30


def experiment(tmp: Path, model: Path, algorithm: str, args) -> Path:
    data = {
        "name": f"bench-{algorithm}",
        "seed": 1,
        "algorithm": algorithm,
        "updates": args.updates,
        "model": {"path": str(model)},
        "environment": {"name": "counter_env:CounterTasks"},
        "rollout": {
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "max_steps": args.steps,
            "history": 2,
            "max_prompt_tokens": 512,
            "max_response_tokens": args.response_tokens,
        },
        # The paper's ratio: analyses may be twice as long as one step's response (1024 vs 512).
        "analyzer": {"max_tokens": 2 * args.response_tokens},
        "rl": {"mini_batch_size": 64, "micro_batch_size": 16},
    }
    path = tmp / f"{algorithm}.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def analyses_always_valid() -> None:
    """A fresh random model never writes valid JSON, which would skip the teacher pass. Mark every analysis valid
    (after the real greedy analysis generation has run) so the teacher pass scores every step, as in a trained run."""
    import seed_trainer.analyzers.self_analysis as analysis
    from seed_trainer.algo.json_repair import parse_skill_reply

    valid = parse_skill_reply('{"episode_summary": "-", "episode_skill": "add one, then finish"}')
    analysis.parse_skill_reply = lambda reply: valid


def time_update(tmp: Path, model: Path, algorithm: str, args) -> tuple[float, dict[str, float]]:
    path = experiment(tmp, model, algorithm, args)
    run_dir = train(load_experiment(path), path, runs_dir=tmp / "runs", echo=None)
    rows = RunReader(run_dir).metrics()
    phases = {
        key.removeprefix("time/"): sum(r[key] for r in rows) / len(rows) for key in rows[0] if key.startswith("time/")
    }
    return phases["total"], phases


def generation_throughput(model: Path, args, batch_size: int) -> float:
    torch.manual_seed(0)
    policy = Policy.load(ModelConfig(path=str(model)))
    source = CounterTasks()
    specs = source.sample("train", args.tasks, seed=0)
    started = time.perf_counter()
    episodes = play_episodes(
        policy,
        source,
        specs,
        group_size=args.group,
        max_steps=args.steps,
        history_length=2,
        max_prompt_tokens=512,
        max_response_tokens=args.response_tokens,
        generation_batch_size=batch_size,
    )
    tokens = sum(len(s.response_ids) for e in episodes for s in e.steps)
    return tokens / (time.perf_counter() - started)


# --- household mode -------------------------------------------------------------------------------------------

HOUSEHOLD = {  # examples/household-demo-stage2.seed.yaml's Stage-2 settings
    "environment": {"name": "household", "options": {"max_steps": 20}},
    "rollout": {
        "tasks_per_update": 4,
        "group_size": 8,
        "max_steps": 20,
        "history": 3,
        "max_prompt_tokens": 1024,
        "max_response_tokens": 48,
        "temperature": 1.0,
    },
    "analyzer": {"max_tokens": 192},
    "rl": {"lr": 3.0e-4, "mini_batch_size": 256, "micro_batch_size": 16},
    "eval": {"every": 0},
}


def household_worker(args) -> None:
    """One timed run with the trainer on sys.path (this checkout's or a baseline's); prints its phase means.

    Under torchrun (`--processes N`) every rank runs this; each writes its CPU seconds to `--cpu-dir`, and rank 0,
    which holds the run directory, sums them after the run and prints the result."""
    import seed_trainer

    model = Path(args.policy) if args.policy else Path(seed_trainer.__file__).parent / "assets" / "household-tiny"
    torch.set_num_threads(args.threads)
    rank = int(os.environ.get("RANK", "0"))
    cpu_dir = Path(args.cpu_dir) if args.cpu_dir else None
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        data = {
            "name": f"household-{args.algorithm}",
            "seed": 0,
            "algorithm": args.algorithm,
            "updates": args.updates,
            "model": {"path": str(model), "device": "cpu"},
            **HOUSEHOLD,
        }
        path = tmp / "household.seed.yaml"
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        cpu = time.process_time()
        run_dir = train(load_experiment(path), path, runs_dir=tmp / "runs", echo=None)
        cpu = time.process_time() - cpu
        if cpu_dir is not None:
            (cpu_dir / f"rank-{rank}.json").write_text(json.dumps(cpu), encoding="utf-8")
        if rank != 0:
            return
        rows = RunReader(run_dir).metrics()
    if cpu_dir is not None:  # the other ranks finish their last update with rank 0 (its collectives wait for them)
        deadline = time.monotonic() + 120
        while len(list(cpu_dir.glob("rank-*.json"))) < args.processes and time.monotonic() < deadline:
            time.sleep(0.2)
        cpu = sum(json.loads(f.read_text(encoding="utf-8")) for f in cpu_dir.glob("rank-*.json"))
    phases = {k.removeprefix("time/"): sum(r[k] for r in rows) / len(rows) for k in rows[0] if k.startswith("time/")}
    steps = sum(r.get("episode/length", 0) for r in rows) / len(rows)
    print(
        json.dumps(
            {
                "phases": phases,
                "cpu_seconds_per_update": cpu / len(rows),
                "episode_length": steps,
                "success": [r["success/overall"] for r in rows],
            }
        )
    )


def _baseline_trainer(revision: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision, "trainer", "schemas"], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "trainer"


def _worker_command(trainer: Path, algorithm: str, processes: int, cpu_dir: Path, args) -> list[str]:
    worker = [
        __file__,
        "--worker",
        "--trainer",
        str(trainer),
        "--algorithm",
        algorithm,
        "--updates",
        str(args.updates),
        "--threads",
        str(args.threads),
        "--processes",
        str(processes),
        "--cpu-dir",
        str(cpu_dir),
    ]
    if args.policy and trainer == REPO / "trainer":  # the baseline keeps its own committed policy
        worker += ["--policy", args.policy]
    if processes == 1:
        return [sys.executable, *worker]
    # the replicate data-parallel Stage 2 of compute/distributed.py: each process rolls out and scores whole task groups (gloo)
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={processes}", *worker]


def household(args) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        # name → (trainer, processes): this checkout in one process, in `--processes` processes, and the baseline
        trainers = {"current": (REPO / "trainer", 1)}
        if args.processes > 1:
            trainers[f"current_{args.processes}_processes"] = (REPO / "trainer", args.processes)
        if args.baseline:
            trainers["baseline"] = (_baseline_trainer(args.baseline, Path(tmp_name)), 1)
        env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "TQDM_DISABLE": "1"}
        runs: dict[str, dict[str, list[dict]]] = {name: {a: [] for a in args.algorithms} for name in trainers}
        for repeat in range(args.repeats):
            for algorithm in args.algorithms:
                for name, (trainer, processes) in trainers.items():  # alternate, so all see the same load
                    cpu_dir = Path(tmp_name) / f"cpu-{name}-{algorithm}-{repeat}"
                    cpu_dir.mkdir()
                    done = subprocess.run(
                        _worker_command(trainer, algorithm, processes, cpu_dir, args),
                        capture_output=True,
                        text=True,
                        env=env,
                        check=False,
                    )
                    if done.returncode != 0:
                        raise SystemExit(f"{name} {algorithm} worker failed:\n{done.stderr[-3000:]}")
                    runs[name][algorithm].append(json.loads(done.stdout.strip().splitlines()[-1]))
    setup = {
        **HOUSEHOLD,
        "updates": args.updates,
        "repeats": args.repeats,
        "threads": args.threads,
        "processes": {name: p for name, (_, p) in trainers.items()},
        "baseline": args.baseline,
        "policy": args.policy and Path(args.policy).name,
        "device": "cpu",
    }
    result = {"benchmark": "stage2_step household", "setup": setup, "seconds_per_update": {}, "phases": {}}
    for name, by_algorithm in runs.items():
        result["seconds_per_update"][name] = {
            a: round(statistics.median(r["phases"]["total"] for r in rs), 2) for a, rs in by_algorithm.items()
        }
        result.setdefault("cpu_seconds_per_update", {})[name] = {
            a: round(statistics.median(r["cpu_seconds_per_update"] for r in rs), 2) for a, rs in by_algorithm.items()
        }
        # the work an update does depends on how long its episodes run (a weaker policy plays more steps)
        result.setdefault("episode_length", {})[name] = {
            a: round(statistics.median(r["episode_length"] for r in rs), 2) for a, rs in by_algorithm.items()
        }
        result["phases"][name] = {
            a: {k: round(statistics.median(r["phases"][k] for r in rs), 2) for k in rs[0]["phases"]}
            for a, rs in by_algorithm.items()
        }
    if args.baseline:
        # CPU seconds (the processes' own, all threads) are the robust figure on a shared machine; wall seconds too.
        for name in trainers:
            if name != "baseline":
                result[f"speedup_baseline_over_{name}"] = {
                    unit: {a: round(result[unit]["baseline"][a] / result[unit][name][a], 2) for a in args.algorithms}
                    for unit in ("cpu_seconds_per_update", "seconds_per_update")
                }
    print(json.dumps(result, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--updates", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--response-tokens", type=int, default=32)
    parser.add_argument("--household", action="store_true", help="time the embedded default's update (see above)")
    parser.add_argument("--baseline", default=None, help="household: a git revision to compare against")
    parser.add_argument("--repeats", type=int, default=1, help="household: alternating runs per algorithm and trainer")
    parser.add_argument("--threads", type=int, default=1, help="household: torch threads per worker")
    parser.add_argument(
        "--policy",
        default=None,
        help="household: this checkout's runs start from this model directory instead of its "
        "committed policy (a candidate re-bootstrap, timed before it is committed)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="household: also time this checkout under torchrun with this many processes",
    )
    parser.add_argument("--cpu-dir", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--algorithms", nargs="+", default=["grpo", "seed"])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--trainer", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--algorithm", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return household_worker(args)
    if args.household:
        return household(args)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        model = save_tiny_policy(
            tmp / "model", CORPUS, vocab_size=512, hidden_size=128, layers=4, heads=4, kv_heads=2, intermediate_size=256
        )
        analyses_always_valid()
        grpo_seconds, grpo_phases = time_update(tmp, model, "grpo", args)
        seed_seconds, seed_phases = time_update(tmp, model, "seed", args)
        sequential = generation_throughput(model, args, batch_size=1)
        batched = generation_throughput(model, args, batch_size=args.tasks * args.group)
    result = {
        "benchmark": "stage2_step",
        "setup": {**vars(args), "model": "Qwen2 128x4 (local)", "device": "cpu", "threads": torch.get_num_threads()},
        "seconds_per_update": {"seed": round(seed_seconds, 3), "grpo": round(grpo_seconds, 3)},
        "seed_over_grpo": round(seed_seconds / grpo_seconds, 3),
        "phases": {
            "seed": {k: round(v, 3) for k, v in seed_phases.items()},
            "grpo": {k: round(v, 3) for k, v in grpo_phases.items()},
        },
        "generation_tokens_per_second": {"batched": round(batched, 1), "sequential": round(sequential, 1)},
        "batched_over_sequential": round(batched / sequential, 2),
        "goals": {"seed_over_grpo": "<= 1.25", "batched_over_sequential": ">= 8"},
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
