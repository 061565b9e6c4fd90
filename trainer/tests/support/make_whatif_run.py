"""A real tiny SEED run for the what-if parity test: two Stage-2 updates of the household policy with the oracle's
(always valid) skills, a checkpoint after each, and the ONNX export of checkpoint 1 — the π_old whose teacher pass
wrote update 2's gates. The TypeScript test rescores update 2's trajectories from that export with their recorded
skills and compares with the recorded gates.

    .venv/bin/python trainer/tests/support/make_whatif_run.py OUT_DIR    # prints the run directory and the export
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml
from make_rescore_vectors import ASSET

from seed_trainer.experiment.loading import load_experiment
from seed_trainer.export.model_export import export
from seed_trainer.stages.train import train


def make_run(out: Path, *, onnx: bool = True, estimator: str = "sample", updates: int = 2) -> tuple[Path, Path | None]:
    out.mkdir(parents=True, exist_ok=True)
    experiment = {
        "name": "whatif-tiny",
        "seed": 5,
        "algorithm": "seed",
        "updates": updates,
        "runs_dir": str(out / "runs"),
        "model": {"path": str(ASSET), "device": "cpu", "dtype": "float32"},
        "environment": {"name": "household", "options": {"max_steps": 3}},
        "rollout": {
            "tasks_per_update": 1,
            "group_size": 2,
            "max_steps": 3,
            "history": 2,
            "max_prompt_tokens": 400,
            "max_response_tokens": 24,
            "temperature": 0.9,
        },
        "opd": {"beta": 4.0, "skill_source": "oracle", "estimator": estimator},
        "rl": {"mini_batch_size": 8, "micro_batch_size": 4, "lr": 1e-3},
        "checkpoint": {"every": 1, "keep_last": 2},
    }
    path = out / "whatif-tiny.seed.yaml"
    path.write_text(yaml.safe_dump(experiment), encoding="utf-8")
    run = train(load_experiment(path), path, echo=None)
    if not onnx:  # the trainer's own rescoring needs no export
        return run, None
    checkpoint = sorted((run / "checkpoints").glob("step-*"))[0]
    exported = export(checkpoint, "onnx")
    return run, exported


if __name__ == "__main__":
    run, exported = make_run(Path(sys.argv[1]))
    print(json.dumps({"run": str(run), "export": str(exported)}))
