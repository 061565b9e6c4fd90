"""`rollout.prompt_format: chat` through the stages that read it: a GRPO update and an evaluation on the household with
the shipped tiny policy write valid runs whose steps' prompts are their user turns; what-if rescoring and the ONNX export
for it refuse them, a Hugging Face folder export does not."""

from __future__ import annotations

import pytest
import yaml

from seed_trainer.cli import main
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.export.model_export import export
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.evaluate import evaluate_checkpoint
from seed_trainer.stages.train import train


def test_a_grpo_update_and_an_evaluation_in_the_chat_format(tmp_path, capsys):
    data = {
        "name": "chat",
        "algorithm": "grpo",
        "updates": 1,
        "model": {"path": "builtin:household-tiny", "device": "cpu", "dtype": "float32"},
        "rollout": {
            "prompt_format": "chat",
            "tasks_per_update": 1,
            "group_size": 2,
            "max_steps": 3,
            "max_prompt_tokens": 1024,
            "max_response_tokens": 48,
        },
        "rl": {"mini_batch_size": 8, "micro_batch_size": 4},
        "eval": {"tasks": 2},
        "checkpoint": {"every": 1, "keep_last": 1},
    }
    path = tmp_path / "chat.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    config = load_experiment(path)
    trained = train(config, path, echo=None)
    for run_dir in (trained, evaluate_checkpoint(config, path, split="valid_seen", echo=None)):
        assert RunReader(run_dir).manifest()["status"] == "completed" and check_run(run_dir).ok
        reader = RunReader(run_dir)
        trajectories = [reader.trajectory(row) for row in reader.trajectory_index()]
        steps = [s for t in trajectories for s in t["steps"]]
        assert steps and all(s["prompt"].startswith(("Your current observation", "You are now at step")) for s in steps)
        # what-if rescoring rebuilds a step's prompt as one user turn: it refuses these trajectories
        assert main(["rescore", str(run_dir), "--trajectory", trajectories[0]["id"], "--skill", "look first"]) == 2
        assert "played its episodes as conversations" in capsys.readouterr().err
    checkpoint = trained / "checkpoints" / "step-000001"
    with pytest.raises(ValueError, match="played its episodes as conversations"):
        export(checkpoint, "onnx")
    assert not (trained / "exports" / "step-000001-onnx").exists()
    assert (export(checkpoint, "hf") / "config.json").exists()
