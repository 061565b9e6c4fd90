"""One full Stage-2 update of every algorithm, end to end on the tiny policy, writing a run that validates."""

import json
import math
import os
import signal
import subprocess
import sys

import pytest
import torch
from testenv import counter_experiment as _experiment
from testenv import sigint_as_in_a_terminal, subprocess_env

from seed_trainer.algo.token_quantiles import token_quantiles
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.runlog.quantiles import QUANTILE_LEVELS
from seed_trainer.stages.train import train

GATE_METRICS = ("gate/mean", "gate/frac_gt_half", "delta/mean", "opd/active_ratio", "skill/parse_rate")
PHASE_TIMES = ("time/rollout", "time/logprobs", "time/analysis", "time/teacher", "time/update", "time/total")


@pytest.mark.parametrize("algorithm", ["seed", "grpo", "grpo_opsd", "opsd", "sdar"])
def test_one_update_of_each_algorithm_writes_a_valid_run(tmp_path, tiny_policy_dir, algorithm):
    path = _experiment(tmp_path, tiny_policy_dir, algorithm)
    run_dir = train(load_experiment(path), path, echo=None)
    check = check_run(run_dir)
    assert check.ok, [str(e) for e in check.errors]
    reader = RunReader(run_dir)
    manifest = reader.manifest()
    assert manifest["status"] == "completed" and manifest["algorithm"] == algorithm
    (row,) = reader.metrics()
    assert 0.0 <= row["success/overall"] <= 1.0 and "success/counting" in row
    for name in PHASE_TIMES + ("loss/pg", "loss/kl", "loss/entropy", "episode/length"):
        assert isinstance(row[name], float), name
    index = reader.trajectory_index()
    assert len(index) == 4
    trajectory = reader.trajectory(index[0]["id"])
    tokens = trajectory["steps"][0]["tokens"]
    if algorithm == "grpo":
        assert "gate/mean" not in row and trajectory.get("skill") is None and "gate" not in tokens
    else:
        for name in GATE_METRICS:
            assert name in row, name
        assert trajectory["skill"]["source"] == ("static" if algorithm == "sdar" else "self")
    if algorithm not in ("grpo", "sdar") and row["skill/parse_rate"] == 0.0:
        assert row["gate/mean"] is None and row["opd/active_ratio"] == 0.0  # an untrained analyzer writes no JSON
        # the self-analysis's reply is kept when it is not a skill, so the viewer can show why
        assert trajectory["skill"]["valid"] is False and isinstance(trajectory["skill"]["raw"], str)
    if algorithm == "sdar":
        # the static bank is always a valid skill, so every token is OPD-active
        assert row["opd/active_ratio"] == pytest.approx(1.0) and row["skill/parse_rate"] == 1.0


@pytest.mark.parametrize("stop_by", ["control", "SIGINT"])
def test_cli_train_streams_events_and_stops_on_request(tmp_path, tiny_policy_dir, stop_by):
    """A stop request at a step boundary: the control file (the extension's), or Ctrl-C (SIGINT) while the stage runs,
    which the trainer takes as the same request (README: exit 0, "stopped on request"), not as an interruption."""
    path = _experiment(tmp_path, tiny_policy_dir, "grpo", updates=50, environment={"name": "counter_env:CounterTasks"})
    run_dir = tmp_path / "runs" / "cli-run"
    run_dir.parent.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
        preexec_fn=sigint_as_in_a_terminal,
    )
    events = []
    for line in process.stdout:
        events.append(json.loads(line))
        if events[-1]["type"] == "iteration" and events[-1]["step"] == 1:
            if stop_by == "control":
                (run_dir / "control").write_text(json.dumps({"request": "stop", "time": "2026-01-01T00:00:00Z"}))
            else:
                process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 0, process.stderr.read()
    types = [e["type"] for e in events]
    assert types[0] == "started" and "stop_requested" in types and types[-1] == "finished"
    (request,) = [e for e in events if e["type"] == "stop_requested"]
    assert request["source"] == ("control" if stop_by == "control" else "signal")
    assert request.get("signal") == (None if stop_by == "control" else "SIGINT")
    manifest = RunReader(run_dir).manifest()
    assert manifest["status"] == "stopped" and manifest["progress"]["step"] < 50
    assert any(e["type"] == "checkpoint" and e["step"] == manifest["progress"]["step"] for e in events)
    assert check_run(run_dir).ok


