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
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

from seed_trainer.runlog import RunReader, decode_float32  # noqa: E402 (after the sys.path line above)

DEFAULT_MODEL = REPO / "trainer" / "seed_trainer" / "assets" / "household-tiny"
# --env textworld: generated TextWorld cooking games (one ingredient; plain, cook and cut), the tiny policy that
# `python -m seed_trainer.bootstrap --env textworld` makes for them, and its own report and run folders. SDAR and
# GRPO+OPSD are household-only here (no static skill bank for TextWorld; OPSD adds nothing SEED's runs do not show).
TEXTWORLD = {
    "model": REPO / "trainer" / "seed_trainer" / "assets" / "textworld-tiny",
    "algorithms": ["grpo", "seed", "seed_oracle"],
    "out": REPO / "bench" / "results" / "learning-textworld.json",
    "runs": REPO / "bench" / "results" / "runs-textworld",
    "max_steps": 12,
    "eval_tasks": 42,
}
ALGORITHMS = ("grpo", "seed", "sdar", "grpo_opsd", "seed_oracle")
# Not in the benchmark by default: distillation from the oracle's skills alone, without the policy gradient (does the
# distillation term pull toward the teacher by itself?).
DIAGNOSTIC_ALGORITHMS = ("opsd_oracle",)
SELF_ANALYZING = {
    "seed",
    "grpo_opsd",
    "seed_other_task",
    "seed_unrelated",
    "empty",
}  # algorithms whose policy writes its own skills (Stage 1 applies with --stage1)
# Bench names that are settings of a trainer algorithm: SEED with the oracle's skills in the teacher slot (the
# upper bound of what distillation can pull; opd.skill_source: oracle).
VARIANTS = {
    "seed_oracle": ("seed", {"opd": {"skill_source": "oracle"}}),
    "opsd_oracle": ("opsd", {"opd": {"skill_source": "oracle"}}),
    # the controls of "is it the skill?" (docs/research/skill-controls-plan.md): another task's skill, a task-free text,
    # the constant gate (grpo_opsd: g = ½, the proximal pull of `expected`), and GRPO without or against entropy
    "seed_other_task": ("seed", {"opd": {"skill_control": "other_task"}}),
    "seed_unrelated": ("seed", {"opd": {"skill_control": "unrelated"}}),
    "empty": ("grpo_opsd", {}),
    "grpo_ent0": ("grpo", {"rl": {"entropy_coef": 0.0}}),
    "grpo_entneg": ("grpo", {"rl": {"entropy_coef": -0.001}}),
}
# Not in the benchmark by default either: the controls above, run into their own report (--algorithms ...).
CONTROL_ALGORITHMS = ("seed_other_task", "seed_unrelated", "empty", "grpo_ent0", "grpo_entneg")


def _algorithm_seeds(items, flag: str, algorithms: list[str]) -> dict[str, list[int]]:
    """ALG=0-4 / ALG=0,1,2 items of `flag`, by algorithm."""
    chosen: dict[str, list[int]] = {}
    for item in items or ():
        name, _, spec = item.partition("=")
        if name not in algorithms or not spec:
            raise SystemExit(f"{flag} {item!r}: expected ALG=SEEDS for one of {', '.join(algorithms)}")
        seeds: list[int] = []
        for part in spec.split(","):
            lo, _, hi = part.partition("-")
            seeds.extend(range(int(lo), int(hi or lo) + 1))
        chosen[name] = seeds
    return chosen


def seeds_of(args) -> dict[str, list[int]]:
    """Each algorithm's seeds: --seeds, or its --seeds-of ALG=0-4 / ALG=0,1,2."""
    return {a: list(args.seeds) for a in args.algorithms} | _algorithm_seeds(
        args.seeds_of, "--seeds-of", args.algorithms
    )


def runs_to_make(args, previous: dict) -> list[tuple[str, int]]:
    """(algorithm, seed) of the report's runs not completed in `previous`, seed-major (every algorithm of seed 0
    first), or with --only just those of them: a run cut off at the end of a session is lost with its folder, so a
    session makes only what it can finish, and the report keeps every seed."""
    seeds = seeds_of(args)
    only = _algorithm_seeds(args.only, "--only", args.algorithms) if args.only else None
    for algorithm, chosen in (only or {}).items():
        if outside := sorted(set(chosen) - set(seeds[algorithm])):
            raise SystemExit(
                f"--only {algorithm}: seeds {outside} are not the report's ({seeds[algorithm]}); "
                "widen --seeds or --seeds-of"
            )
    return [
        (a, s)
        for s in sorted({s for ss in seeds.values() for s in ss})
        for a in args.algorithms
        if s in seeds[a] and (a, s) not in previous and (only is None or s in only.get(a, ()))
    ]


