"""The heavy real-model paths on SmolLM2-135M-Instruct, a suite of its own (`npm run test:smollm2`; the default run
skips it with the reason): a full fine-tune (fp32 masters under bf16 autocast) whose checkpoint keeps the tied
embeddings and whose resume repeats the uninterrupted run's second update exactly; Stage-1 collection and SFT steps
with LoRA; and the what-if paths, the trainer's rescoring of a recorded trajectory and the ONNX export of a
checkpoint, against PyTorch."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from smollm2_support import HEAVY_MARK, PATH

from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy, read_state
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.export.model_export import export
from seed_trainer.export.rescore import rescore_run_trajectory
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.runlog.tokens import decode_float32
from seed_trainer.runlog.writer import RunWriter
from seed_trainer.stages.collect import collect
from seed_trainer.stages.sft import sft
from seed_trainer.stages.train import resume, train

pytestmark = pytest.mark.smollm2_heavy
assert HEAVY_MARK == "smollm2_heavy"


def _write(tmp_path: Path, name: str, **data) -> Path:
    path = tmp_path / f"{name}.seed.yaml"
    path.write_text(yaml.safe_dump({"name": name, **data}), encoding="utf-8")
    return path


def _stage2(tmp_path: Path, *, lora: bool, dtype: str, updates: int = 2) -> Path:
    model = {"path": PATH, "device": "cpu", "dtype": dtype, **({"lora": {"r": 8, "alpha": 16}} if lora else {})}
    return _write(
        tmp_path,
        "smollm2-stage2",
        seed=11,
        algorithm="seed",
        updates=updates,
        model=model,
        environment={"name": "household"},
        rollout={
            "tasks_per_update": 1,
            "group_size": 2,
            "max_steps": 2,
            "history": 1,
            "max_prompt_tokens": 768,
            "max_response_tokens": 12,
            "temperature": 1.0,
        },
        opd={"skill_source": "oracle"},
        # a mini-batch smaller than the update's samples, so the shuffle RNG matters to the resume
        rl={"mini_batch_size": 3, "micro_batch_size": 2, "lr": 1e-5},
        checkpoint={"every": 1, "keep_last": 2},
    )


def _numbers(run_dir: Path) -> dict[int, dict]:
    return {
        row["step"]: {k: v for k, v in row.items() if not k.startswith("time")}
        for row in RunReader(run_dir).metrics()
        if row["kind"] == "update"
    }


def _responses(run_dir: Path, update: int) -> list[list[str]]:
    return [
        [s["response"] for s in t["steps"]] for _, t in RunReader(run_dir).iter_trajectories(f"it-{update:06d}.jsonl")
    ]


def test_full_fine_tune_checkpoint_keeps_the_tie_and_resume_repeats_the_second_update(smollm2, tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    path = _stage2(tmp_path / "a", lora=False, dtype="bfloat16")
    uninterrupted = train(load_experiment(path), path, echo=None)
    path = _stage2(tmp_path / "b", lora=False, dtype="bfloat16")
    real = RunWriter.set_progress

    def stop_after_first(self, step, *args, **kwargs):
        real(self, step, *args, **kwargs)
        if step == 1:
            self.paths.control.write_text("", encoding="utf-8")

    monkeypatch.setattr(RunWriter, "set_progress", stop_after_first)
    run_dir = train(load_experiment(path), path, echo=None)
    monkeypatch.undo()
    checkpoint = run_dir / "checkpoints" / "step-000001"
    state = read_state(checkpoint)
    assert state["adapter"] is False and state["base_model"] == PATH
    # save_pretrained stores the tied output layer once; the checkpoint loads with the tie in place
    from safetensors import safe_open

    with safe_open(str(checkpoint / "model.safetensors"), "pt") as weights:
        assert "lm_head.weight" not in set(weights.keys())
    policy = load_checkpoint_policy(checkpoint, device="cpu", dtype="float32")
    assert policy.model.lm_head.weight is policy.model.model.embed_tokens.weight

    assert resume(run_dir, echo=None) == run_dir
    assert RunReader(run_dir).manifest()["status"] == "completed" and check_run(run_dir).ok
    expected, got = _numbers(uninterrupted), _numbers(run_dir)
    assert sorted(got) == [1, 2] and got[2] == expected[2]
    assert _responses(run_dir, 2) == _responses(uninterrupted, 2)


def test_stage1_collection_and_sft_steps_with_lora(smollm2, tmp_path):
    path = _write(
        tmp_path,
        "smollm2-stage1",
        seed=2,
        model={"path": PATH, "device": "cpu", "dtype": "bfloat16", "lora": {"r": 8, "alpha": 16}},
        environment={"name": "household", "task_types": ["pick_and_place", "look_at_obj_in_light"]},
        rollout={"max_steps": 1, "history": 0, "max_prompt_tokens": 768, "max_response_tokens": 8},
        analyzer={"kind": "oracle"},
        collect={"tasks_per_type": 1, "rollouts_per_task": 2, "tasks_per_batch": 2},
        sft={"epochs": 1, "lr": 1e-4, "batch_size": 2, "micro_batch_size": 1, "max_length": 1536, "val_fraction": 0.0},
    )
    config = load_experiment(path)
    collected = collect(config, path, echo=None)
    skills = [json.loads(line) for line in (collected / "skills.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(skills) == 4 and all(s["valid"] for s in skills)
    out = sft(config, path, data=collected, echo=None)
    reader = RunReader(out)
    assert reader.manifest()["status"] == "completed" and check_run(out).ok
    losses = [row["loss/sft"] for row in reader.metrics() if row["kind"] == "sft" and "loss/sft" in row]
    assert len(losses) == 2 and all(np.isfinite(losses))
    model_dir = out / "model"  # adapters merged: an ordinary checkpoint Stage 2 loads, the tie kept
    policy = load_checkpoint_policy(model_dir, device="cpu", dtype="float32")
    assert policy.model.lm_head.weight is policy.model.model.embed_tokens.weight
    assert policy.tokenizer.pad_token == "<|im_end|>" and "<|im_start|>" in policy.tokenizer.chat_template


@pytest.fixture(scope="module")
def lora_fp32_run(smollm2, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("smollm2-whatif")
    path = _stage2(tmp, lora=True, dtype="float32", updates=2)
    return train(load_experiment(path), path, echo=None)


def test_trainer_rescoring_gives_back_the_recorded_gates(lora_fp32_run):
    reader = RunReader(lora_fp32_run)
    for update, weights in ((1, "model.path"), (2, "checkpoints/step-000001")):
        (row, *_) = [r for r in reader.trajectory_index() if r["update"] == update]
        trajectory = reader.trajectory(row)
        content = rescore_run_trajectory(lora_fp32_run, trajectory["id"], [trajectory["skill"]["text"]])
        (result,) = content["results"]
        assert result["path"] == "trainer"
        if weights != "model.path":
            assert result["export"] == weights
        for mine, step in zip(result["steps"], trajectory["steps"], strict=True):
            for key in ("logp", "teacher_logp", "gate"):
                recorded = decode_float32(step["tokens"][key])
                assert max(abs(a - b) for a, b in zip(mine[key], recorded)) <= 1e-4, (update, key)


def test_onnx_export_of_a_checkpoint_matches_pytorch(lora_fp32_run, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    checkpoint = lora_fp32_run / "checkpoints" / "step-000002"
    out = export(checkpoint, "onnx", tmp_path / "onnx")
    meta = json.loads((out / "export.json").read_text(encoding="utf-8"))
    assert meta["pad_token_id"] == 2 and meta["stop_token_ids"] == [2] and meta["vocab_size"] == 49152
    policy = load_checkpoint_policy(checkpoint, device="cpu", dtype="float32")
    session = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
    prompt = policy.encode_chat("Go to the fridge.", 10_000)
    ids = torch.tensor([[2, 2, *prompt[:10]], prompt[:12]])  # left padding with the pad token, which is also EOS
    mask = torch.tensor([[0, 0] + [1] * 10, [1] * 12])
    with torch.no_grad():
        expected = policy.model(
            input_ids=ids, attention_mask=mask, position_ids=(mask.cumsum(-1) - 1).clamp(min=0)
        ).logits
    got = session.run(["logits"], {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]
    keep = mask.numpy().astype(bool)
    assert float(np.abs(got - expected.numpy())[keep].max()) <= 1e-3
