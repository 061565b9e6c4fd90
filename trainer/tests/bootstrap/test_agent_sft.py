"""Agent SFT (seed_trainer.bootstrap.agent_sft): a pretrained model fine-tuned on the household's demonstrations and analyses
through its own chat template, resumable. Run here on the shipped tiny policy (the recipe is the same for SmolLM2)."""

from __future__ import annotations

import json
import math

import pytest
import torch
from safetensors.torch import load_file

import seed_trainer.bootstrap.agent_sft as agent_sft_module
from seed_trainer.bootstrap.agent_sft import AgentSftConfig, agent_sft, batch_order, learning_rate


def _config(**changes) -> AgentSftConfig:
    settings = dict(
        base="builtin:household-tiny",
        episodes=4,
        steps=4,
        batch_size=2,
        save_every=2,
        dtype="float32",
        max_length=512,
        lr=1e-4,
        warmup=1,
    )
    return AgentSftConfig(**{**settings, **changes})


def test_the_schedule_and_the_batches_are_fixed_by_the_settings():
    config = _config(steps=10, warmup=2, lr=1.0, min_lr_ratio=0.1)
    # warmup 0.5, 1.0; then cosine from 1.0 down towards 0.1 over the 8 remaining steps
    assert learning_rate(config, 0) == 0.5 and learning_rate(config, 1) == 1.0 and learning_rate(config, 2) == 1.0
    assert learning_rate(config, 9) == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 7 / 8)))
    batches = batch_order(5, config)
    assert len(batches) == 10 and all(len(b) == 2 for b in batches)
    assert sorted(i for b in batches[:2] for i in b) == sorted(set(i for b in batches[:2] for i in b))  # an epoch first
    assert batches == batch_order(5, config)  # the same order again: what a resumed run relies on


def test_agent_sft_writes_a_model_and_resumes_to_the_same_weights(tmp_path, monkeypatch):
    whole = agent_sft(tmp_path / "whole", _config())
    report = json.loads((whole / "agent_sft.json").read_text())
    assert len(report["losses"]) == 4 and all(loss > 0 for loss in report["losses"])
    assert report["recipe"]["skill_share"] == 0.0 and report["examples"] > 8
    assert not (tmp_path / "whole.partial").exists()

    # The same run stopped right after its step-2 save, then started again: it continues from step 2.
    real_save = agent_sft_module._save_partial

    def save_then_stop(*args, **kwargs):
        real_save(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(agent_sft_module, "_save_partial", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        agent_sft(tmp_path / "resumed", _config())
    assert (tmp_path / "resumed.partial" / agent_sft_module.STATE).exists()
    monkeypatch.setattr(agent_sft_module, "_save_partial", real_save)
    resumed = agent_sft(tmp_path / "resumed", _config())
    assert json.loads((resumed / "agent_sft.json").read_text())["losses"] == report["losses"]
    a, b = load_file(whole / "model.safetensors"), load_file(resumed / "model.safetensors")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    # other settings never continue a partial run made with these
    monkeypatch.setattr(agent_sft_module, "_save_partial", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        agent_sft(tmp_path / "other", _config())
    monkeypatch.setattr(agent_sft_module, "_save_partial", real_save)
    with pytest.raises(SystemExit, match="made with other settings"):
        agent_sft(tmp_path / "other", _config(lr=2e-4))