def needs_stage1(algorithm: str, args) -> bool:
    return args.stage1 and algorithm in SELF_ANALYZING


SPLITS = ("valid_seen", "valid_unseen")  # the held-out report; --splits dev for choosing settings
T_975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
}


# --- experiment files ------------------------------------------------------------------------------------------


def shared_settings(args) -> dict:
    """What every algorithm shares: rollouts, evaluation, optimiser, loss coefficients (paper's λ and β)."""
    return {
        "updates": args.updates,
        "environment": environment(args),
        "rollout": {
            "tasks_per_update": args.tasks_per_update,
            "group_size": args.group_size,
            "max_steps": args.max_steps,
            "history": args.history,
            "max_prompt_tokens": 1024,
            "max_response_tokens": 48,
            "temperature": args.temperature,
            # only when asked for: the reports made before the option compare equal
            **({"engine": args.engine} if args.engine != "hf" else {}),
        },
        "analyzer": {"kind": "oracle", "max_tokens": 192},
        "rl": {
            "lr": args.lr,
            "kl_coef": 0.01,
            "entropy_coef": args.entropy_coef,
            "mini_batch_size": args.mini_batch,
            "micro_batch_size": 16,
        },
        # The estimator is written only when it is not the paper's `sample`, so earlier reports' settings still match
        "opd": {"lambda": args.opd_lambda, "beta": args.opd_beta}
        | ({"estimator": args.opd_estimator} if args.opd_estimator != "sample" else {}),
        # Stage 1 collects at the actor's temperature: the tiny analyzer learns to read only the kind of episode it
        # is shown, and in Stage 2 it reads the rollouts' temperature (the paper's 0.4 suits a pretrained LLM)
        "collect": {
            "tasks_per_type": args.collect_tasks,
            "rollouts_per_task": 4,
            "tasks_per_batch": 12,
            "temperature": args.temperature,
        },
        "sft": {
            "epochs": args.sft_epochs,
            "lr": args.sft_lr,
            "batch_size": 8,
            "micro_batch_size": 8,
            "max_length": 2048,
        },
        "eval": {"tasks": args.eval_tasks, "temperature": 0.4, "every": args.eval_every, "splits": list(args.splits)},
        # --keep-checkpoints K keeps the last K (every --eval-every updates), for final_eval.py --checkpoints
        "checkpoint": {"every": args.eval_every, "keep_last": getattr(args, "keep_checkpoints", 1)},
    }


def model_settings(args) -> dict:
    """Where and in what precision the policy runs: the CPU and the model's own dtype unless --device / --dtype say
    otherwise (a real model on a GPU: --device cuda --dtype bfloat16)."""
    return {"device": args.device, **({"dtype": args.dtype} if args.dtype else {})}


def environment(args) -> dict:
    """The experiment's environment: household (unchanged settings: reports compare them), or TextWorld games made
    with the variants and counts the TextWorld bootstrap used (so the games are the cached ones)."""
    if getattr(args, "env", "household") != "textworld":
        return {"name": "household", "options": {"max_steps": args.max_steps}}
    from seed_trainer.bootstrap.textworld import GAMES, VARIANTS

    return {
        "name": "textworld",
        "options": {"kind": "cooking", "variants": VARIANTS, "games_per_split": GAMES, "max_steps": args.max_steps},
    }


def write_experiment(folder: Path, name: str, algorithm: str, seed: int, model: Path, args) -> Path:
    algorithm, overrides = VARIANTS.get(algorithm, (algorithm, {}))
    data = {
        "name": name,
        "seed": seed,
        "algorithm": algorithm,
        "runs_dir": ".",
        "model": {"path": str(model), **model_settings(args)},
        **shared_settings(args),
    }
    for section, values in overrides.items():
        data[section] = {**data[section], **values}
    if algorithm == "sdar":
        data["sdar"] = {"skill_bank": str(REPO / "examples" / "household-skills")}
    path = folder / f"{name}.seed.yaml"
    # Atomically: two jobs of one seed write the same base-evaluation file while the other may be reading it to
    # compare a finished run's settings, and a half-written file read there failed that job.
    tmp = path.with_name(f".{path.name}.{threading.get_ident()}.tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    tmp.replace(path)
    return path


# --- running stages --------------------------------------------------------------------------------------------


def trainer(args_list: list[str], log: Path, threads: int) -> None:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "TQDM_DISABLE": "1",
        "PYTHONPATH": str(REPO / "trainer"),
    }
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ python -m seed_trainer {' '.join(args_list)}\n")
        out.flush()
        done = subprocess.run(
            [sys.executable, "-m", "seed_trainer", *args_list],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=REPO,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"python -m seed_trainer {' '.join(args_list)} failed ({done.returncode}); see {log}")


