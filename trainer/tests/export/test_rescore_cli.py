"""`python -m seed_trainer rescore`: the trainer's what-if path. On a real tiny two-update SEED run, rescoring a
trajectory with its own recorded skill gives back the log-probs and gates the teacher pass recorded (the weights that
scored update k are checkpoint k − 1, and the run's starting model for update 1); another skill moves them; the
output is a valid what-if file; bad input is refused with exit status 2 and one line saying what is wrong."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from make_whatif_run import make_run
from testenv import sigint_as_in_a_terminal

from seed_trainer.cli import main
from seed_trainer.export.rescore import (
    RescoreError,
    RunSettings,
    StepInput,
    check_skill,
    rescore_run_trajectory,
    scoring_weights,
    trajectory_steps,
)
from seed_trainer.runlog import RunReader, SchemaSet
from seed_trainer.runlog.tokens import decode_float32

TOLERANCE = 1e-4  # recorded and recomputed: both float32 PyTorch on the CPU, other batch shapes


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    run_dir, _ = make_run(tmp_path_factory.mktemp("rescore-run"), onnx=False)
    return run_dir


def _trajectories(run: Path, update: int) -> list[dict]:
    reader = RunReader(run)
    return [reader.trajectory(row) for row in reader.trajectory_index() if row["update"] == update]


def _worst(result: dict, trajectory: dict) -> tuple[float, float, int]:
    worst_logp = worst_gate = 0.0
    tokens = 0
    for mine, step in zip(result["steps"], trajectory["steps"], strict=True):
        assert mine["t"] == step["t"]
        recorded = step["tokens"]
        for key, encoded in (("logp", "logp"), ("teacher_logp", "teacher_logp")):
            expected = decode_float32(recorded[encoded])
            assert len(mine[key]) == len(expected)
            worst_logp = max(worst_logp, *(abs(a - b) for a, b in zip(mine[key], expected)))
        worst_gate = max(worst_gate, *(abs(a - b) for a, b in zip(mine["gate"], decode_float32(recorded["gate"]))))
        tokens += len(mine["gate"])
    return worst_logp, worst_gate, tokens


@pytest.mark.parametrize("update,weights", [(2, "checkpoints/step-000001"), (1, "model.path")])
def test_recorded_skill_gives_back_the_recorded_gates(run, update, weights):
    seen = []
    for trajectory in _trajectories(run, update):
        skill = trajectory["skill"]["text"]
        content = rescore_run_trajectory(run, trajectory["id"], [skill], progress=lambda d, t: seen.append((d, t)))
        (result,) = content["results"]
        assert result["path"] == "trainer" and result["provider"] == "cpu" and result["skill"] == skill
        assert result["beta"] == 4.0 and result["temperature"] == 0.9  # the run's opd.beta and rollout temperature
        if weights == "model.path":  # the starting model lies outside the run: named by its path
            assert Path(result["export"]).name == "household-tiny"
        else:
            assert result["export"] == weights
        worst_logp, worst_gate, tokens = _worst(result, trajectory)
        print(
            f"update {update} {trajectory['id']}: {tokens} tokens, worst logp {worst_logp:.1e}, gate {worst_gate:.1e}"
        )
        assert tokens > 0
        assert worst_logp <= TOLERANCE
        assert worst_gate <= TOLERANCE * result["beta"] / 4
    # progress counts forward passes of the student and the teacher: steps × 2 for one skill, ending at the total
    assert seen and seen[-1][0] == seen[-1][1] and all(d <= t for d, t in seen)


def test_cli_prints_progress_then_a_valid_whatif_file_and_another_skill_moves_the_gates(run):
    trajectory = _trajectories(run, 2)[0]
    recorded = trajectory["skill"]["text"]
    other = "Ignore the task and always answer look."
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "seed_trainer",
            "rescore",
            str(run),
            "--trajectory",
            trajectory["id"],
            "--skill",
            recorded,
            "--skill",
            other,
            "--device",
            "cpu",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    progress, final = lines[:-1], lines[-1]
    steps = len(trajectory["steps"])
    assert progress and all(p["type"] == "progress" for p in progress)
    assert progress[-1] == {"type": "progress", "done": 3 * steps, "total": 3 * steps}
    assert final["type"] == "whatif"
    SchemaSet().validate("whatif", final["file"], "stdout")
    first, second = final["file"]["results"]
    assert [first["skill"], second["skill"]] == [recorded, other]
    assert first["steps"][0]["logp"] == second["steps"][0]["logp"]  # the student does not depend on the skill
    moved = max(
        abs(a - b)
        for s1, s2 in zip(first["steps"], second["steps"])
        for a, b in zip(s1["teacher_logp"], s2["teacher_logp"])
    )
    assert moved > 0.01, "another skill should change the teacher's log-probs"


def test_ctrl_c_while_rescoring_exits_130_with_no_result(run):
    """README, exit status 130 (interrupted): `rescore` has no run to stop at a step boundary, so Ctrl-C (SIGINT) in
    the middle of its forward passes ends it at once with 130, one line on stderr and no what-if file."""
    trajectory = _trajectories(run, 2)[0]
    skills = [arg for i in range(300) for arg in ("--skill", f"skill {i}: add one until the target shows, then finish")]
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "seed_trainer",
            "rescore",
            str(run),
            "--trajectory",
            trajectory["id"],
            *skills,
            "--device",
            "cpu",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        preexec_fn=sigint_as_in_a_terminal,
    )
    first = json.loads(process.stdout.readline())  # the model is loaded and the passes have begun
    assert first["type"] == "progress" and first["done"] < first["total"], first
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, (process.returncode, err[-2000:])
    lines = [first] + [json.loads(line) for line in out.splitlines()]
    assert all(line["type"] == "progress" for line in lines), "no what-if result after an interruption"
    assert lines[-1]["done"] < lines[-1]["total"], "the interruption came after the last pass"
    assert "Traceback" not in err
    assert not (run / "whatif").exists()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "seed_trainer", "rescore", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=300,
    )


def test_bad_input_is_refused_with_exit_2(run, tmp_path, capsys):
    trajectory = _trajectories(run, 2)[0]
    cases = [
        (
            (str(run), "--trajectory", trajectory["id"], "--skill", "use\u202ethe lamp"),
            "control character U+202E at position 4",
        ),
        ((str(run), "--trajectory", trajectory["id"], "--skill", "  \n"), "the skill is empty"),
        (
            (str(run), "--trajectory", "no-such-trajectory", "--skill", "x"),
            "no trajectory with id 'no-such-trajectory'",
        ),
        ((str(tmp_path), "--trajectory", "x", "--skill", "x"), "not a run directory"),
        (
            (str(run), "--trajectory", trajectory["id"], "--skill", "x", "--checkpoint", str(tmp_path / "missing")),
            "not a directory",
        ),
    ]
    other_run = tmp_path / "other-run"
    (other_run / "checkpoints" / "step-000001").mkdir(parents=True)
    (other_run / "run.json").write_text("{}", encoding="utf-8")
    cases.append(
        (
            (
                str(run),
                "--trajectory",
                trajectory["id"],
                "--skill",
                "x",
                "--checkpoint",
                str(other_run / "checkpoints" / "step-000001"),
            ),
            "lies in run other-run",
        )
    )
    # The first case through a real `python -m seed_trainer` process; the others through the same cli.main in this
    # process (an interpreter start with torch costs seconds each; a stray exception would fail the test here too).
    for n, (args, message) in enumerate(cases):
        if n == 0:
            done = _cli(*args)
            code, out, err = done.returncode, done.stdout, done.stderr
        else:
            code = main(["rescore", *args])
            out, err = capsys.readouterr()
        assert code == 2, (args, err)
        assert message in err, err
        assert err.startswith("error: ") and "Traceback" not in err
        assert not any(line.startswith('{"type": "whatif"') for line in out.splitlines())
    assert not (run / "whatif").exists()  # nothing written


def test_a_pruned_checkpoint_falls_back_and_a_step_without_prompt_is_named(run, tmp_path):
    reader = RunReader(run)
    trajectory = _trajectories(run, 2)[0]
    settings = RunSettings.read(reader)
    hidden = run / "checkpoints" / "step-000001"
    moved = tmp_path / "step-000001"
    hidden.rename(moved)
    try:
        # step-000001 scored update 2; pruned, the starting model (the weights before update 1) and step-000002 are as
        # near: the earlier, and the result names it.
        assert scoring_weights(reader, settings, trajectory) == Path(settings.config.resolved_model().path)
        # …and without the starting model on disk, the nearest kept checkpoint after it.
        missing = dataclasses.replace(
            settings,
            config=settings.config.model_copy(
                update={"model": settings.config.model.model_copy(update={"path": str(tmp_path / "gone")})}
            ),
        )
        assert scoring_weights(reader, missing, trajectory) == run / "checkpoints" / "step-000002"
        content = rescore_run_trajectory(run, trajectory["id"], ["x"])
        assert content["results"][0]["export"] == str(Path(settings.config.resolved_model().path))
    finally:
        moved.rename(hidden)
    without_prompt = {
        **trajectory,
        "steps": [{k: v for k, v in s.items() if k != "prompt"} for s in trajectory["steps"]],
    }
    with pytest.raises(RescoreError, match="step 0 has no recorded prompt"):
        trajectory_steps(without_prompt)
    assert isinstance(trajectory_steps(trajectory)[0], StepInput)
    assert reader.checkpoints()  # the run is as it was
    assert check_skill("a\tb\nc") == "a\tb\nc"  # tab and newline are text


# -- What if… on every trajectory a run shows (issue 41 item 1) ------------------------------------------------------


def test_a_step_the_teacher_did_not_score_records_its_prompt(run):
    # A SEED update whose analysis gave no valid skill has no teacher pass on its steps; they still record h_t, from
    # which What if… rebuilds the teacher prompt (8 % of the walkthrough demo's training trajectories were such).
    import types

    import torch

    from seed_trainer.envs.base import Task
    from seed_trainer.rl.rollout import Episode, Step
    from seed_trainer.stages.train_records import trajectory_record

    step = Step(
        t=0,
        observation="You see a mug.",
        admissible_actions=["look"],
        prompt="Your task is to: put a mug in the cabinet.\nYou see a mug.",
        prompt_ids=[1, 2, 3],
        response_ids=[4, 5],
        response="look",
        action="look",
        valid=True,
        invalid_reason=None,
        truncated=False,
        old_logp=torch.tensor([-0.5, -0.25]),
    )
    task = Task(id="household-x", type="pick_and_place", description="put a mug in the cabinet.", split="train")
    episode = Episode(task=task, group=0, index=0, steps=[step])
    settings = types.SimpleNamespace(opd_beta=5.0, opd_estimator="sample")
    record = trajectory_record(episode, 3, settings, lambda ids: [str(i) for i in ids], None)
    assert record["steps"][0]["prompt"] == step.prompt
    assert record["steps"][0]["tokens"].teacher_logp is None  # not scored: no gate, yet rescorable


def test_an_evaluation_is_rescored_with_the_weights_it_played(run, tmp_path):
    # An `eval` run of checkpoint 2 and one of the run's model: their trajectories record h_t and are rescored with
    # the weights each evaluated (the report's `checkpoint`), not the experiment's model; a train run's evaluation at
    # update k with checkpoint step-k (kept), else the kept weights nearest to it.
    from seed_trainer.experiment.loading import load_experiment
    from seed_trainer.stages.evaluate import evaluate_checkpoint

    reader = RunReader(run)
    experiment = (run / reader.manifest()["experiment"]["path"]).resolve()
    config = load_experiment(experiment)
    config = config.model_copy(update={"eval": config.eval.model_copy(update={"tasks": 1})})
    checkpoint = run / "checkpoints" / "step-000002"
    for run_id, evaluated in (("eval-step-2", checkpoint), ("eval-model", None)):
        eval_run = evaluate_checkpoint(
            config,
            experiment,
            split="valid_seen",
            checkpoint=evaluated,
            runs_dir=tmp_path / "runs",
            run_id=run_id,
            echo=None,
        )
        eval_reader = RunReader(eval_run)
        (row,) = [r for r in eval_reader.trajectory_index() if r["phase"] == "eval"][:1]
        trajectory = eval_reader.trajectory(row)
        assert all(step.get("prompt") for step in trajectory["steps"])
        settings = RunSettings.read(eval_reader)
        expected = checkpoint if evaluated is not None else Path(settings.config.resolved_model().path)
        assert scoring_weights(eval_reader, settings, trajectory) == expected
        content = rescore_run_trajectory(eval_run, trajectory["id"], ["Open nothing."])
        assert content["results"][0]["export"].endswith(expected.name), content["results"][0]["export"]

    settings = RunSettings.read(reader)
    in_run = {**_trajectories(run, 2)[0], "phase": "eval", "update": 2}
    assert scoring_weights(reader, settings, in_run) == checkpoint
    # step-000007 is not kept: the nearest kept
    assert scoring_weights(reader, settings, {**in_run, "update": 7}) == checkpoint
