"""The tiny-policy bootstrap recipe (a few steps of it) and one SEED update on the household environment."""

import json

import pytest
import yaml
from transformers import AutoModelForCausalLM, AutoTokenizer

from seed_trainer.algo.actions import parse_action
from seed_trainer.algo.json_repair import parse_skill_reply
from seed_trainer.algo.skills import SKILL_HEADER
from seed_trainer.bootstrap.examples import make_examples
from seed_trainer.bootstrap.recipe import BootstrapConfig
from seed_trainer.bootstrap.tiny_policy import bootstrap, mistake_levels
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.train import train

FEW = dict(
    episodes=40,
    steps=3,
    batch_size=4,
    warmup=2,
    eval_episodes=0,
    hidden_size=32,
    layers=1,
    heads=2,
    kv_heads=1,
    intermediate_size=64,
    vocab_size=600,
)


@pytest.fixture(scope="module")
def bootstrapped(tmp_path_factory):
    return bootstrap(tmp_path_factory.mktemp("household-tiny"), BootstrapConfig(**FEW), echo=None)


def test_examples_cover_plain_skill_bank_and_analysis_prompts():
    examples = make_examples(BootstrapConfig(**{**FEW, "episodes": 60}))
    steps = [e for e in examples if e.kind == "step"]
    analyses = [e for e in examples if e.kind == "analysis"]
    assert analyses and all(parse_skill_reply(e.response).valid for e in analyses)
    assert all(parse_action(e.response).valid for e in steps)
    with_skill = [e for e in steps if SKILL_HEADER in e.prompt]
    assert 0 < len(with_skill) < len(steps)
    assert any("That did nothing." in e.response for e in steps)  # invalid-then-recover demonstrations
    assert make_examples(BootstrapConfig(**{**FEW, "episodes": 60})) == examples  # deterministic


def test_a_few_step_bootstrap_is_an_ordinary_hf_model_dir(bootstrapped):
    tokenizer = AutoTokenizer.from_pretrained(bootstrapped)
    model = AutoModelForCausalLM.from_pretrained(bootstrapped)
    assert model.config.model_type == "qwen3"  # the default recipe's tokenizer ("lines") needs it
    ids = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Your task is to: put a mug in cabinet."}],
        add_generation_prompt=True,
        tokenize=True,
    )
    if hasattr(ids, "keys"):
        ids = ids["input_ids"]
    text = "<think>Look for a mug in cabinet 1.</think><action>go to cabinet 1</action>"
    assert tokenizer.decode(tokenizer.encode(text, add_special_tokens=False)) == text
    assert len(ids) > 5
    report = json.loads((bootstrapped / "bootstrap.json").read_text())
    assert report["config"]["steps"] == 3 and report["examples"]["step"] > 0


def test_a_line_split_bootstrap_keeps_its_tokens_after_save_and_is_shorter(tmp_path):
    """The "lines" recipe (the default): phrases merge into tokens, and the saved directory (qwen3) loads that
    tokenizer as trained; the same text is far fewer tokens than with Qwen2's word split."""
    config = BootstrapConfig(**{**FEW, "vocab_size": 1200})
    assert (config.tokenizer_split, config.max_token_length, config.architecture) == ("lines", 32, "qwen3")
    out = bootstrap(tmp_path / "lines", config, echo=None)
    words_config = BootstrapConfig(
        **{**FEW, "vocab_size": 1200, "tokenizer_split": "words", "max_token_length": 0, "architecture": "qwen2"}
    )
    words = AutoTokenizer.from_pretrained(bootstrap(tmp_path / "words", words_config, echo=None))
    lines = AutoTokenizer.from_pretrained(out)
    assert AutoModelForCausalLM.from_pretrained(out).config.model_type == "qwen3"
    examples = make_examples(BootstrapConfig(**{**FEW, "episodes": 8, "seed": 5}))
    step = next(e for e in examples if e.kind == "step")
    for text in (step.prompt, step.response):
        assert lines.decode(lines.encode(text, add_special_tokens=False)) == text
    assert len(lines.encode(step.prompt)) * 2 < len(words.encode(step.prompt))
    assert max(len(lines.decode([i])) for i in lines.encode(step.prompt, add_special_tokens=False)) <= 32


def test_a_line_split_tokenizer_in_a_qwen2_directory_is_refused(tmp_path):
    """AutoTokenizer would load it with Qwen2's word split: the bootstrap must stop, not train on other tokens."""
    config = BootstrapConfig(**{**FEW, "tokenizer_split": "lines", "architecture": "qwen2"})
    with pytest.raises(ValueError, match="Qwen2's pre-tokenizer"):
        bootstrap(tmp_path / "bad", config, echo=None)
    assert list(tmp_path.iterdir()) == []  # neither the model nor its unfinished copy


