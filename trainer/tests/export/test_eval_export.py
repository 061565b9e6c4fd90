"""Evaluation (plain prompts, per task type and overall with n; periodic during training) and export (HF, ONNX)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from seed_trainer.algo.skills import SKILL_HEADER
from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy
from seed_trainer.compute.policy import Policy
from seed_trainer.envs import register
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.export.model_export import default_export_dir, export
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.evaluate import evaluate_checkpoint
from seed_trainer.stages.train import train


class TwoTypeCounter:
    """The counter environment with two task types, so per-type success has something to split."""

    def __new__(cls, **_):
        from counter_env import CounterTasks

        source = CounterTasks()
        source.task_types = ("counting", "counting_twice")
        make = source.make

        def typed(spec):
            env = make(spec)
            reset = env.reset

            def reset_typed():
                task, observation = reset()
                kind = "counting_twice" if spec.index % 2 else "counting"
                return task.__class__(task.id, kind, task.description, task.split), observation

            env.reset = reset_typed
            return env

        source.make = typed
        return source


register("two-type-counter", TwoTypeCounter)


def _experiment(tmp_path: Path, model_dir: Path, *, lora: bool = False, **extra) -> Path:
    data = {
        "name": "eval-export",
        "seed": 6,
        "algorithm": "grpo",
        "updates": 2,
        "model": {"path": str(model_dir), **({"lora": {"r": 4, "alpha": 8}} if lora else {})},
        "environment": {"name": "two-type-counter"},
        "rollout": {
            "tasks_per_update": 2,
            "group_size": 2,
            "max_steps": 2,
            "history": 1,
            "max_prompt_tokens": 256,
            "max_response_tokens": 5,
        },
        "rl": {"mini_batch_size": 4, "micro_batch_size": 2, "lr": 1e-3},
        "eval": {"every": 1, "tasks": 2, "episodes_per_task": 2, "splits": ["valid_seen", "valid_unseen"]},
        "checkpoint": {"every": 1, "keep_last": 1},
        **extra,
    }
    path = tmp_path / "eval.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def lora_run(tiny_policy_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lora-run")
    path = _experiment(tmp, tiny_policy_dir, lora=True)
    return train(load_experiment(path), path, echo=None), path


def test_periodic_evaluation_is_its_own_metric_series(lora_run):
    run_dir, _ = lora_run
    reader = RunReader(run_dir)
    assert check_run(run_dir).ok
    evals = [r for r in reader.metrics() if r["kind"] == "eval"]
    assert [(r["step"], r["split"]) for r in evals] == [
        (1, "valid_seen"),
        (1, "valid_unseen"),
        (2, "valid_seen"),
        (2, "valid_unseen"),
    ]
    assert all(0.0 <= r["success/overall"] <= 1.0 and "success/counting" in r for r in evals)
    report = reader.eval("valid_unseen")
    assert (
        report["step"] == 2
        and report["overall"]["n"] == 4
        and sum(t["n"] for t in report["by_task_type"].values()) == 4
    )
    assert set(report["by_task_type"]) == {"counting", "counting_twice"}
    ids = [e["trajectory"] for e in report["episodes"]]
    rows = {row["id"]: row for row in reader.trajectory_index()}
    assert all(rows[i]["phase"] == "eval" and rows[i]["update"] == 2 and rows[i]["skill"] is None for i in ids)
    assert [e["split"] for e in reader.events() if e["type"] == "eval"] == ["valid_seen", "valid_unseen"] * 2


def test_eval_command_reports_per_type_and_overall_success_with_plain_prompts(lora_run, tmp_path, monkeypatch):
    run_dir, path = lora_run
    seen = []
    real = Policy.encode_chat
    monkeypatch.setattr(Policy, "encode_chat", lambda self, text, limit: seen.append(text) or real(self, text, limit))
    config = load_experiment(path)
    eval_dir = evaluate_checkpoint(
        config,
        path,
        split="valid_seen",
        checkpoint=run_dir / "checkpoints" / "step-000002",
        runs_dir=tmp_path / "runs",
        echo=None,
    )
    assert seen and not any(SKILL_HEADER in text for text in seen)  # never a skill at evaluation
    reader = RunReader(eval_dir)
    manifest = reader.manifest()
    assert manifest["stage"] == "eval" and manifest["status"] == "completed"
    parent = manifest["parent"]  # the checkpoint, relative to the eval run directory
    assert (
        parent["run"] == run_dir.name
        and (eval_dir / parent["checkpoint"]).resolve() == (run_dir / "checkpoints" / "step-000002").resolve()
    )
    report = reader.eval("valid_seen")
    assert report["step"] == 2 and report["overall"]["n"] == 4
    by_type = report["by_task_type"]
    assert report["overall"]["success"] == pytest.approx(
        sum(t["success"] * t["n"] for t in by_type.values()) / report["overall"]["n"]
    )
    # the same tasks and seed as the periodic evaluation of update 2 give the same episodes
    assert report["overall"] == RunReader(run_dir).eval("valid_seen")["overall"]
    (row,) = reader.metrics()
    assert row["kind"] == "eval" and row["split"] == "valid_seen" and row["step"] == 2


def _ort_logits(session, ids: torch.Tensor, mask: torch.Tensor) -> np.ndarray:
    return session.run(["logits"], {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]


def test_onnx_export_matches_pytorch_logits(lora_run, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    run_dir, _ = lora_run
    checkpoint = run_dir / "checkpoints" / "step-000002"  # a LoRA checkpoint: exported with the adapters merged
    out = export(checkpoint, "onnx", tmp_path / "onnx")
    for name in (
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
        "chat_template.jinja",
        "config.json",
        "export.json",
    ):
        assert (out / name).exists(), name
    assert "<|im_start|>" in json.loads((out / "tokenizer_config.json").read_text())["chat_template"]
    policy = load_checkpoint_policy(checkpoint, device="cpu", dtype="float32")
    session = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
    worst = 0.0
    generator = torch.Generator().manual_seed(0)
    for batch, length, pad in [(1, 1, 0), (3, 17, 6), (2, 40, 0), (4, 9, 3)]:  # other shapes than the trace's
        ids = torch.randint(3, policy.model.config.vocab_size, (batch, length), generator=generator)
        mask = torch.ones_like(ids)
        if pad:
            ids[0, :pad], mask[0, :pad] = policy.pad_id, 0  # left padding, as the trainer batches prompts
        position_ids = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.no_grad():
            expected = policy.model(input_ids=ids, attention_mask=mask, position_ids=position_ids).logits.numpy()
        got = _ort_logits(session, ids, mask)
        assert got.shape == expected.shape
        keep = mask.numpy().astype(bool)  # padded positions' logits are not used by anyone
        worst = max(worst, float(np.abs(got - expected)[keep].max()))
    assert worst <= 1e-4, worst
    meta = json.loads((out / "export.json").read_text())
    assert meta["inputs"]["input_ids"]["shape"] == ["batch", "sequence"] and meta["pad_token_id"] == policy.pad_id


def test_hf_export_through_the_command_line_merges_adapters(lora_run, tmp_path, capsys):
    run_dir, _ = lora_run
    checkpoint = run_dir / "checkpoints" / "step-000002"
    done = subprocess.run(
        [sys.executable, "-m", "seed_trainer", "export", "--checkpoint", str(checkpoint), "--format", "hf"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = Path(json.loads(done.stdout.strip().splitlines()[-1])["path"])
    assert out == default_export_dir(checkpoint, "hf") == run_dir / "exports" / "step-000002-hf"
    assert (out / "model.safetensors").exists() and not (out / "adapter_config.json").exists()
    exported = Policy.load(
        load_experiment(lora_run[1]).model.model_copy(update={"path": str(out), "lora": None}), with_reference=False
    )
    merged = load_checkpoint_policy(checkpoint)
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        # Both on their own device (auto); compared on the CPU, in fp32.
        exported_logits = exported.model(input_ids=ids.to(exported.device)).logits.float().cpu()
        merged_logits = merged.model(input_ids=ids.to(merged.device)).logits.float().cpu()
    assert torch.allclose(exported_logits, merged_logits, atol=1e-5 if exported.device.type == "cpu" else 2e-2)
    assert check_run(run_dir).ok  # exports/ is outside the contract's files: the run still validates
    # refused before anything loads: through the same cli.main in this process (an interpreter start costs seconds)
    from seed_trainer.cli import main

    assert main(["export", "--checkpoint", str(tmp_path), "--format", "onnx"]) == 2
    assert "not a model directory" in capsys.readouterr().err


def test_the_command_line_has_every_stage():
    from seed_trainer.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # argparse keeps them here
    assert set(commands) == {
        "schema",
        "validate",
        "doctor",
        "collect",
        "sft",
        "train",
        "eval",
        "resume",
        "export",
        "export-verl",
        "rescore",
        "premise",
    }
    args = parser.parse_args(["eval", "x.seed.yaml", "--split", "valid_unseen", "--checkpoint", "c"])
    assert (args.split, args.checkpoint) == ("valid_unseen", "c")
    with pytest.raises(SystemExit):
        parser.parse_args(["export", "--checkpoint", "c", "--format", "tflite"])
