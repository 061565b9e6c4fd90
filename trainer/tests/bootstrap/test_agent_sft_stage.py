"""Agent SFT as a Stage-1 run (`sft.mode: agent`): `seed_trainer sft` writes an `sft` run directory whose model/ acts in
the experiment's prompt format; the recipe comes from the experiment; a stop request leaves a state to continue."""

from __future__ import annotations

import json

import pytest
import yaml
from transformers import AutoModelForCausalLM

from seed_trainer.bootstrap.agent_sft import AgentSftConfig
from seed_trainer.bootstrap.agent_sft_stage import MODEL_DIR, agent_sft_run, recipe
from seed_trainer.cli import main
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.runlog.writer import RunWriter


def _experiment(tmp_path, **sections) -> str:
    data = {
        "name": "make-it-act",
        "model": {"path": "builtin:household-tiny", "device": "cpu", "dtype": "float32"},
        "rollout": {"max_steps": 20, "history": 2, "max_prompt_tokens": 600},
        "sft": {
            "mode": "agent",
            "agent": {"episodes": 3, "steps": 3, "batch_size": 2, "warmup": 1, "dev_states": 4, "eval_every": 2},
        },
        **sections,
    }
    path = tmp_path / "act.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def test_the_recipe_is_the_experiments(tmp_path):
    step = recipe(load_experiment(_experiment(tmp_path)))
    assert (step.layout, step.history, step.max_steps, step.steps, step.save_every) == ("step", 2, 20, 3, 2)
    assert step.base == "builtin:household-tiny" and step.train_invalid is False
    chat = recipe(load_experiment(_experiment(tmp_path, algorithm="grpo", rollout={"prompt_format": "chat"})))
    assert (chat.layout, chat.max_prompt_tokens) == ("packed", 2048)


def test_the_recipes_defaults_are_the_experiments_defaults(tmp_path):
    """An experiment that sets nothing in `sft.agent` trains what `python -m seed_trainer.bootstrap.agent_sft` trains
    by default (its options' defaults are AgentSftConfig's): one source, experiment/config.py's AgentSftSettings."""
    path = tmp_path / "defaults.seed.yaml"
    path.write_text(
        yaml.safe_dump({"name": "defaults", "model": {"path": "builtin:household-tiny"}, "sft": {"mode": "agent"}}),
        encoding="utf-8",
    )
    from_experiment = recipe(load_experiment(str(path)))
    defaults = AgentSftConfig()
    agent_fields = ("episodes", "steps", "batch_size", "lr", "warmup", "weight_decay", "max_length", "freeze_layers")
    agent_fields += ("train_invalid", "analysis_share", "skill_share", "dev_states", "save_every")
    assert {f: getattr(from_experiment, f) for f in agent_fields} == {f: getattr(defaults, f) for f in agent_fields}


@pytest.mark.parametrize("prompt_format", ["step", "chat"])
def test_sft_in_agent_mode_writes_an_sft_run_with_a_model(tmp_path, prompt_format, capsys):
    rollout = {"max_steps": 20, "history": 2, "max_prompt_tokens": 600, "prompt_format": prompt_format}
    path = _experiment(tmp_path, algorithm="grpo", rollout=rollout)
    run_dir = tmp_path / "runs" / "act-1"
    assert main(["sft", path, "--run-dir", str(run_dir)]) == 0
    reader = RunReader(run_dir)
    assert reader.manifest()["stage"] == "sft" and reader.manifest()["status"] == "completed"
    assert check_run(run_dir).ok
    rows = [r for r in reader.metrics() if r["kind"] == "sft"]
    assert [r["step"] for r in rows] == [1, 2, 3] and all(r["loss/sft"] > 0 for r in rows)
    events = reader.events()
    recipe_event = next(e for e in events if e.get("code") == "agent_sft")
    assert recipe_event["recipe"]["layout"] == ("packed" if prompt_format == "chat" else "step")
    accuracy = [e for e in events if e["type"] == "iteration"]
    assert [e["step"] for e in accuracy] == [0, 2, 3] and "dev greedy next-action accuracy" in accuracy[0]["message"]
    assert any(e["type"] == "model" and e["path"] == MODEL_DIR for e in events)
    assert AutoModelForCausalLM.from_pretrained(run_dir / MODEL_DIR) is not None
    report = json.loads((run_dir / MODEL_DIR / "agent_sft.json").read_text())
    assert len(report["losses"]) == 3 and not (run_dir / f"{MODEL_DIR}.partial").exists()


def test_agent_mode_refuses_analyses_and_lora(tmp_path, capsys):
    path = _experiment(tmp_path)
    assert main(["sft", path, "--data", str(tmp_path), "--run-dir", str(tmp_path / "runs" / "x")]) == 2
    assert "with `sft.mode: agent` the data are the environment's demonstrations" in capsys.readouterr().err
    lora = _experiment(tmp_path, model={"path": "builtin:household-tiny", "lora": {"r": 4}})
    assert main(["sft", lora, "--run-dir", str(tmp_path / "runs" / "y")]) == 2
    assert "`agent` fine-tunes all weights" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_a_stop_request_ends_the_run_with_its_state_kept(tmp_path, monkeypatch):
    config = load_experiment(_experiment(tmp_path))
    # the control file appears once the first step's metrics row is written
    monkeypatch.setattr(RunWriter, "stop_requested", lambda self: self.paths.metrics.exists())
    run_dir = agent_sft_run(config, tmp_path / "act.seed.yaml", runs_dir=tmp_path / "runs", run_id="act-2", echo=None)
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "stopped" and check_run(run_dir).ok
    assert [r["step"] for r in reader.metrics() if r["kind"] == "sft"] == [1]
    assert any(e["type"] == "stop_requested" for e in reader.events())
    assert (run_dir / f"{MODEL_DIR}.partial" / "agent_sft_state.pt").exists() and not (run_dir / MODEL_DIR).exists()
