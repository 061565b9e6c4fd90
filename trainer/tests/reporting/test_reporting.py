"""`report_to`: a real training run read back with TensorBoard's own event reader and from W&B's offline run files,
and backends that are missing or fail cost one warning each, never the run."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from seed_trainer.experiment.loading import load_experiment
from seed_trainer.reporting.records import MAX_TOKEN_ROWS, TOKEN_COLUMNS
from seed_trainer.reporting.tensorboard_reporter import TensorBoardReporter, inert, markdown_table
from seed_trainer.reporting.wandb_reporter import choose_mode, logged_in
from seed_trainer.runlog import RunReader, RunWriter, TokenArrays, check_run
from seed_trainer.stages.collect import collect
from seed_trainer.stages.evaluate import evaluate_checkpoint
from seed_trainer.stages.sft import sft
from seed_trainer.stages.train import resume, train

tensorboard = pytest.importorskip("tensorboard", reason="the `tensorboard` package is not installed (trainer[test])")
wandb = pytest.importorskip("wandb", reason="the `wandb` package is not installed (trainer[test])")
import wandb_offline  # noqa: E402  (needs wandb)


@pytest.fixture
def wandb_home(tmp_path, monkeypatch):
    """W&B with no credentials and its own folders inside the test's temporary directory."""
    for name in ("WANDB_API_KEY", "WANDB_IDENTITY_TOKEN_FILE", "WANDB_MODE", "WANDB_PROJECT", "WANDB_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("WANDB_CONFIG_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(name, str(folder))
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))


def _experiment(tmp_path, model_dir, **extra):
    data = {
        "name": "tiny-report",
        "seed": 3,
        "algorithm": "seed",
        "updates": 2,
        "model": {"path": str(model_dir)},
        "environment": {"name": "counter"},
        "rollout": {
            "tasks_per_update": 2,
            "group_size": 2,
            "max_steps": 2,
            "history": 1,
            "max_prompt_tokens": 256,
            "max_response_tokens": 6,
        },
        "analyzer": {"max_tokens": 12},
        "rl": {"mini_batch_size": 4, "micro_batch_size": 2, "lr": 1e-4},
        "eval": {"tasks": 2, "every": 1},
        **extra,
    }
    path = tmp_path / "report.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.fixture
def valid_skills(monkeypatch):
    """The analyzer's replies made valid, so the teacher pass runs and the trajectories carry per-token gates."""
    import seed_trainer.analyzers.self_analysis as analysis
    from seed_trainer.algo.json_repair import parse_skill_reply

    valid = parse_skill_reply('{"episode_summary": "s", "episode_skill": "add one, then <b>finish</b>"}')
    monkeypatch.setattr(analysis, "parse_skill_reply", lambda reply: valid)  # after the real greedy generation


def _expected_scalars(rows):
    """(tag, step) → value for every number of metrics.jsonl, as the reporters are meant to send them."""
    out = {}
    for row in rows:
        prefix = f"eval/{row['split']}/" if row["kind"] == "eval" else ""
        for name, value in row.items():
            if "/" in name and value is not None:
                out[(prefix + name, row["step"])] = value
    return out


def _tensorboard(run_dir):
    from tensorboard.backend.event_processing import event_accumulator

    events = event_accumulator.EventAccumulator(
        str(run_dir / "tensorboard"), size_guidance={"scalars": 0, "tensors": 0}
    )
    events.Reload()
    return events


def _tensorboard_scalars(events):
    """(tag, step) → value; a step logged twice would show up as a list of two."""
    out = {}
    for tag in events.Tags()["scalars"]:
        for event in events.Scalars(tag):
            out.setdefault((tag, event.step), []).append(event.value)
    return {key: values[0] if len(values) == 1 else values for key, values in out.items()}


