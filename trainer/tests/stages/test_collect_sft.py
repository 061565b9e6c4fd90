"""Stage 1: collection with one analysis record per trajectory, the review hook, and SFT on the analyses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from counter_env import CounterTasks

from seed_trainer.compute.policy import Policy
from seed_trainer.envs import register
from seed_trainer.experiment.config import ExperimentConfig, ModelConfig
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.runlog.atomic import write_bytes_atomic
from seed_trainer.stages.collect import collect
from seed_trainer.stages.sft import (
    MODEL_DIR,
    SftExample,
    load_sft_examples,
    sft,
    sft_target,
    split_examples,
    tokenize,
    trained_skill,
    validation_loss,
)
from seed_trainer.stages.train import train


class KnowingCounter(CounterTasks):
    """The counter environment with an oracle analyzer: it knows the target."""

    name = "knowing-counter"

    def oracle_analysis(self, spec, episode):
        outcome = "reached" if episode.won else "missed"
        return json.dumps(
            {
                "episode_summary": f"The agent {outcome} the target {spec.target}.",
                "episode_skill": f"Add one {spec.target} times, then finish.",
            }
        )


register("knowing-counter", lambda **_: KnowingCounter())


def _experiment(tmp_path: Path, model_dir: Path, **sections) -> Path:
    data = {
        "name": "stage-1",
        "seed": 4,
        "model": {"path": str(model_dir)},
        "environment": {"name": "knowing-counter"},
        "rollout": {"max_steps": 2, "history": 1, "max_prompt_tokens": 256, "max_response_tokens": 6},
        "analyzer": {"kind": "oracle", "max_tokens": 8},
        "collect": {"tasks_per_type": 5, "rollouts_per_task": 2, "tasks_per_batch": 3},
        "sft": {"epochs": 3, "batch_size": 4, "micro_batch_size": 2, "lr": 1e-3, "max_length": 2048},
        **sections,
    }
    path = tmp_path / "stage1.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def collected(tiny_policy_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("collect")
    path = _experiment(tmp, tiny_policy_dir)
    return collect(load_experiment(path), path, echo=None)


def test_collection_defaults_are_the_papers():
    config = ExperimentConfig.model_validate({"name": "x", "model": {"path": "m"}})
    assert (config.collect.tasks_per_type, config.collect.rollouts_per_task, config.collect.temperature) == (30, 8, 0.4)
    assert (config.rollout.history, config.rollout.max_steps) == (5, 30)
    assert (
        config.sft.epochs,
        config.sft.lr,
        config.sft.batch_size,
        config.sft.max_length,
        config.sft.val_fraction,
    ) == (3, 5e-6, 8, 8192, 0.1)


def test_collect_writes_m_tasks_times_k0_trajectories_each_with_one_analysis(collected):
    assert check_run(collected).ok
    reader = RunReader(collected)
    manifest = reader.manifest()
    assert manifest["stage"] == "collect" and manifest["status"] == "completed" and manifest["progress"]["step"] == 5
    index, skills = reader.trajectory_index(), reader.skills()
    assert len(index) == len(skills) == 5 * 2  # M = 5 tasks of the one task type, K0 = 2
    assert [row["file"] for row in index] == ["collect-000001.jsonl"] * 6 + ["collect-000002.jsonl"] * 4
    tasks = [row["task"]["id"] for row in index]
    assert len(set(tasks)) == 5 and all(tasks.count(t) == 2 for t in tasks)
    assert [row["group"] for row in index] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]  # the task's place in the collection
    assert [row["sample"] for row in index] == [0, 1] * 5
    for row, skill in zip(index, skills):
        assert skill["trajectory"] == {"id": row["id"], "file": row["file"]} and skill["id"] == row["id"]
        assert skill["valid"] and skill["source"] == "oracle" and skill["review"] == {"state": "pending"}
        assert skill["success"] == row["success"] and skill["length"] == row["length"]
        assert skill["skill"].startswith("Add one ")
    rows = reader.metrics()
    assert [r["kind"] for r in rows] == ["collect", "collect"] and rows[0]["skill/parse_rate"] == 1.0


def test_a_self_analysis_that_fails_verification_stays_in_the_file_marked_invalid(tmp_path, tiny_policy_dir):
    path = _experiment(
        tmp_path,
        tiny_policy_dir,
        analyzer={"kind": "self", "max_tokens": 6},
        collect={"tasks_per_type": 1, "rollouts_per_task": 2},
    )
    run_dir = collect(load_experiment(path), path, echo=None)
    skills = RunReader(run_dir).skills()
    assert len(skills) == 2 and check_run(run_dir).ok
    for skill in skills:  # an untrained tiny policy writes no JSON
        assert (
            skill["source"] == "self" and skill["valid"] is False and skill["reason"] and isinstance(skill["raw"], str)
        )


def test_oracle_analyzer_needs_an_environment_that_has_one(tmp_path, tiny_policy_dir):
    from seed_trainer.analyzers import AnalyzerError

    path = _experiment(tmp_path, tiny_policy_dir, environment={"name": "counter"})
    with pytest.raises(AnalyzerError, match="has no oracle_analysis"):
        collect(load_experiment(path), path, runs_dir=tmp_path / "runs", echo=None)
    (run_dir,) = (tmp_path / "runs").iterdir()
    manifest = RunReader(run_dir).manifest()
    assert manifest["status"] == "failed" and manifest["error"].startswith("analyzer: ")
    assert RunReader(run_dir).trajectory_index() == []  # refused before any rollout


# -- the review hook ------------------------------------------------------------------------------------------------


def _record(valid=True, state="pending", text=None, skill="the analyzer's skill"):
    review = {"state": state, **({"text": text} if text is not None else {})}
    return {"valid": valid, "skill": skill if valid else None, "review": review}


@pytest.mark.parametrize(
    "record, default, reviewed_only",
    [
        (_record(), "the analyzer's skill", None),
        (_record(state="accepted"), "the analyzer's skill", "the analyzer's skill"),
        (_record(state="edited", text="  the reviewer's skill "), "the reviewer's skill", "the reviewer's skill"),
        (_record(state="rejected"), None, None),
        (_record(valid=False), None, None),
        (_record(valid=False, state="accepted"), None, None),  # invalid records are never trained on
    ],
    ids=["pending", "accepted", "edited", "rejected", "invalid", "invalid-accepted"],
)
def test_sft_set_is_valid_and_not_rejected_with_edits_replacing(record, default, reviewed_only):
    assert trained_skill(record, require_review=False) == default
    assert trained_skill(record, require_review=True) == reviewed_only


def _review(run_dir: Path, decisions: dict[int, dict]) -> None:
    """What the extension does: rewrite skills.jsonl whole, only the decided records' `review` changed."""
    path = run_dir / "skills.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    for number, review in decisions.items():
        record = json.loads(lines[number])
        record["review"] = review
        lines[number] = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    write_bytes_atomic(path, b"".join(lines))


