"""Checkpoints and resume: a stopped or killed Stage-2 run continues in the same directory and repeats exactly the
updates an uninterrupted run makes (CPU, fixed seeds)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from testenv import subprocess_env

from seed_trainer.checkpoints.checkpoint import OPTIMIZER_FILE, RNG_FILE, STATE_FILE, read_state
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.runlog.ownership import RunLock, RunOwnedError
from seed_trainer.runlog.writer import RunWriter
from seed_trainer.stages.resume import ResumeError
from seed_trainer.stages.train import resume, train

TESTS = Path(__file__).resolve().parents[1] / "support"  # the helpers subprocesses import
UPDATES = 3


def _experiment(tmp_path: Path, model_dir: Path, *, lora: bool = False, **extra) -> Path:
    data = {
        "name": "resume",
        "seed": 5,
        "algorithm": "seed",
        "updates": UPDATES,
        "model": {"path": str(model_dir), **({"lora": {"r": 4, "alpha": 8}} if lora else {})},
        "environment": {"name": "counter_env:CounterTasks"},
        "rollout": {
            "tasks_per_update": 2,
            "group_size": 2,
            "max_steps": 2,
            "history": 1,
            "max_prompt_tokens": 256,
            "max_response_tokens": 6,
        },
        "analyzer": {"max_tokens": 8},
        # a mini-batch smaller than the update's samples, so the shuffle RNG matters
        "rl": {"mini_batch_size": 3, "micro_batch_size": 2, "lr": 1e-3},
        "eval": {"every": 1, "tasks": 2, "splits": ["valid_seen"]},
        "checkpoint": {"every": 1, "keep_last": 2},
        **extra,
    }
    path = tmp_path / "resume.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _numbers(run_dir: Path, kind: str = "update") -> dict[int, dict]:
    """Metric rows by step, without wall times (the only values that may differ)."""
    rows = {}
    for row in RunReader(run_dir).metrics():
        if row["kind"] == kind:
            assert row["step"] not in rows, f"step {row['step']} appears twice in {run_dir}"
            rows[row["step"]] = {k: v for k, v in row.items() if not k.startswith("time") and k != "time"}
    return rows


def _responses(run_dir: Path, update: int) -> list[list[str]]:
    reader = RunReader(run_dir)
    return [[s["response"] for s in t["steps"]] for _, t in reader.iter_trajectories(f"it-{update:06d}.jsonl")]


@pytest.fixture(scope="module")
def uninterrupted(tiny_policy_dir, tmp_path_factory):
    """The reference: the same experiment run without a break, full fine-tune and LoRA."""
    runs = {}
    for lora in (False, True):
        tmp = tmp_path_factory.mktemp("lora" if lora else "full")
        path = _experiment(tmp, tiny_policy_dir, lora=lora)
        runs[lora] = train(load_experiment(path), path, echo=None)
    return runs


@pytest.mark.parametrize("lora", [False, True], ids=["full", "lora"])
def test_stop_after_update_1_then_resume_gives_identical_updates(
    tmp_path, tiny_policy_dir, uninterrupted, monkeypatch, lora
):
    path = _experiment(tmp_path, tiny_policy_dir, lora=lora)
    real = RunWriter.set_progress

    def stop_after_first(self, step, *args, **kwargs):  # the extension's stop request, right after update 1
        real(self, step, *args, **kwargs)
        if step == 1:
            self.paths.control.write_text("", encoding="utf-8")

    monkeypatch.setattr(RunWriter, "set_progress", stop_after_first)
    run_dir = train(load_experiment(path), path, echo=None)
    monkeypatch.undo()
    manifest = RunReader(run_dir).manifest()
    assert manifest["status"] == "stopped" and manifest["progress"]["step"] == 1
    checkpoint = run_dir / "checkpoints" / "step-000001"
    for name in (STATE_FILE, RNG_FILE, OPTIMIZER_FILE, "adapter_config.json" if lora else "model.safetensors"):
        assert (checkpoint / name).exists(), name
    assert read_state(checkpoint)["update"] == 1

    assert resume(run_dir, echo=None) == run_dir
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed" and check_run(run_dir).ok
    assert not reader.paths.control.exists()
    types = [e["type"] for e in reader.events()]
    assert types.count("started") == 1 and "resumed" in types and types[-1] == "finished"

    expected, got = _numbers(uninterrupted[lora]), _numbers(run_dir)
    assert sorted(got) == [1, 2, 3]
    assert got[2] == expected[2] and got[3] == expected[3]  # update k+1 (and after) exactly as without the stop
    assert _responses(run_dir, 2) == _responses(uninterrupted[lora], 2)
    assert _numbers(run_dir, "eval") == _numbers(uninterrupted[lora], "eval")
    # keep_last 2: the final checkpoints only
    assert [p.name for p in sorted((run_dir / "checkpoints").iterdir())] == ["step-000002", "step-000003"]


def test_resume_refuses_runs_it_cannot_continue(tmp_path, uninterrupted, capsys):
    from seed_trainer.cli import main

    with pytest.raises(ResumeError, match="completed"):
        resume(uninterrupted[False], echo=None)
    assert main(["resume", str(uninterrupted[False])]) == 2 and "completed all its updates" in capsys.readouterr().err
    assert main(["resume", str(tmp_path)]) == 2 and "not a run directory" in capsys.readouterr().err
    manifest = json.loads((uninterrupted[False] / "run.json").read_text())
    live = tmp_path / "live"
    live.mkdir()
    (live / "run.json").write_text(json.dumps({**manifest, "status": "running", "pid": os.getpid()}), encoding="utf-8")
    with RunLock.acquire(live, command="train"):  # a live owner: refused, naming it, and nothing written
        before = sorted((p.name, p.stat().st_size) for p in live.iterdir())
        with pytest.raises(RunOwnedError, match=f"pid {os.getpid()} on {socket.gethostname()}"):
            resume(live, echo=None)
        assert (
            main(["resume", str(live)]) == 2
            and f"pid {os.getpid()} on {socket.gethostname()}" in capsys.readouterr().err
        )
        assert sorted((p.name, p.stat().st_size) for p in live.iterdir()) == before


# -- crash safety: kill -9 at three points, then resume ----------------------------------------------------------

CRASH_DRIVER = """
import os, signal, sys
from pathlib import Path
point, at, run_dir = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
def die():
    os.kill(os.getpid(), signal.SIGKILL)