def test_a_training_run_round_trips_through_tensorboard_and_wandb_offline(
    tmp_path, tiny_policy_dir, wandb_home, valid_skills, capfd
):
    path = _experiment(tmp_path, tiny_policy_dir, report_to=["tensorboard", "wandb"])
    run_dir = train(load_experiment(path), path, echo=None)
    assert check_run(run_dir).ok
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed"
    assert not [e for e in reader.events() if e.get("code", "").startswith("report_")]
    assert capfd.readouterr().out == ""  # stdout is the trainer's event stream: W&B must not print there
    rows = reader.metrics()
    assert [r["kind"] for r in rows] == ["update", "eval", "update", "eval"]
    expected = _expected_scalars(rows)
    trajectory = reader.trajectory(reader.trajectory_index()[0]["id"])  # update 1: sampled
    gates = [TokenArrays.decode(step["tokens"]) for step in trajectory["steps"]]
    assert all(t.gate for t in gates)

    # TensorBoard, through its own reader
    events = _tensorboard(run_dir)
    got = _tensorboard_scalars(events)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-6, abs=1e-6), key

    def text(tag):
        return [(e.step, e.tensor_proto.string_val[0].decode("utf-8")) for e in events.Tensors(tag)]

    (config_text,) = text("config/text_summary")
    assert json.loads(config_text[1].replace("\n    ", "\n")) == reader.manifest()["config"]
    outcome = "success" if trajectory["success"] else "failure"
    step, sample = text(f"samples/train/{outcome}/text_summary")[0]
    assert step == 1 and trajectory["task"]["description"].split()[0] in sample
    assert "&lt;b&gt;finish&lt;/b&gt;" in sample and "<b>" not in sample  # the skill, inert
    steps_part, tokens_part = sample.split("Per-token gates")
    assert len([line for line in steps_part.splitlines() if line.startswith("| ")]) == 1 + len(trajectory["steps"])
    token_rows = [line for line in tokens_part.splitlines() if line.startswith("| ")]
    assert token_rows[0] == "| " + " | ".join(TOKEN_COLUMNS) + " |"
    assert len(token_rows) - 1 == min(sum(t.count for t in gates), MAX_TOKEN_ROWS)
    assert f"{gates[0].gate[0]:.4g}".replace(".", "\\.") in token_rows[1]
    assert {t for t, _ in text("eval/valid_seen/by_task_type/text_summary")} == {1, 2}

    # W&B, from the offline run's own files
    folder = wandb_offline.offline_run(run_dir)
    config = wandb_offline.config(folder)
    assert {k: v for k, v in config.items() if not k.startswith("_") and k != "seed_run"} == reader.manifest()["config"]
    assert config["seed_run"]["stage"] == "train"
    history = wandb_offline.history(folder)
    logged = {
        (name, h["step"]): value
        for h in history
        for name, value in h.items()
        if "/" in name and isinstance(value, (int, float))
    }
    assert logged.keys() >= expected.keys()
    for key, value in expected.items():
        assert logged[key] == pytest.approx(value, rel=1e-6, abs=1e-6), key
    tables = wandb_offline.tables(folder)
    (steps_table,) = tables[f"samples/train/{outcome}/steps"]
    assert [row[1] for row in steps_table["data"]] == [s["observation"] for s in trajectory["steps"]]
    (tokens_table,) = tables[f"samples/train/{outcome}/tokens"]
    assert tokens_table["columns"] == TOKEN_COLUMNS
    assert [row[3] for row in tokens_table["data"]] == pytest.approx([g for t in gates for g in t.gate])
    assert len(tables["eval/valid_seen/by_task_type"]) == 2


def test_resume_hides_the_rolled_back_update_in_tensorboard_and_continues_the_same_wandb_run(
    tmp_path, tiny_policy_dir, wandb_home, monkeypatch
):
    path = _experiment(
        tmp_path,
        tiny_policy_dir,
        updates=3,
        report_to=["tensorboard", "wandb"],
        eval={"tasks": 2, "every": 0},
        checkpoint={"every": 1},
    )
    real = RunWriter.trajectory

    def crash_in_update_2(self, record, **kwargs):  # after update 2's metrics row, before its checkpoint
        if record.get("update") == 2:
            raise RuntimeError("simulated crash")
        return real(self, record, **kwargs)

    monkeypatch.setattr(RunWriter, "trajectory", crash_in_update_2)
    with pytest.raises(RuntimeError, match="simulated crash"):
        train(load_experiment(path), path, echo=None)
    monkeypatch.undo()
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert _tensorboard_scalars(_tensorboard(run_dir))[("loss/pg", 2)] is not None  # update 2 reached TensorBoard

    resume(run_dir, echo=None)
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed"
    rows = reader.metrics()
    assert [r["step"] for r in rows] == [1, 2, 3]  # resume rolled update 2 back and ran it again
    got = _tensorboard_scalars(_tensorboard(run_dir))
    expected = _expected_scalars(rows)
    assert got.keys() == expected.keys()  # each step once: the rolled-back update 2 is purged
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-6, abs=1e-6), key
    # one offline folder per process (W&B suffixes `-1` to a name taken within the same second), one W&B run id
    folders = list((run_dir / "wandb").glob("offline-run-*"))
    assert [wandb_offline.run_record(f).run_id for f in folders] == [reader.manifest()["id"]] * 2
    logged = sorted([h["step"] for h in wandb_offline.history(f) if "loss/pg" in h] for f in folders)
    assert logged == [[1, 2], [2, 3]]  # the crashed process got to update 2, the resumed one redid it


