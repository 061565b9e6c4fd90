"""Running the trainer's stages of one (algorithm, seed) into its seed folder, the fingerprint of the weights they
start from, and what an evaluation run measured."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

from seed_bench import REPO
from seed_bench.algorithms import needs_stage1
from seed_bench.experiments import settings_mismatch, write_experiment


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


def weights_fingerprint(model: Path) -> str:
    """The starting policy's identity, not only its path: a re-bootstrapped policy in the same folder is another
    start, and runs made from the old one must not be kept as if made from it (first 16 hex digits of a SHA-256)."""
    digest = hashlib.sha256()
    for path in sorted(model.glob("*.safetensors")):
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]