def status_of(run_dir: Path) -> str | None:
    try:
        return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["status"]
    except (OSError, ValueError, KeyError):
        return None


def settings_mismatch(experiment: Path, run_dir: Path) -> list[str]:
    """The experiment's settings that an existing run was made with other values of ("rl.lr: 0.0003 ≠ 0.0001"):
    a run is reused or resumed only when it is the run these arguments ask for."""
    try:
        recorded = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["config"]
    except (OSError, ValueError, KeyError):
        return []
    wanted = yaml.safe_load(experiment.read_text(encoding="utf-8"))
    differences: list[str] = []

    def walk(want, have, where: str) -> None:
        if isinstance(want, dict) and isinstance(have, dict):
            for key, value in want.items():
                if key not in ("name", "runs_dir"):  # the file's own name and folder, not a setting of the run
                    walk(value, have.get(key), f"{where}.{key}" if where else key)
        elif want != have:
            differences.append(f"{where}: {have!r} ≠ {want!r}")

    walk(wanted, recorded, "")
    return differences


def ensure_run(command: str, experiment: Path, run_dir: Path, log: Path, threads: int, extra: list[str] = ()) -> Path:
    """Runs a stage into `run_dir` unless it completed before; resumes an interrupted `train` run."""
    status = status_of(run_dir)
    if status is not None and (differences := settings_mismatch(experiment, run_dir)):
        raise SystemExit(
            f"{run_dir} was made with other settings than these arguments ask for "
            f"({'; '.join(differences[:6])}): pass another --runs folder, or remove that run"
        )
    if status == "completed":
        return run_dir
    if (
        command == "train"
        and status in ("running", "stopping", "stopped", "failed")
        and (run_dir / "checkpoints").is_dir()
    ):
        trainer(["resume", str(run_dir)], log, threads)
        return run_dir
    if run_dir.exists():
        shutil.rmtree(run_dir)
    trainer([command, str(experiment), "--run-dir", str(run_dir), *extra], log, threads)
    return run_dir


def run_seed(algorithm: str, seed: int, args, root: Path) -> dict:
    """Stage 1 when needed, the base evaluation and the Stage-2 run of one (algorithm, seed)."""
    folder = root / f"seed-{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{algorithm}.log"
    threads = args.threads
    start_model = Path(args.model).resolve()
    with _folder_lock[str(folder)]:
        record_start_weights(folder, weights_fingerprint(start_model))
    runs: dict[str, str] = {}
    if needs_stage1(algorithm, args):
        stage1 = write_experiment(folder, f"stage1-s{seed}", "seed", seed, start_model, args)
        with _folder_lock[str(folder)]:
            collect = ensure_run("collect", stage1, folder / "stage1-collect", folder / "stage1.log", threads)
            sft = ensure_run(
                "sft", stage1, folder / "stage1-sft", folder / "stage1.log", threads, ["--data", str(collect)]
            )
        start_model = sft / "model"
        runs.update(collect=str(collect), sft=str(sft))
    label = "sft" if needs_stage1(algorithm, args) else "base"
    base_exp = write_experiment(folder, f"{label}-eval-s{seed}", "grpo", seed, start_model, args)
    for split in args.splits:
        with _folder_lock[str(folder)]:
            base = ensure_run(
                "eval",
                base_exp,
                folder / f"{label}-eval-{split}",
                folder / f"{label}-eval.log",
                threads,
                ["--split", split],
            )
        runs[f"start_{split}"] = str(base)
    experiment = write_experiment(folder, f"{algorithm}-s{seed}", algorithm, seed, start_model, args)
    started = time.time()
    train_run = ensure_run("train", experiment, folder / algorithm, log, threads)
    runs["train"] = str(train_run)
    print(f"[bench] {algorithm} seed {seed}: done ({time.time() - started:.0f} s)", flush=True)
    return runs


START_WEIGHTS = "start-weights.txt"


def record_start_weights(folder: Path, fingerprint: str) -> None:
    """Every run in a seed folder starts from one set of weights; the first run writes their fingerprint there.
    The runs' experiment files name only the model's path, so weights retrained in place would otherwise be resumed
    and reported as if the old runs had started from them."""
    path = folder / START_WEIGHTS
    recorded = started_from(folder)
    if recorded is None:
        path.write_text(fingerprint + "\n", encoding="utf-8")
    elif recorded != fingerprint:
        raise SystemExit(
            f"{folder}: its runs started from weights {recorded}, but --model now holds {fingerprint}; "
            "give another --runs folder (or remove this one)"
        )


