"""Learning benchmark on the embedded default: SEED vs GRPO vs SDAR-style static skills vs GRPO+OPSD (β = 0).

Every algorithm starts from the same bootstrapped tiny policy (trainer/seed_trainer/assets/household-tiny, or
--model) and gets the same Stage-2 update budget, rollout settings and learning rate; several seeds each. The
bootstrap's own recipe trains the policy to write analyses, which is the part of Stage 1 SEED needs; with --stage1,
SEED and GRPO+OPSD first go through the paper's Stage 1 as well (collect with the oracle analyzer, SFT on the
analyses) and start from that SFT model — on the tiny policy that SFT costs acting success and does not raise the
parse rate (docs/research/stage1-and-demo.md), so it is off by default. Held-out
success is measured by the trainer's periodic evaluation (plain prompt, `eval.tasks` tasks per split, sampled at
`eval.temperature`) on valid_seen and valid_unseen; update 0 is an `eval` run of the starting model.

Writes bench/results/learning.json — per algorithm and seed: success vs update on both splits, final success,
updates needed to reach GRPO's final mean success, invalid-action rate, and the OPD diagnostics (gate statistics,
parse rate, Δ quantiles, sample self-written skills); per algorithm, its final success against GRPO's with 95 %
intervals across seeds, over the seeds both completed (paired: a seed fixes the evaluation tasks), over the pooled
episodes and task by task (`paired_tasks`: evaluation noise only) (`summary.<algorithm>.<split>.against_grpo`, which
`npm run demo` repeats), and its final success against its own start (`over_start`: did it learn at all?) — and
bench/results/learning.png (mean with 95 % bands).
Runs go to bench/results/runs/ (git-ignored); finished runs are reused, so an interrupted benchmark continues where it
stopped. The report is the record that outlives the run folders: a completed run's entry in the existing --out file,
made with the same settings, is kept and not run again, so a benchmark that spans several machines or fresh checkouts
only needs the committed report (`--seeds-of grpo=0-4` gives one algorithm more seeds than --seeds; `--only grpo=2,3`
makes just those of the runs still to make, for a session that can finish only so many). Not part of `npm test`.
Needs matplotlib for the figure (bench/learning/requirements-learning.txt).

    .venv/bin/python bench/learning/learning.py [--updates 16] [--seeds 0 1 2] [--jobs 2 --threads 1] [--stage1]
    .venv/bin/python bench/learning/learning.py --report-only     # rebuild the JSON and the figure from the runs
    .venv/bin/python bench/learning/learning.py --env textworld   # generated TextWorld cooking games, their own tiny policy:
                                                         # bench/results/learning-textworld.json, runs-textworld/
    python bench/learning/learning.py --model AGENT --device cuda --dtype bfloat16 --engine vllm ...
                                                         # a real model on a GPU (docs/trainer.md, "SmolLM2-135M")

It takes about 1.5 hours on 2 CPU cores with the defaults; run it in the background: `nice -n 10 .venv/bin/python bench/learning/learning.py &`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from seed_bench import REPO
from seed_bench.algorithms import (
    ALGORITHMS,
    CONTROL_ALGORITHMS,
    DEFAULT_MODEL,
    DIAGNOSTIC_ALGORITHMS,
    SPLITS,
    TEXTWORLD,
    runs_to_make,
    seeds_of,
)
from seed_bench.plot import plot
from seed_bench.report import previous_entries, report, shown_path, write_report
from seed_bench.runs import run_seed

from seed_trainer.algo.estimator_table import ESTIMATORS


def parser(env: str = "household") -> argparse.ArgumentParser:
    """The arguments; `env` textworld changes the defaults of the model, algorithms, report, runs and episode size."""
    tw = TEXTWORLD if env == "textworld" else {}
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--env",
        choices=("household", "textworld"),
        default="household",
        help="the benchmark's environment (textworld: generated cooking games, its own tiny policy)",
    )
    parser.add_argument("--model", default=str(tw.get("model", DEFAULT_MODEL)), help="the bootstrapped starting policy")
    parser.add_argument(
        "--algorithms",
        nargs="+",
        default=list(tw.get("algorithms", ALGORITHMS)),
        choices=ALGORITHMS + DIAGNOSTIC_ALGORITHMS + CONTROL_ALGORITHMS,
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument(
        "--seeds-of",
        nargs="+",
        metavar="ALG=SEEDS",
        help="seeds of one algorithm instead of --seeds: grpo=0-4 seed=0,1,2,3,4",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="ALG=SEEDS",
        help="make only these of the runs still to make (grpo=2,3 seed=1); the report keeps every seed",
    )
    parser.add_argument("--updates", type=int, default=16)
    parser.add_argument("--eval-every", type=int, default=4)
    parser.add_argument("--eval-tasks", type=int, default=tw.get("eval_tasks", 60))
    parser.add_argument(
        "--keep-checkpoints",
        type=int,
        default=1,
        help="checkpoints kept per run, one every --eval-every updates (5 with 100 updates at 20: every one, for "
        "final_eval.py --checkpoints); the numerics do not change",
    )
    parser.add_argument("--tasks-per-update", type=int, default=4)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--max-steps", type=int, default=tw.get("max_steps", 20))
    parser.add_argument("--history", type=int, default=3)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--device", default="cpu", help="model.device of every run (cuda: a GPU)")
    parser.add_argument(
        "--dtype",
        choices=("float32", "bfloat16", "float16"),
        help="model.dtype of every run (default: the trainer's own; bfloat16: autocast over fp32 master weights)",
    )
    parser.add_argument(
        "--engine",
        choices=("hf", "vllm"),
        default="hf",
        help="rollout.engine (vllm: the interpreter running this script needs vLLM)",
    )
    parser.add_argument("--temperature", type=float, default=1.0, help="the actor's sampling temperature in rollouts")
    parser.add_argument("--entropy-coef", type=float, default=0.001)
    parser.add_argument(
        "--mini-batch",
        type=int,
        default=256,
        help="step-samples per optimizer step (an update of 4 x 8 episodes holds about 480)",
    )
    parser.add_argument("--opd-lambda", type=float, default=0.01)
    parser.add_argument("--opd-beta", type=float, default=5.0)
    parser.add_argument(
        "--opd-estimator",
        choices=ESTIMATORS,
        default="sample",
        help="opd.estimator (docs/trainer.md, 'OPD estimator'); sample is the paper's",
    )
    parser.add_argument(
        "--stage1",
        action="store_true",
        help="SEED and GRPO+OPSD start from a Stage-1 SFT model (collect, oracle analyzer, SFT) instead "
        "of the bootstrap; on the tiny policy this SFT costs acting success (docs/research/stage1-and-demo.md)",
    )
    parser.add_argument("--collect-tasks", type=int, default=16, help="Stage-1 tasks per task type (4 rollouts each)")
    parser.add_argument("--sft-epochs", type=int, default=3)
    parser.add_argument("--sft-lr", type=float, default=3e-4)
    parser.add_argument("--jobs", type=int, default=2, help="runs in parallel (each with --threads torch threads)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--splits",
        nargs="+",
        default=list(SPLITS),
        help="evaluation splits: valid_seen valid_unseen (the report) or dev (choosing settings)",
    )
    parser.add_argument("--runs", default=str(tw.get("runs", REPO / "bench" / "results" / "runs")))
    parser.add_argument("--out", default=str(tw.get("out", REPO / "bench" / "results" / "learning.json")))
    parser.add_argument("--report-only", action="store_true")
    return parser


def main(argv=None) -> int:
    chooser = argparse.ArgumentParser(add_help=False)
    chooser.add_argument("--env", choices=("household", "textworld"), default="household")
    args = parser(chooser.parse_known_args(argv)[0].env).parse_args(argv)
    if args.env == "textworld" and {"sdar", "grpo_opsd"} & set(args.algorithms):
        raise SystemExit(
            "--env textworld: sdar and grpo_opsd run on household only (TextWorld has no static skill bank)"
        )
    root = Path(args.runs)
    root.mkdir(parents=True, exist_ok=True)
    seeds = seeds_of(args)
    previous = previous_entries(Path(args.out), args)
    if not args.report_only:
        jobs = runs_to_make(args, previous)  # runs the report already holds as completed are not run again
        kept = sum(1 for a in args.algorithms for s in seeds[a] if (a, s) in previous)
        print(
            f"[bench] {len(jobs)} runs to make or resume; {kept} completed ones kept from {shown_path(Path(args.out))}",
            flush=True,
        )
        started = time.time()
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for (algorithm, seed), future in zip(jobs, [pool.submit(run_seed, a, s, args, root) for a, s in jobs]):
                try:
                    future.result()
                except (Exception, SystemExit) as exc:
                    print(f"[bench] {algorithm} seed {seed} failed: {exc}", flush=True)
                results = report(args, root, previous)
                write_report(results, Path(args.out))
        print(f"[bench] all runs done in {time.time() - started:.0f} s", flush=True)
    results = report(args, root, previous)
    write_report(results, Path(args.out))
    plot(results, Path(args.out).with_suffix(".png"), args.splits, args.env)
    print(json.dumps({a: s for a, s in results["summary"].items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