if point == "rollout":  # in the middle of update at+1's rollout: the first environment step after checkpoint `at`
    import counter_env
    step = counter_env.CounterEnv.step
    def dying_step(self, action):
        if (run_dir / "checkpoints" / f"step-{at:06d}").exists():
            die()
        return step(self, action)
    counter_env.CounterEnv.step = dying_step
elif point == "append":  # half of the second trajectory line of update `at` is on disk
    from seed_trainer.runlog import jsonl
    append = jsonl.JsonlAppender.append
    def dying_append(self, record):
        if self.path.name == f"it-{at:06d}.jsonl" and self.lines == 1:
            data = jsonl.dumps_line(record)
            self._file.write(data[: len(data) // 2])
            self._file.flush()
            die()
        return append(self, record)
    jsonl.JsonlAppender.append = dying_append
elif point == "checkpoint":  # the model of checkpoint `at` is saved, the optimizer and RNG states are not
    import seed_trainer.checkpoints.checkpoint as checkpoints
    save = checkpoints.save_checkpoint
    def dying_save(directory, policy, optimizer, **kwargs):
        if kwargs["update"] == at:
            checkpoints.save_model(directory, policy)
            die()
        return save(directory, policy, optimizer, **kwargs)
    checkpoints.save_checkpoint = dying_save
from seed_trainer.cli import main
sys.exit(main(sys.argv[4:]))
"""


def _killed_run(tmp_path: Path, model_dir: Path, point: str, at: int) -> Path:
    path = _experiment(tmp_path, model_dir)
    run_dir = tmp_path / "runs" / f"crash-{point}"
    run_dir.parent.mkdir(exist_ok=True)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CRASH_DRIVER,
            point,
            str(at),
            str(run_dir),
            "train",
            str(path),
            "--run-dir",
            str(run_dir),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=subprocess_env(),
    )
    assert done.returncode == -9, done.stderr[-2000:]
    return run_dir


@pytest.mark.parametrize(
    "point, at, checkpointed",
    [("rollout", 1, 1), ("append", 2, 1), ("checkpoint", 2, 1)],
    ids=["mid-rollout", "mid-append", "mid-checkpoint"],
)
def test_kill_9_leaves_a_valid_run_that_resumes_losing_only_the_update_in_progress(
    tmp_path, tiny_policy_dir, uninterrupted, point, at, checkpointed
):
    run_dir = _killed_run(tmp_path, tiny_policy_dir, point, at)
    check = check_run(run_dir)
    assert check.ok, [str(e) for e in check.errors]
    assert RunReader(run_dir).manifest()["status"] == "running"  # what a crash leaves: a reader shows it interrupted
    if point == "append":
        (torn,) = check.warnings
        assert torn.file == f"trajectories/it-{at:06d}.jsonl" and torn.line == 2
    if point == "checkpoint":
        assert (run_dir / "checkpoints" / f".tmp-step-{at:06d}").is_dir()
        assert RunReader(run_dir).latest_checkpoint().name == f"step-{checkpointed:06d}"

    if point == "append":  # one resume through the command line
        done = subprocess.run(
            [sys.executable, "-m", "seed_trainer", "resume", str(run_dir)],
            capture_output=True,
            text=True,
            timeout=300,
            env=subprocess_env(),
        )
        assert done.returncode == 0, done.stderr[-2000:]
    else:
        resume(run_dir, echo=None)
    reader = RunReader(run_dir)
    check = check_run(run_dir)
    assert check.ok and not check.warnings, [str(e) for e in check.errors]
    assert reader.manifest()["status"] == "completed"
    resumed = next(e for e in reader.events() if e["type"] == "resumed")
    assert resumed["step"] == checkpointed  # only the update in progress (and its unfinished checkpoint) was lost
    # every update exactly once, every number as in the uninterrupted run
    assert _numbers(run_dir) == _numbers(uninterrupted[False])
    assert _numbers(run_dir, "eval") == _numbers(uninterrupted[False], "eval")
    assert len(reader.trajectory_index()) == len(RunReader(uninterrupted[False]).trajectory_index())
    assert not any(p.name.startswith(".") for p in (run_dir / "checkpoints").iterdir())