def started_from(folder: Path) -> str | None:
    """The fingerprint of the weights the runs in `folder` started from, or None where no run recorded it."""
    try:
        return (folder / START_WEIGHTS).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


# One lock per seed folder: the runs that algorithms of a seed share (Stage 1, the start evaluations) are made once.
_folder_lock: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)


# --- reading results -------------------------------------------------------------------------------------------


def eval_success(run_dir: Path, split: str) -> tuple[float, int] | None:
    path = run_dir / "eval" / f"{split}.json"
    if not path.is_file():
        return None
    report = json.loads(path.read_text(encoding="utf-8"))
    return report["overall"]["success"], report["overall"]["n"]


def eval_outcomes(run_dir: Path, split: str) -> dict | None:
    """Each episode's success in a run's last evaluation of `split`, in its task order ("0"/"1" per episode), with a
    fingerprint of that task order: two evaluations with the same fingerprint played the same tasks, so they can be
    compared task by task (`paired_by_task`). Kept in the report, which outlives the run folders."""
    path = run_dir / "eval" / f"{split}.json"
    if not path.is_file():
        return None
    episodes = json.loads(path.read_text(encoding="utf-8")).get("episodes") or []
    if not episodes:
        return None
    order = "\n".join(e["task"]["id"] for e in episodes)
    return {
        "tasks": hashlib.sha256(order.encode()).hexdigest()[:16],
        "success": "".join("1" if e["success"] else "0" for e in episodes),
    }


def curve(eval_rows: list[dict], start: dict[str, tuple[float, int] | None], splits) -> dict[str, list[list[float]]]:
    """Success vs update per split: update 0 from the starting model's eval run, then the train run's eval rows."""
    out = {split: ([[0, start[split][0]]] if start.get(split) else []) for split in splits}
    for row in eval_rows:
        if row.get("split") in out and row.get("success/overall") is not None:
            out[row["split"]].append([row["step"], row["success/overall"]])
    return out


def diagnostics(train_run: Path, rows: list[dict], faithfulness: bool = True) -> dict:
    """Gate statistics, parse rate, Δ quantiles (all response tokens, and the tokens inside <action>…</action>, where
    a skill should change the choice), how faithful the self-written skills are to their task, and sample skills."""
    names = (
        "gate/mean",
        "gate/frac_gt_half",
        "delta/mean",
        "opd/active_ratio",
        "skill/parse_rate",
        "loss/opd",
        "loss/pg",
        "loss/kl",
        "loss/entropy",
        "skill/summary_names_task",
        "skill/names_task_target",
    )
    series = {n: [r.get(n) for r in rows] for n in names}
    summary = {n: _mean([v for v in values if v is not None]) for n, values in series.items()}
    last_third = rows[len(rows) * 2 // 3 :]
    summary["last_third"] = {n: _mean([r.get(n) for r in last_third if r.get(n) is not None]) for n in names}
    reader = RunReader(train_run)
    index = reader.trajectory_index()
    deltas, action_deltas, skills, faithful = [], [], [], []
    last_update = max((row.get("update") or 0 for row in index if row.get("phase") == "train"), default=0)
    for row in index:
        if row.get("phase") != "train":
            continue
        trajectory = reader.trajectory(row)  # the row, not its id: an id is looked up by rereading the index
        skill = trajectory.get("skill")
        if faithfulness and skill and skill.get("valid") and skill.get("source") == "self":
            faithful.append(skill_matches_task(skill.get("text") or "", trajectory["task"]))
        if skill and row.get("update") == last_update and len(skills) < 6:
            skills.append(
                {
                    "task": trajectory["task"].get("description"),
                    "success": trajectory["success"],
                    "valid": skill.get("valid"),
                    "skill": (skill.get("text") or "")[:400],
                    "reason": skill.get("reason"),
                }
            )
        for step in trajectory["steps"]:
            tokens = step.get("tokens") or {}
            if not tokens.get("delta"):
                continue
            values = decode_float32(tokens["delta"])
            deltas.extend(values)
            inside = action_token_mask(tokens.get("text") or [])
            action_deltas.extend(v for v, keep in zip(values, inside) if keep)
    summary["delta_quantiles"] = quantiles(deltas)
    summary["delta_quantiles_action_tokens"] = quantiles(action_deltas)
    summary["delta_positive_share"] = sum(d > 0 for d in deltas) / len(deltas) if deltas else None
    if faithful:
        summary["self_skills_checked"] = len(faithful)
        for key in ("target", "transform"):
            summary[f"self_skills_naming_the_task_{key}"] = sum(f[key] for f in faithful) / len(faithful)
    summary["sample_skills_last_update"] = skills
    return summary


def quantiles(values: list[float]) -> dict | None:
    if not values:
        return None
    ordered = sorted(values)
    return {q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.05, 0.25, 0.5, 0.75, 0.95)}