def test_ctrl_c_before_the_run_exists_exits_130_with_nothing_written(tmp_path, tiny_policy_dir):
    """README, exit status 130 (interrupted): Ctrl-C while the command still checks its inputs — here while it imports
    the experiment's environment module, which says so and then blocks — ends it with 130, no traceback and no run
    directory (from the run's start on, SIGINT is a stop request instead: the test above)."""
    (tmp_path / "slow_import_env.py").write_text(
        "import sys, time\nprint('importing', flush=True)\ntime.sleep(300)\n", encoding="utf-8"
    )
    path = _experiment(tmp_path, tiny_policy_dir, "grpo", environment={"name": "slow_import_env:Tasks"})
    env = subprocess_env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    process = subprocess.Popen(
        [sys.executable, "-m", "seed_trainer", "train", str(path), "--run-dir", str(tmp_path / "runs" / "r")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=sigint_as_in_a_terminal,
    )
    assert process.stdout.readline() == "importing\n"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, (process.returncode, err[-2000:])
    assert out == "" and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


def test_cli_rejects_a_bad_experiment_without_creating_a_run(tmp_path):
    bad = tmp_path / "bad.seed.yaml"
    bad.write_text("name: x\nmodel: {path: m}\nalgorithm: sdar\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "seed_trainer", "train", str(bad)], capture_output=True, text=True)
    assert done.returncode == 2 and "sdar.skill_bank" in done.stderr and str(bad) in done.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("algorithm", ["seed", "grpo_opsd", "opsd"])
def test_distillation_from_valid_self_written_skills(tmp_path, tiny_policy_dir, monkeypatch, algorithm):
    """With the analyzer's replies made valid, every token of every step is OPD-active and the gates are recorded."""
    import seed_trainer.analyzers.self_analysis as analysis
    from seed_trainer.algo.json_repair import parse_skill_reply

    valid = parse_skill_reply('{"episode_summary": "s", "episode_skill": "add one, then finish"}')
    # the real greedy generation still runs; its reply, whatever it is, parses as a valid skill
    monkeypatch.setattr(analysis, "parse_skill_reply", lambda reply: valid)
    path = _experiment(tmp_path, tiny_policy_dir, algorithm)
    run_dir = train(load_experiment(path), path, echo=None)
    assert check_run(run_dir).ok
    reader = RunReader(run_dir)
    (row,) = reader.metrics()
    assert row["skill/parse_rate"] == 1.0 and row["opd/active_ratio"] == pytest.approx(1.0)
    assert row["loss/opd"] != 0.0
    beta = 0.0 if algorithm == "grpo_opsd" else 5.0
    if beta == 0.0:  # GRPO+OPSD: g = σ(0) = 0.5 on every token
        assert row["gate/mean"] == 0.5 and row["gate/frac_gt_half"] == 0.0
    else:
        assert 0.0 < row["gate/mean"] < 1.0
    if algorithm == "opsd":  # no policy-gradient term in the loss; the metric still reports the surrogate
        assert row["loss/total"] == pytest.approx(
            -0.001 * row["loss/entropy"] + 0.01 * row["loss/kl"] + 0.01 * row["loss/opd"], abs=1e-5
        )
    step = reader.trajectory(reader.trajectory_index()[0]["id"])["steps"][0]
    tokens = RunReader.tokens(step)
    assert len(tokens.gate) == len(tokens.ids) == len(tokens.text) > 0
    for g, d in zip(tokens.gate, tokens.delta):
        assert g == pytest.approx(1 / (1 + math.exp(-beta * d)), abs=1e-6)
    # the row's quantiles of g and Δ are those of every distilled token the update's trajectories hold
    arrays = [
        RunReader.tokens(s) for entry in reader.trajectory_index() for s in reader.trajectory(entry["id"])["steps"]
    ]
    for family in ("gate", "delta"):
        written = [v for a in arrays if a is not None and a.gate is not None for v in getattr(a, family)]
        want = token_quantiles(torch.tensor(written, dtype=torch.float64), family, QUANTILE_LEVELS)
        assert {key: row[key] for key in want} == pytest.approx(want, abs=1e-6)
