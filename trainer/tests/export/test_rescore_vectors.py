"""The shared rescoring vectors (test/fixtures/rescore/, written by make_rescore_vectors.py) are what the trainer
computes today, the committed ONNX export reproduces them, and export.json carries the run's prompt settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from make_rescore_vectors import ASSET, DEFAULT_OUT, EXPORT_NAME, build_vectors

from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy
from seed_trainer.export.model_export import prompt_settings
from seed_trainer.runlog import SchemaSet

VECTORS = json.loads((DEFAULT_OUT / "vectors.json").read_text(encoding="utf-8"))
EXPORT = DEFAULT_OUT / EXPORT_NAME


def _close(actual: list[float], expected: list[float], tolerance: float) -> float:
    """Within `tolerance` plus float32 rounding of the value's size: a log-prob of −16 computed by another CPU's
    kernels (other vector widths, other summation order) differs by a few units in its last place, ~1e-6 each."""
    assert len(actual) == len(expected)
    worst = max(abs(a - e) - 1e-6 * abs(e) for a, e in zip(actual, expected))
    assert worst <= tolerance, f"log-probs differ by {worst:.2e} beyond float32 rounding (> {tolerance:.0e})"
    return worst


def test_vectors_are_what_the_trainer_computes_now():
    policy = load_checkpoint_policy(ASSET, device="cpu", dtype="float32")
    fresh = build_vectors(policy)
    assert fresh["response_ids"] == VECTORS["response_ids"]
    assert [c["name"] for c in fresh["cases"]] == [c["name"] for c in VECTORS["cases"]]
    for new, old in zip(fresh["cases"], VECTORS["cases"]):
        assert new["prompt"] == old["prompt"] and new["rendered"] == old["rendered"]
        assert new["student"]["ids"] == old["student"]["ids"]
        _close(new["student"]["logp"], old["student"]["logp"], 1e-5)
        for t_new, t_old in zip(new["teachers"], old["teachers"], strict=True):
            assert t_new["teacher_prompt"] == t_old["teacher_prompt"]
            assert t_new["ids"] == t_old["ids"], f"{new['name']}: teacher ids changed — rerun make_rescore_vectors.py"
            _close(t_new["logp"], t_old["logp"], 1e-5)
    # The truncated case really exercises both truncations, and the two skills really move the log-probs.
    truncated = next(c for c in VECTORS["cases"] if c["name"] == "truncated")
    assert len(truncated["student"]["ids"]) == truncated["max_prompt_tokens"]
    assert all(len(t["ids"]) == truncated["max_prompt_tokens"] for t in truncated["teachers"])
    first = VECTORS["cases"][0]["teachers"]
    assert max(abs(a - b) for a, b in zip(first[0]["logp"], first[1]["logp"])) > 0.05


def test_committed_onnx_export_reproduces_the_vectors():
    ort = pytest.importorskip("onnxruntime", reason="the ONNX check needs onnxruntime (trainer[test])")
    import numpy as np

    session = ort.InferenceSession(str(EXPORT / "model.onnx"), providers=["CPUExecutionProvider"])
    response = VECTORS["response_ids"]
    worst = 0.0
    for case in VECTORS["cases"]:
        for prompt, expected in [(case["student"]["ids"], case["student"]["logp"])] + [
            (t["ids"], t["logp"]) for t in case["teachers"]
        ]:
            ids = np.array([prompt + response], dtype=np.int64)
            (logits,) = session.run(["logits"], {"input_ids": ids, "attention_mask": np.ones_like(ids)})
            rows = logits[0, len(prompt) - 1 : len(prompt) - 1 + len(response)].astype(np.float64) / case["temperature"]
            logz = np.log(np.exp(rows - rows.max(-1, keepdims=True)).sum(-1)) + rows.max(-1)
            logp = rows[np.arange(len(response)), response] - logz
            worst = max(worst, _close(logp.tolist(), expected, 1e-4))
    print(f"onnxruntime vs PyTorch: worst log-prob difference {worst:.2e}")


def test_export_json_is_valid_and_carries_the_prompt_settings():
    meta = json.loads((EXPORT / "export.json").read_text(encoding="utf-8"))
    SchemaSet().validate("onnx-export", meta, "export.json")
    assert meta["prompt"]["from"] == "defaults" and meta["run"] is None
    assert meta["vocab_size"] == 4096 and meta["context_length"] == 4096
    assert not Path(meta["source"]).is_absolute()


def test_prompt_settings_come_from_the_run(tmp_path):
    run = tmp_path / "run-a"
    (run / "checkpoints" / "step-000002").mkdir(parents=True)
    config = {
        "algorithm": "grpo_opsd",
        "rollout": {"history": 3, "max_prompt_tokens": 512, "temperature": 0.7},
        "opd": {"beta": 2.0, "lambda": 0.05},
    }
    (run / "run.json").write_text(json.dumps({"id": "run-a", "config": config}), encoding="utf-8")
    settings, source = prompt_settings(run / "checkpoints" / "step-000002")
    assert source == {"id": "run-a", "checkpoint": "step-000002"}
    assert (settings["from"], settings["history"], settings["max_prompt_tokens"], settings["temperature"]) == (
        "run",
        3,
        512,
        0.7,
    )
    assert settings["beta"] == 0.0  # GRPO+OPSD: the ungated baseline, g = 0.5
    config["algorithm"] = "sdar"
    (run / "run.json").write_text(json.dumps({"id": "run-a", "config": config}), encoding="utf-8")
    settings, _ = prompt_settings(run / "checkpoints" / "step-000002")
    assert settings["skill"]["insertion"] == "prefix" and settings["beta"] == 2.0