def action_token_mask(texts: list[str]) -> list[bool]:
    """Which response tokens overlap the text between <action> and </action> (tags split across tokens)."""
    joined = "".join(texts)
    start = joined.find("<action>")
    if start < 0:
        return [False] * len(texts)
    start += len("<action>")
    end = joined.find("</action>", start)
    end = len(joined) if end < 0 else end
    mask, at = [], 0
    for text in texts:
        mask.append(at < end and at + len(text) > start)
        at += len(text)
    return mask


TRANSFORMS = {
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
}


def skill_matches_task(skill: str, task: dict) -> dict:
    """Does a skill name the task's target receptacle, and the transform its type needs (and no other)?"""
    words = set(re.findall(r"[a-z]+", skill.lower()))
    description = (task.get("description") or "").lower().rstrip(".")
    target = description.rsplit(" ", 1)[-1] if " in " in description or " on " in description else None
    needed = TRANSFORMS.get(task.get("type"))
    named = {verb for verb in TRANSFORMS.values() if verb in words}
    return {"target": target is None or target in words, "transform": named == ({needed} if needed else set())}


def _shown(path: Path) -> str:
    """A path as the report shows it: relative to the repository when inside it (reports are committed)."""
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def interval(values: list[float]) -> dict:
    """Mean and 95 % t-interval across seeds."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "lo": None, "hi": None, "n": n}
    half = T_975.get(n - 1, 1.96) * statistics.stdev(values) / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n}


def wilson(successes: float, n: int) -> dict:
    """95 % Wilson interval of a pooled success count (episode-level sampling error only)."""
    if n == 0:
        return {"p": None, "lo": None, "hi": None, "n": 0}
    z, p = 1.96, successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {"p": p, "lo": centre - half, "hi": centre + half, "n": n}


def difference(finals: list[tuple[float, int]], baseline: list[tuple[float, int]]) -> dict:
    """Final success of one algorithm minus the baseline's, each a list of (success, episodes) per seed, with two
    95 % intervals: across seeds (Welch's t, the degrees of freedom rounded down; seed-to-seed variation included;
    None with fewer than two seeds on either side) and over the pooled episodes (Newcombe's interval from the two
    Wilson intervals; episode sampling only, so too narrow when seeds differ)."""
    a, b = [f[0] for f in finals], [f[0] for f in baseline]
    d = sum(a) / len(a) - sum(b) / len(b)
    across = {"d": d, "lo": None, "hi": None, "seeds": [len(a), len(b)]}
    if len(a) >= 2 and len(b) >= 2:
        va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
        if va + vb > 0:
            df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
            half = T_975.get(max(1, math.floor(df)), 1.96) * math.sqrt(va + vb)
            across.update(lo=d - half, hi=d + half)
    wa = wilson(sum(p * n for p, n in finals), sum(n for _, n in finals))
    wb = wilson(sum(p * n for p, n in baseline), sum(n for _, n in baseline))
    dp = wa["p"] - wb["p"]
    pooled = {
        "d": dp,
        "lo": dp - math.hypot(wa["p"] - wa["lo"], wb["hi"] - wb["p"]),
        "hi": dp + math.hypot(wa["hi"] - wa["p"], wb["p"] - wb["lo"]),
        "episodes": [wa["n"], wb["n"]],
    }
    return {"across_seeds": across, "pooled_episodes": pooled}


def paired_difference(finals: dict[int, tuple[float, int]], baseline: dict[int, tuple[float, int]]) -> dict:
    """Final success minus the baseline's over the seeds both completed, each a {seed: (success, episodes)}: the mean
    per-seed difference with a paired 95 % t-interval (None with one common seed). A seed fixes the start checkpoint's
    evaluation and the evaluation tasks for every algorithm, so pairing by seed takes out how hard each seed's task
    set is, which the unpaired Welch interval of `difference` counts as noise."""
    common = sorted(set(finals) & set(baseline))
    stats = (
        interval([finals[s][0] - baseline[s][0] for s in common]) if common else {"mean": None, "lo": None, "hi": None}
    )
    return {"d": stats["mean"], "lo": stats["lo"], "hi": stats["hi"], "seeds": common}


def change_over_start(pairs: list[tuple[tuple[float, int], tuple[float, int]]]) -> dict:
    """Final success minus the start, from (final, start) pairs of one seed each, (success, episodes) both: the mean
    change with a paired 95 % t-interval across seeds (None with one seed), and the pooled finals against the pooled
    starts (Newcombe, as in `difference`, which takes the two as independent samples)."""
    across = interval([final[0] - start[0] for final, start in pairs])
    pooled = difference([final for final, _ in pairs], [start for _, start in pairs])["pooled_episodes"]
    return {
        "across_seeds": {"d": across["mean"], "lo": across["lo"], "hi": across["hi"], "seeds": across["n"]},
        "pooled_episodes": pooled,
    }


def paired_by_task(pairs: list[tuple[dict | None, dict | None]]) -> dict:
    """One evaluation minus another, task by task: each pair is two `eval_outcomes` of one seed (say, final and
    start), used only when both played the same tasks in the same order. The mean per-task difference with a 95 %
    t-interval over all those tasks. Pairing takes out how hard each task is, which the pooled interval counts as
    noise; the interval holds the evaluation's sampling only, not the spread between training seeds (across_seeds
    and paired_seeds have that), so with one seed it says whether that run's change is more than evaluation noise."""
    diffs = [
        int(a) - int(b)
        for x, y in pairs
        if x and y and x["tasks"] == y["tasks"] and len(x["success"]) == len(y["success"])
        for a, b in zip(x["success"], y["success"])
    ]
    if len(diffs) < 2:
        return {"d": None, "lo": None, "hi": None, "episodes": len(diffs)}
    stats = interval(diffs)
    return {"d": stats["mean"], "lo": stats["lo"], "hi": stats["hi"], "episodes": len(diffs)}