def test_every_stage_reports(tmp_path, tiny_policy_dir, monkeypatch):
    """collect, sft and eval runs send their own rows (and collect its samples) to TensorBoard."""
    from test_collect_sft import _experiment as stage1_experiment  # the counter with an oracle analyzer

    path = stage1_experiment(tmp_path, tiny_policy_dir, report_to=["tensorboard"], eval={"tasks": 2})
    config = load_experiment(path)
    collected = collect(config, path, echo=None)
    trained = sft(config, path, data=collected, echo=None)
    evaluated = evaluate_checkpoint(config, path, split="valid_seen", checkpoint=trained / "model", echo=None)
    for run_dir in (collected, trained, evaluated):
        reader = RunReader(run_dir)
        assert reader.manifest()["status"] == "completed"
        events = _tensorboard(run_dir)
        got, rows = _tensorboard_scalars(events), reader.metrics()
        expected = _expected_scalars(rows)
        expected.update({("epoch", r["step"]): r["epoch"] for r in rows if "epoch" in r})
        assert rows and got.keys() == expected.keys(), run_dir.name
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-6, abs=1e-6), key
    assert any(tag.startswith("samples/collect/") for tag in _tensorboard(collected).Tags()["tensors"])
    assert "eval/valid_seen/by_task_type/text_summary" in _tensorboard(evaluated).Tags()["tensors"]


def test_wandb_that_cannot_reach_its_server_logs_offline_instead(tmp_path, tiny_policy_dir, wandb_home, monkeypatch):
    import socket

    with socket.socket() as probe:  # a local port nobody listens on: the connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("WANDB_API_KEY", "a" * 40)  # "logged in", so the trainer tries online first
    monkeypatch.setenv("WANDB_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("WANDB_INIT_TIMEOUT", "3")
    path = _experiment(tmp_path, tiny_policy_dir, updates=1, report_to=["wandb"], eval={"tasks": 2, "every": 0})
    run_dir = train(load_experiment(path), path, echo=None)
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed"
    (offline,) = [e for e in reader.events() if e.get("code") == "report_offline"]
    assert "wandb sync" in offline["message"]
    assert not [e for e in reader.events() if e.get("code") in ("report_unavailable", "report_failed")]
    history = wandb_offline.history(wandb_offline.offline_run(run_dir))
    assert [h["step"] for h in history if "loss/pg" in h] == [1]


def test_a_missing_backend_and_a_failing_one_cost_one_warning_each_and_the_run_completes(
    tmp_path, tiny_policy_dir, monkeypatch
):
    monkeypatch.setitem(sys.modules, "wandb", None)  # `import wandb` raises ImportError, as when it is not installed

    def broken(self, row):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(TensorBoardReporter, "metrics", broken)
    path = _experiment(tmp_path, tiny_policy_dir, report_to=["tensorboard", "wandb"])
    run_dir = train(load_experiment(path), path, echo=None)
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed" and check_run(run_dir).ok
    assert len(reader.metrics()) == 4  # two updates, two evaluations: nothing lost
    warnings = [e for e in reader.events() if e["type"] == "warning"]
    (unavailable,) = [e for e in warnings if e.get("code") == "report_unavailable"]
    assert "wandb" in unavailable["message"] and "pip install wandb" in unavailable["message"]
    (failed,) = [e for e in warnings if e.get("code") == "report_failed"]
    assert "tensorboard" in failed["message"] and "No space left" in failed["message"]
    assert reader.events()[-1]["type"] == "finished"


def test_untrusted_text_renders_as_itself_in_tensorboard():
    from tensorboard import plugin_util

    hostile = "obs <img src=x onerror=alert(1)> | **bold** `code`\n[link](javascript:alert(1))"
    html = plugin_util.markdown_to_safe_html(markdown_table(["text", "n"], [[hostile, 1.5]]))
    assert "<img" not in html and "<strong>" not in html and "<a " not in html and "<code>" not in html
    assert html.count("<td>") == 2  # the pipe did not split the cell
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "javascript:alert(1)" in html
    assert inert(None) == "" and inert(0.123456) == "0\\.1235"


def test_wandb_is_offline_unless_the_user_is_logged_in(tmp_path):
    netrc = tmp_path / "netrc"
    assert not logged_in({"NETRC": str(netrc)}) and choose_mode({"NETRC": str(netrc)}) == "offline"
    netrc.write_text("machine api.wandb.ai\n  login user\n  password secret\n", encoding="utf-8")
    netrc.chmod(0o600)
    assert logged_in({"NETRC": str(netrc)}) and choose_mode({"NETRC": str(netrc)}) is None
    assert choose_mode({"NETRC": str(tmp_path / "none"), "WANDB_API_KEY": "k"}) is None
    assert choose_mode({"NETRC": str(tmp_path / "none"), "WANDB_MODE": "disabled"}) is None  # the user's choice stands