def test_review_decisions_shape_the_sft_set(collected, tmp_path):
    import shutil

    run_dir = tmp_path / "reviewed"
    shutil.copytree(collected, run_dir)
    _review(
        run_dir,
        {
            0: {"state": "rejected"},
            1: {"state": "edited", "text": "Count before you finish."},
            2: {"state": "accepted"},
        },
    )
    assert check_run(run_dir).ok
    examples, counts = load_sft_examples(run_dir, require_review=False)
    assert counts == {"records": 10, "invalid": 0, "rejected": 1, "unreviewed": 0, "no_trajectory": 0, "used": 9}
    by_id = {e.id: e for e in examples}
    skills = RunReader(run_dir).skills()
    assert skills[0]["id"] not in by_id
    assert json.loads(by_id[skills[1]["id"]].target) == {
        "episode_summary": skills[1]["summary"],
        "episode_skill": "Count before you finish.",
    }
    reviewed, counts = load_sft_examples(run_dir / "skills.jsonl", require_review=True)
    assert [e.id for e in reviewed] == [skills[1]["id"], skills[2]["id"]] and counts["unreviewed"] == 7
    # the prompt is the analysis prompt of the trajectory, outcome included
    trajectory = RunReader(run_dir).trajectory(skills[2]["id"])
    prompt = by_id[skills[2]["id"]].prompt
    assert trajectory["task"]["description"] in prompt and trajectory["steps"][0]["response"] in prompt
    assert ("Outcome: success" if trajectory["success"] else "Outcome: failure") in prompt


def test_split_is_90_10_and_fixed_by_the_seed():
    examples = [SftExample(str(i), "p", "t") for i in range(20)]
    train_set, val_set = split_examples(examples, 0.1, seed=7)
    assert len(train_set) == 18 and len(val_set) == 2 and not {e.id for e in train_set} & {e.id for e in val_set}
    assert split_examples(examples, 0.1, seed=7) == (train_set, val_set)
    assert split_examples(examples, 0.1, seed=8) != (train_set, val_set)
    assert split_examples(examples[:1], 0.1, seed=7) == (examples[:1], [])  # never an empty training set


def test_the_loss_covers_the_reply_tokens_only(tiny_policy_dir):
    """Our token-mean NLL equals HF's causal-LM loss with every prompt position labelled -100."""
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)), with_reference=False)
    examples = [
        SftExample("a", "Task: set the counter to 3.", sft_target("s", "add one")),
        SftExample("b", "A longer prompt: the counter shows 2 and the target is 3.", sft_target("t", "finish")),
    ]
    items, dropped = tokenize(policy, examples, 512)
    assert dropped == 0 and items[0].response_ids[-1] == policy.tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert policy.tokenizer.decode(items[0].response_ids[:-1]) == examples[0].target
    ours = validation_loss(policy, items, micro_batch_size=2)
    nll, count = 0.0, 0
    for item in items:
        ids = torch.tensor([item.prompt_ids + item.response_ids], device=policy.device)
        labels = ids.clone()
        labels[0, : len(item.prompt_ids)] = -100
        with torch.no_grad(), policy.autocast():
            loss = policy.model(input_ids=ids, labels=labels).loss
        nll, count = nll + float(loss) * len(item.response_ids), count + len(item.response_ids)
    assert ours == pytest.approx(nll / count, rel=1e-5 if policy.compute_dtype == torch.float32 else 2e-2)
    long_prompt, _ = tokenize(policy, [SftExample("c", "word " * 400, sft_target("s", "add one"))], 64)
    assert len(long_prompt[0].prompt_ids) + len(long_prompt[0].response_ids) == 64  # the prompt is cut, not the reply