def weights_fingerprint(model: Path) -> str:
    """The starting policy's identity, not only its path: a re-bootstrapped policy in the same folder is another
    start, and runs made from the old one must not be kept as if made from it (first 16 hex digits of a SHA-256)."""
    digest = hashlib.sha256()
    for path in sorted(model.glob("*.safetensors")):
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def report_settings(args) -> dict:
    """What a report's runs were made with (the seeds aside): entries of another report are kept only when equal."""
    return {
        **shared_settings(args),
        "model": _shown(Path(args.model)),
        "weights": weights_fingerprint(Path(args.model)),
        "stage1_for": sorted(a for a in args.algorithms if needs_stage1(a, args)),
        "splits": list(args.splits),
        **({"model_settings": model_settings(args)} if model_settings(args) != {"device": "cpu"} else {}),
    }


def previous_entries(path: Path, args) -> dict[tuple[str, int], dict]:
    """The completed runs of an earlier report at `path` made with these settings, by (algorithm, seed)."""
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    settings = dict(earlier.get("settings") or {})
    settings.pop("seeds", None)
    if settings != report_settings(args):
        return {}
    return {
        (algorithm, int(seed)): entry
        for algorithm, per_seed in (earlier.get("algorithms") or {}).items()
        for seed, entry in per_seed.items()
        if entry.get("status") == "completed"
    }


