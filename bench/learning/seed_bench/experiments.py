"""The benchmark's settings as the experiment file of one run, and the settings an existing run was made with otherwise."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import yaml

from seed_bench import REPO
from seed_bench.algorithms import VARIANTS


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