@pytest.mark.parametrize("skill_source", ["self", "oracle"])
def test_one_seed_update_on_household_writes_a_valid_run(tmp_path, bootstrapped, skill_source):
    data = {
        "opd": {"skill_source": skill_source},
        "name": "household-one-update",
        "seed": 1,
        "algorithm": "seed",
        "updates": 1,
        "model": {"path": str(bootstrapped), "device": "cpu"},
        "environment": {"name": "household", "options": {"max_steps": 3}},
        "rollout": {
            "tasks_per_update": 2,
            "group_size": 2,
            "max_steps": 3,
            "history": 3,
            "max_prompt_tokens": 1024,
            "max_response_tokens": 8,
        },
        "analyzer": {"max_tokens": 8},
        "rl": {"mini_batch_size": 8, "micro_batch_size": 4, "lr": 1e-4},
    }
    path = tmp_path / "household.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    run_dir = train(load_experiment(path), path, runs_dir=tmp_path / "runs", echo=None)
    check = check_run(run_dir)
    assert check.ok, [str(e) for e in check.errors]
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed"
    rows = [r for r in reader.metrics() if r.get("kind") == "update"]
    assert len(rows) == 1 and any(k.startswith("success/pick") or k.startswith("success/look") for k in rows[0])
    index = reader.trajectory_index()
    assert len(index) == 4 and index[0]["task"]["id"].startswith("household-train-")
    trajectory = reader.trajectory(index[0]["id"])
    assert trajectory["skill"]["source"] == skill_source
    if skill_source == "oracle":  # privileged skills from the ground truth: always valid, every token OPD-active
        assert rows[0]["skill/parse_rate"] == 1.0 and rows[0]["opd/active_ratio"] == 1.0
        assert "gate" in trajectory["steps"][0]["tokens"]


def test_a_saved_tiny_tokenizer_encodes_like_the_trained_one(tmp_path):
    """AutoTokenizer loads a `qwen2` model directory's tokenizer as Qwen2Tokenizer (its own pre-tokenizer and
    normalizer): the tiny tokenizer must already use those, or a policy trained before saving sees other tokens after."""
    from seed_trainer.models.tiny import build_model, build_tokenizer

    texts = ["You arrive at cabinet 12. <think>Open cabinet 3.</think><action>open cabinet 3</action> Cafe\u0301"] * 30
    tokenizer = build_tokenizer(texts, vocab_size=300)
    build_model(tokenizer, hidden_size=16, layers=1, heads=2, kv_heads=1, intermediate_size=32).config.save_pretrained(
        tmp_path
    )
    tokenizer.save_pretrained(tmp_path)
    loaded = AutoTokenizer.from_pretrained(tmp_path)
    for text in texts[0].split("<") + ["go to countertop 1", "x\n\n  y 2026"]:
        assert loaded.encode(text, add_special_tokens=False) == tokenizer.encode(text, add_special_tokens=False), text


def test_the_committed_checkpoint_is_the_default_recipe_and_small():
    """The committed policy is what `python -m seed_trainer.bootstrap` rebuilds with its defaults (docs say so)."""
    from dataclasses import asdict
    from pathlib import Path

    import seed_trainer

    folder = Path(seed_trainer.__file__).parent / "assets" / "household-tiny"
    report = json.loads((folder / "bootstrap.json").read_text())
    recipe = {k: v for k, v in asdict(BootstrapConfig()).items() if k != "threads"}
    recorded = {k: (tuple(v) if isinstance(v, list) else v) for k, v in report["config"].items() if k != "threads"}
    assert recorded == recipe
    assert (folder / "model.safetensors").stat().st_size <= 5 * 1024 * 1024
    # RL needs successes in its groups and room above the start: at least 15 % and at most 75 % on both splits
    # (the 2 600-step policy started at 22 % but had not learned to read its target; docs/research/tiny-policy.md)
    assert all(0.15 <= report["eval"][split]["success"] <= 0.75 for split in ("valid_seen", "valid_unseen"))
    assert AutoModelForCausalLM.from_pretrained(folder).config.model_type == "qwen3"


def test_evaluate_summarises_the_episodes_it_played(bootstrapped):
    from seed_trainer.bootstrap.tiny_policy import evaluate

    summary = evaluate(bootstrapped, "dev", 3, history=3, max_steps=2, seed=1)
    assert summary["split"] == "dev" and summary["skill"] is None and summary["episodes"] == 3
    assert summary["success"] * 3 == pytest.approx(round(summary["success"] * 3))  # a count of wins over 3
    assert 0 < summary["mean_length"] <= 2  # every episode plays at least one step and stops at max_steps
    assert 0.0 <= summary["admissible_ratio"] <= summary["valid_action_ratio"] <= 1.0
    assert set(summary["by_task_type"]) and all(0.0 <= v <= 1.0 for v in summary["by_task_type"].values())


def test_mistake_levels_are_comma_separated_rates():
    import argparse

    assert mistake_levels("0,0.1,0.4") == (0.0, 0.1, 0.4)
    with pytest.raises(argparse.ArgumentTypeError, match="between 0 and 1"):
        mistake_levels("0.1,1.5")
    with pytest.raises(argparse.ArgumentTypeError, match="comma-separated rates"):
        mistake_levels("0.1;0.2")