def report(args, root: Path, previous: dict[tuple[str, int], dict] | None = None) -> dict:
    """Per algorithm and seed, from the runs under `root`; a run that is not there but completed in `previous` (the
    committed report) keeps its entry."""
    seeds = seeds_of(args)
    previous = previous or {}
    results: dict = {"settings": {**report_settings(args), "seeds": seeds}, "algorithms": {}, "summary": {}}
    for algorithm in args.algorithms:
        per_seed = {}
        for seed in seeds[algorithm]:
            folder = root / f"seed-{seed}"
            train_run = folder / algorithm
            status = status_of(train_run)
            recorded = started_from(folder)
            if status is not None and recorded not in (None, results["settings"]["weights"]):
                print(
                    f"[bench] {algorithm} seed {seed}: left out, its runs started from weights {recorded}, not "
                    f"{results['settings']['weights']}",
                    flush=True,
                )
                status = None
            if status != "completed" and (algorithm, seed) in previous:
                per_seed[str(seed)] = previous[(algorithm, seed)]
                continue
            if status is None:
                continue
            label = "sft" if needs_stage1(algorithm, args) else "base"
            start = {split: eval_success(folder / f"{label}-eval-{split}", split) for split in args.splits}
            metrics = RunReader(train_run).metrics()
            rows = [r for r in metrics if r.get("kind") == "update"]
            eval_rows = [r for r in metrics if r.get("kind") == "eval"]
            entry = {
                "run": _shown(train_run),
                # an unfinished run is reported (its curve so far) but kept out of the summary's finals
                "status": status,
                "updates_done": max((r["step"] for r in rows), default=0),
                "curve": curve(eval_rows, start, args.splits),
                "final": {split: eval_success(train_run, split) for split in args.splits},
                "start": start,
                "final_outcomes": {split: eval_outcomes(train_run, split) for split in args.splits},
                "start_outcomes": {
                    split: eval_outcomes(folder / f"{label}-eval-{split}", split) for split in args.splits
                },
                "invalid_action_rate_train_last5": _mean([1 - r["episode/valid_action_ratio"] for r in rows[-5:]]),
                "train_success_first10": _mean([r["success/overall"] for r in rows[:10]]),
                "train_success_last10": _mean([r["success/overall"] for r in rows[-10:]]),
                "train_success_last5": _mean([r["success/overall"] for r in rows[-5:]]),
                "admissible_action_ratio_train_first10": _mean(
                    [r.get("episode/admissible_action_ratio") for r in rows[:10]]
                ),
                "admissible_action_ratio_train_last10": _mean(
                    [r.get("episode/admissible_action_ratio") for r in rows[-10:]]
                ),
                "seconds_per_update": _mean([r.get("time/total") for r in rows]),
            }
            last_step = max((r["step"] for r in eval_rows), default=None)
            final_eval = [r for r in eval_rows if r["step"] == last_step]
            entry["invalid_action_rate_eval_final"] = _mean(
                [
                    1 - r["episode/valid_action_ratio"]
                    for r in final_eval
                    if r.get("episode/valid_action_ratio") is not None
                ]
            )
            entry["admissible_action_ratio_eval"] = {
                split: [
                    [r["step"], r["episode/admissible_action_ratio"]]
                    for r in eval_rows
                    if r.get("split") == split and r.get("episode/admissible_action_ratio") is not None
                ]
                for split in args.splits
            }
            if algorithm != "grpo":  # the GRPO controls too: their entropy is what they are compared by
                entry["diagnostics"] = diagnostics(train_run, rows, faithfulness=args.env == "household")
            per_seed[str(seed)] = entry
        results["algorithms"][algorithm] = per_seed
    # summary: final success with intervals, and updates to reach GRPO's final mean
    grpo_final = {}

    def completed_finals_by_seed(algorithm: str, split: str) -> dict[int, tuple[float, int]]:
        return {
            int(seed): e["final"][split]
            for seed, e in results["algorithms"].get(algorithm, {}).items()
            if e["final"][split] and e["status"] == "completed"
        }

    for algorithm, per_seed in results["algorithms"].items():
        summary = {}
        done = [e for e in per_seed.values() if e["status"] == "completed"]  # as the finals: the same runs throughout
        for split in args.splits:
            by_seed = completed_finals_by_seed(algorithm, split)
            finals = list(by_seed.values())
            if not finals:
                continue
            summary[split] = {
                "final_across_seeds": interval([f[0] for f in finals]),
                "final_pooled_episodes": wilson(sum(f[0] * f[1] for f in finals), sum(f[1] for f in finals)),
                "start_mean": _mean([e["start"][split][0] for e in done if e["start"].get(split)]),
            }
            started = [
                (e["final"][split], e["start"][split]) for e in done if e["final"][split] and e["start"].get(split)
            ]
            if started:
                summary[split]["over_start"] = {
                    **change_over_start(started),
                    "paired_tasks": paired_by_task(
                        [(e.get("final_outcomes", {}).get(split), e.get("start_outcomes", {}).get(split)) for e in done]
                    ),
                }
            if algorithm == "grpo":
                grpo_final[split] = summary[split]["final_across_seeds"]["mean"]
            elif grpo_by_seed := completed_finals_by_seed("grpo", split):
                grpo_runs = results["algorithms"]["grpo"]
                summary[split]["against_grpo"] = {
                    **difference(finals, list(grpo_by_seed.values())),
                    "paired_seeds": paired_difference(by_seed, grpo_by_seed),
                    "paired_tasks": paired_by_task(
                        [
                            (
                                per_seed[str(seed)].get("final_outcomes", {}).get(split),
                                grpo_runs[str(seed)].get("final_outcomes", {}).get(split),
                            )
                            for seed in sorted(by_seed)
                            if seed in grpo_by_seed
                        ]
                    ),
                }
        summary["invalid_action_rate_eval_final"] = _mean([e["invalid_action_rate_eval_final"] for e in done])
        results["summary"][algorithm] = summary
    for algorithm, per_seed in results["algorithms"].items():
        for split in args.splits:
            if split not in grpo_final:
                continue
            reached = []
            for entry in per_seed.values():
                hit = next((u for u, s in entry["curve"][split] if u > 0 and s >= grpo_final[split]), None)
                entry.setdefault("updates_to_grpo_final", {})[split] = hit
                if entry["status"] == "completed":  # as the finals: an unfinished run has not had its updates yet
                    reached.append(hit)
            if split in results["summary"].get(algorithm, {}):
                results["summary"][algorithm][split]["updates_to_grpo_final"] = reached
    return results


