"""One owner per run directory: two `resume`s started at the same moment never both run, and kill -9 of an owner frees
the run at once. Both go through the real command line and `resume`; only the update loop is replaced (by one that
holds the run for a moment), so that the lock decision, not a training run, is what races."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, SchemaSet, check_run
from seed_trainer.runlog.ownership import RunLock, RunOwnedError, owned_by_live_process, read_owner
from seed_trainer.stages.common import create_run

TESTS = Path(__file__).resolve().parents[1] / "support"  # the helpers subprocesses import
TRIALS = 50

# The driver imports the trainer once, then per trial forks two children that block on one pipe; closing its write
# end releases both at the same instant, and each runs `python -m seed_trainer resume RUN` (cli.main) on the run. The
# one that owns the run holds it until the other has ended, so however the two are scheduled, a second owner could
# only come from a lock that let two in.
RACE_DRIVER = r"""
import json, os, sys, time
from pathlib import Path
run_dir, trials, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
import seed_trainer.stages.train as stage
from seed_trainer.cli import main

def owning_loop(config, writer, checkpoint, stop, progress, **_):
    # the owner: say so, then hold the run until the driver has seen the rival end (however slow it was to start),
    # and leave the run resumable for the next trial
    marker = out / "owner-now"
    fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # fails if another owner is inside at the same time
    os.close(fd)
    with open(out / "owners", "a") as log:
        log.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + 120
    while not (out / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    marker.unlink()
    writer.finish("stopped", "race owner done")

stage._train_loop = owning_loop
for trial in range(trials):
    gate_r, gate_w = os.pipe()
    children = {}
    for n in range(2):
        pid = os.fork()
        if pid == 0:
            os.close(gate_w)
            err = os.open(out / f"stderr-{trial}-{n}", os.O_CREAT | os.O_WRONLY)
            os.dup2(err, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.read(gate_r, 1)  # both wake when the parent closes the write end
            try:
                code = main(["resume", str(run_dir)])
            except BaseException:
                import traceback; traceback.print_exc(); code = 99
            sys.stderr.flush()
            os._exit(code)
        children[pid] = n
    os.close(gate_r)
    os.close(gate_w)
    codes = {}
    for _ in range(2):
        pid, status = os.wait()
        codes[children[pid]] = os.waitstatus_to_exitcode(status)
        (out / "release").touch()  # the first to end lets the other (an owner, if all is well) finish
    (out / "release").unlink()
    with open(out / "trials.jsonl", "a") as log:
        log.write(json.dumps({"trial": trial, "pids": {n: p for p, n in children.items()}, "codes": codes}) + "\n")
"""


def _experiment(tmp_path: Path, model_dir: Path) -> Path:
    data = {
        "name": "owner",
        "seed": 1,
        "updates": 2,
        "model": {"path": str(model_dir)},
        "environment": {"name": "counter_env:CounterTasks"},
        "rollout": {"tasks_per_update": 1, "group_size": 2, "max_steps": 1, "max_response_tokens": 4},
    }
    path = tmp_path / "owner.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.fixture
def stopped_run(tmp_path, tiny_policy_dir) -> Path:
    """A `train` run that stopped before its first update: resumable, with nothing to roll back."""
    path = _experiment(tmp_path, tiny_policy_dir)
    config = load_experiment(path)
    writer = create_run(
        config,
        path,
        tmp_path / "runs",
        stage="train",
        run_id="r",
        echo=None,
        parent=None,
        progress_unit="update",
        progress_total=config.updates,
    )
    writer.finish("stopped", "stopped before update 1")
    return writer.run_dir


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}


def test_two_resumes_started_together_never_both_own_the_run(stopped_run, tmp_path):
    out = tmp_path / "race"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", RACE_DRIVER, str(stopped_run), str(TRIALS), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    trials = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    assert len(trials) == TRIALS
    host = socket.gethostname()
    for trial in trials:
        codes = {int(n): c for n, c in trial["codes"].items()}
        assert sorted(codes.values()) == [0, 2], trial  # one owner, one refusal — never two owners
        winner = next(n for n, c in codes.items() if c == 0)
        loser = 1 - winner
        message = (out / f"stderr-{trial['trial']}-{loser}").read_text()
        assert f"owned by another trainer (pid {trial['pids'][str(winner)]} on {host}" in message, message
    assert len((out / "owners").read_text().split()) == TRIALS  # the update loop ran once per trial, never overlapping
    events = RunReader(stopped_run).events()
    assert sum(e["type"] == "resumed" for e in events) == TRIALS
    assert check_run(stopped_run).ok


HOLDER = r"""
import sys, time
import seed_trainer.stages.train as stage
from seed_trainer.cli import main
def holding_loop(config, writer, checkpoint, stop, progress, **_):
    print("OWNING", flush=True)
    time.sleep(600)
stage._train_loop = holding_loop
sys.exit(main(["resume", sys.argv[1]]))
"""


def test_kill_9_of_an_owner_frees_the_run_at_once(stopped_run):
    owner = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(stopped_run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        line = ""
        while "OWNING" not in line:  # events are echoed on stdout first; the loop says when it owns the run
            line = owner.stdout.readline()
            assert line, owner.stderr.read()[-2000:]
        assert read_owner(stopped_run)["pid"] == owner.pid
        SchemaSet().validate("lock", read_owner(stopped_run), "lock")  # the record the extension reads
        assert owned_by_live_process(stopped_run) in (True, None)  # None: a platform without /proc/locks
        with pytest.raises(RunOwnedError, match=f"pid {owner.pid}"):
            RunLock.acquire(stopped_run, command="test", owner_wait=0)
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        owner.stdout.close()
        owner.stderr.close()
    with RunLock.acquire(stopped_run, command="test", owner_wait=0):  # at once, no retry: the kernel let go
        assert read_owner(stopped_run)["pid"] == os.getpid()
    assert owned_by_live_process(stopped_run) in (False, None)
    assert RunReader(stopped_run).manifest()["status"] == "running"  # what the kill left: readers show it interrupted
