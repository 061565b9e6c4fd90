"""bench/learning.py's bookkeeping: a run is reused only with the settings asked for; the Wilson interval."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

BENCH = Path(__file__).resolve().parents[2] / "bench" / "learning.py"


@pytest.fixture(scope="module")
def learning():
    spec = importlib.util.spec_from_file_location("bench_learning", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path: Path, config: dict) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"status": "completed", "config": config}), encoding="utf-8")
    return run


def test_a_run_made_with_another_learning_rate_is_named(learning, tmp_path):
    run = _run(tmp_path, {"name": "grpo-s0", "updates": 60, "rl": {"lr": 3e-4, "kl_coef": 0.01}, "eval": {"splits": ["dev"]}})
    experiment = tmp_path / "grpo-s0.seed.yaml"
    experiment.write_text(yaml.safe_dump({"name": "other", "runs_dir": ".", "updates": 60, "rl": {"lr": 1e-4},
                                          "eval": {"splits": ["dev"]}}), encoding="utf-8")
    assert learning.settings_mismatch(experiment, run) == ["rl.lr: 0.0003 ≠ 0.0001"]
    with pytest.raises(SystemExit, match="rl.lr: 0.0003 ≠ 0.0001"):
        learning.ensure_run("train", experiment, run, tmp_path / "log", threads=1)


def test_the_same_settings_reuse_the_completed_run(learning, tmp_path):
    run = _run(tmp_path, {"updates": 60, "rl": {"lr": 1e-4, "kl_coef": 0.01}, "eval": {"splits": ["dev"]}})
    experiment = tmp_path / "e.seed.yaml"
    experiment.write_text(yaml.safe_dump({"updates": 60, "rl": {"lr": 1e-4}, "eval": {"splits": ["dev"]}}), encoding="utf-8")
    assert learning.settings_mismatch(experiment, run) == []
    assert learning.ensure_run("train", experiment, run, tmp_path / "log", threads=1) == run  # reused, nothing run


def test_wilson_interval_by_hand(learning):
    # 30 of 100: centre (0.3 + 1.96²/200) / (1 + 1.96²/100), half-width 1.96·√(0.0021 + 1.96²/40000) / (1 + 1.96²/100)
    w = learning.wilson(30, 100)
    assert w["lo"] == pytest.approx(0.21895, abs=1e-4) and w["hi"] == pytest.approx(0.39586, abs=1e-4)