def _band(entries: list[dict], split: str) -> tuple[list, list, list, list]:
    """Updates, mean success and its 95 % band over the runs' curves: a t-interval across seeds, or where one seed
    has the update, the Wilson interval of that evaluation's episodes."""
    curves = [e["curve"][split] for e in entries]
    updates = sorted({u for c in curves for u, _ in c})
    means, los, his = [], [], []
    for u in updates:
        points = [(s, e) for e, c in zip(entries, curves) for x, s in c if x == u]
        stats = interval([s for s, _ in points])
        if stats["lo"] is None:
            success, entry = points[0]
            episodes = (entry.get("start") or {}).get(split) or entry["final"][split]
            stats = wilson(success * episodes[1], episodes[1]) if episodes else stats
        means.append(stats.get("mean", stats.get("p")))
        los.append(stats["lo"] if stats["lo"] is not None else means[-1])
        his.append(stats["hi"] if stats["hi"] is not None else means[-1])
    return updates, means, los, his


def plot(results: dict, path: Path, splits, env: str = "household") -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "[bench] matplotlib is not installed (pip install -r bench/learning/requirements-learning.txt): no figure",
            flush=True,
        )
        return False
    fig, axes = plt.subplots(1, len(splits), figsize=(5.5 * len(splits), 4.2), sharey=True, squeeze=False)
    axes = axes[0]
    colours = {
        "seed": "#d62728",
        "grpo": "#1f77b4",
        "sdar": "#2ca02c",
        "grpo_opsd": "#9467bd",
        "seed_oracle": "#ff7f0e",
        "opsd_oracle": "#8c564b",
        "seed_other_task": "#e377c2",
        "seed_unrelated": "#7f7f7f",
        "empty": "#bcbd22",
        "grpo_ent0": "#17becf",
        "grpo_entneg": "#393b79",
    }
    for ax, split in zip(axes, splits):
        for algorithm, per_seed in results["algorithms"].items():
            colour = colours.get(algorithm)
            done = [e for e in per_seed.values() if e["curve"][split] and e["status"] == "completed"]
            if done:
                updates, means, los, his = _band(done, split)
                label = f"{algorithm} ({len(done)} seed{'s' if len(done) > 1 else ''})"
                ax.plot(updates, means, label=label, color=colour, marker="o", ms=3)
                ax.fill_between(updates, [max(0, x) for x in los], [min(1, x) for x in his], color=colour, alpha=0.12)
            # an unfinished run: its own curve so far, thin and dashed, kept out of the mean and the band
            for seed, entry in per_seed.items():
                if entry["curve"][split] and entry["status"] != "completed":
                    xs, ys = zip(*entry["curve"][split])
                    ax.plot(
                        xs,
                        ys,
                        color=colour,
                        ls="--",
                        lw=0.9,
                        marker="o",
                        ms=2,
                        label=f"{algorithm} seed {seed} (running, at update {entry['updates_done']})",
                    )
        ax.set_title(f"{split} (plain prompt)")
        ax.set_xlabel("Stage-2 update")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("success rate")
    axes[0].legend(loc="upper left", fontsize=8)
    title = "Household embedded default" if env == "household" else "TextWorld cooking games, tiny policy"
    fig.suptitle(
        f"{title}: held-out success, mean over completed seeds; dashed: a run still in progress\n95 % bands: "
        "t-interval across seeds, or with one seed the Wilson interval of its episodes",
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return True


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
        choices=("sample", "centred", "baseline", "expected"),
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
            f"[bench] {len(jobs)} runs to make or resume; {kept} completed ones kept from {_shown(Path(args.out))}",
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
                _write(results, Path(args.out))
        print(f"[bench] all runs done in {time.time() - started:.0f} s", flush=True)
    results = report(args, root, previous)
    _write(results, Path(args.out))
    plot(results, Path(args.out).with_suffix(".png"), args.splits, args.env)
    print(json.dumps({a: s for a, s in results["summary"].items()}, indent=2))
    return 0


def _write(results: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
