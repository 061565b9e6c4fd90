"""A converted built-in model not yet in its cache is converted before the stage's work as a progress step of its
own (phase `convert`), so the extension says "converting" instead of showing update 0 for half a minute (issue 54).
The conversion itself is stood in for: the SmolLM2 suite converts the real weights."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import seed_trainer.models.smollm2 as smollm2
from seed_trainer.models.builtin import CONVERTED_MODELS
from seed_trainer.runlog import RunWriter
from seed_trainer.runlog.environment import RunEnvironment
from seed_trainer.stages import common

NAME = next(iter(CONVERTED_MODELS))


def _writer(tmp_path: Path, model_path: str) -> RunWriter:
    tmp_path.mkdir(parents=True, exist_ok=True)
    experiment = tmp_path / "exp.seed.yaml"
    experiment.write_text("name: t\n", encoding="utf-8")
    return RunWriter.create(
        tmp_path / "runs",
        name="t",
        stage="train",
        algorithm="seed",
        config={"name": "t", "model": {"path": model_path}},
        experiment_path=experiment,
        environment=RunEnvironment(
            pid=os.getpid(), host="test", versions={"trainer": "0"}, device={"kind": "cpu", "name": "cpu", "count": 0}
        ),
    )


def _progress(writer: RunWriter) -> list[dict]:
    lines = writer.paths.events.read_text(encoding="utf-8").splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == "progress"]


@pytest.fixture
def fake_cache(monkeypatch, tmp_path):
    """The model's cache is empty until `ensure_converted` runs, which records its calls."""
    state = {"converted": False, "calls": 0}

    def ensure(model, log=None):
        state["calls"] += 1
        state["converted"] = True
        return tmp_path / "converted"

    monkeypatch.setattr(smollm2, "cache_problem", lambda model, final: None if state["converted"] else "missing")
    monkeypatch.setattr(smollm2, "ensure_converted", ensure)
    return state


def test_the_conversion_is_a_progress_step_of_its_own(tmp_path, fake_cache):
    writer = _writer(tmp_path, f"builtin:{NAME}")
    common.run_stage(writer, lambda stop: None)
    steps = [(e["phase"], e["done"], e["total"]) for e in _progress(writer)]
    assert steps == [("convert", 0, 1), ("convert", 1, 1)]
    assert "converting" in _progress(writer)[0]["message"]
    assert fake_cache["calls"] == 1
    # converted once: the next run says nothing about it
    again = _writer(tmp_path / "again", f"builtin:{NAME}")
    common.run_stage(again, lambda stop: None)
    assert _progress(again) == [] and fake_cache["calls"] == 1


@pytest.mark.parametrize("path", ["builtin:household-tiny", "some/local/model"])
def test_other_models_convert_nothing(tmp_path, fake_cache, path):
    writer = _writer(tmp_path, path)
    common.run_stage(writer, lambda stop: None)
    assert _progress(writer) == [] and fake_cache["calls"] == 0


def test_the_model_title_is_in_the_message(tmp_path, fake_cache):
    writer = _writer(tmp_path, f"builtin:{NAME}")
    common.run_stage(writer, lambda stop: None)
    assert CONVERTED_MODELS[NAME].title in _progress(writer)[0]["message"]