@pytest.mark.parametrize("lora", [False, True], ids=["full", "lora"])
def test_sft_lowers_validation_loss_and_its_model_loads_as_the_stage_2_policy(
    collected, tmp_path, tiny_policy_dir, lora
):
    model = {"path": str(tiny_policy_dir), **({"lora": {"r": 8, "alpha": 16}} if lora else {})}
    path = _experiment(
        tmp_path,
        tiny_policy_dir,
        model=model,
        sft={
            "epochs": 3,
            "batch_size": 3,
            "lr": 3e-3 if lora else 1e-3,
            "val_fraction": 0.2,
            "max_length": 512,
            "data": str(collected),
        },
    )
    run_dir = sft(load_experiment(path), path, echo=None)
    assert check_run(run_dir).ok
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed" and reader.manifest()["parent"] == {"run": collected.name}
    rows = reader.metrics()
    assert all(r["kind"] == "sft" for r in rows) and rows[0]["step"] == 0
    val = [r["loss/sft_val"] for r in rows if "loss/sft_val" in r]
    assert len(val) == 4 and val[-1] < val[0]  # before training, then after each epoch
    assert [r["step"] for r in rows[1:]] == list(range(1, 10)) and rows[-1]["epoch"] == 3.0
    assert all(r["loss/sft"] > 0 and r["optim/grad_norm"] >= 0 for r in rows[1:])
    assert any(e["type"] == "model" and e["path"] == MODEL_DIR for e in reader.events())

    out = run_dir / MODEL_DIR
    assert not (out / "adapter_config.json").exists()  # LoRA adapters are merged into the saved model
    policy = Policy.load(ModelConfig(path=str(out)), with_reference=False)
    examples, _ = load_sft_examples(collected, require_review=False)
    _, val_set = split_examples(examples, 0.2, seed=4)
    items, _ = tokenize(policy, val_set, 512)
    assert validation_loss(policy, items, 2) == pytest.approx(val[-1], rel=1e-4)  # the saved model is the trained one

    stage2 = _experiment(
        tmp_path,
        out,
        updates=1,
        environment={"name": "counter"},
        rollout={
            "tasks_per_update": 1,
            "group_size": 2,
            "max_steps": 1,
            "history": 1,
            "max_prompt_tokens": 256,
            "max_response_tokens": 4,
        },
        analyzer={"max_tokens": 4},
        rl={"mini_batch_size": 2, "micro_batch_size": 2},
    )
    train_dir = train(load_experiment(stage2), stage2, runs_dir=tmp_path / "stage2", echo=None)
    assert RunReader(train_dir).manifest()["parent"]["run"] == run_dir.name and check_run(train_dir).ok


def test_sft_command_without_data_is_a_clear_error(tmp_path, tiny_policy_dir):
    path = _experiment(tmp_path, tiny_policy_dir)
    done = subprocess.run([sys.executable, "-m", "seed_trainer", "sft", str(path)], capture_output=True, text=True)
    assert done.returncode == 2 and "sft.data" in done.stderr and not (tmp_path / "runs").exists()


def test_collection_records_step_prompts_so_the_review_can_rescore_a_skill(collected):
    """The skill review's What if… rescores a Stage-1 trajectory through the trainer: the step prompts are recorded
    (the ones the policy saw: their token counts match), and the run's model scores the reviewed skill."""
    from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy
    from seed_trainer.export.rescore import rescore_run_trajectory

    reader = RunReader(collected)
    record = reader.skills()[0]
    trajectory = reader.trajectory(record["trajectory"]["id"])
    policy = load_checkpoint_policy(reader.manifest()["config"]["model"]["path"], device="cpu", dtype="float32")
    max_prompt = reader.manifest()["config"]["rollout"]["max_prompt_tokens"]
    for step in trajectory["steps"]:
        assert step["prompt"] and step["observation"] in step["prompt"]
        assert len(policy.encode_chat(step["prompt"], max_prompt)) == step["prompt_tokens"]
    content = rescore_run_trajectory(collected, trajectory["id"], [record["skill"], "Finish at once."], device="cpu")
    first, second = content["results"]
    assert first["export"] == str(Path(reader.manifest()["config"]["model"]["path"]))  # the model that sampled it
    assert first["path"] == "trainer" and len(first["steps"]) == len(trajectory["steps"])
    assert first["steps"][0]["logp"] == second["steps"][0]["logp"]
    assert first["steps"][0]["teacher_logp"] != second["steps"][0]["teacher_logp"], (
        "the skill text is in the teacher prompt"
    )
