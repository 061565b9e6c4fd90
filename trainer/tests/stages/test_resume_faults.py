"""What breaks a run directory on purpose, and what `resume` and the command line make of it: corrupt lines in what a
checkpoint keeps, a broken newest checkpoint, bad input, a read-only run, a full disk, stale temporary files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_resume import _experiment, _numbers

import seed_trainer.stages.train as train_stage
from seed_trainer.cli import main
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, check_run, layout
from seed_trainer.runlog.writer import RunWriter
from seed_trainer.stages.common import create_run

TESTS = Path(__file__).resolve().parents[1] / "support"  # the helpers subprocesses import


@pytest.fixture(scope="module")
def stopped_at_2(tiny_policy_dir, tmp_path_factory) -> Path:
    """A real run of 3 updates stopped after update 2 (checkpoints 1 and 2, an evaluation after each update)."""
    tmp = tmp_path_factory.mktemp("stopped")
    path = _experiment(tmp, tiny_policy_dir)
    real = RunWriter.set_progress

    def stop_after_second(self, step, *args, **kwargs):
        real(self, step, *args, **kwargs)
        if step == 2:
            self.paths.control.write_text("", encoding="utf-8")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RunWriter, "set_progress", stop_after_second)
        train_stage.train(load_experiment(path), path, echo=None)
    return tmp


def _copy_run(stopped: Path, tmp_path: Path) -> Path:
    """A private copy of the stopped run (the experiment file beside it, as run.json's relative path expects)."""
    shutil.copytree(stopped, tmp_path / "copy")
    (run,) = (tmp_path / "copy" / "runs").iterdir()
    return run


def _snapshot(run_dir: Path) -> dict[str, bytes]:
    """Every file's bytes, the lock file's included (a refused resume must not rename the run's owner either)."""
    return {p.relative_to(run_dir).as_posix(): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}


def _garbage(line: bytes, extra: int) -> bytes:
    return b"#" * (len(line) - 1 + extra) + b"\n"


@pytest.mark.parametrize(
    "file, line, extra",
    [("metrics.jsonl", 2, 40), ("metrics.jsonl", 2, 0), ("trajectories/it-000001.jsonl", 1, -10)],
    ids=["metrics-longer", "metrics-same-length", "trajectory-shorter"],
)
def test_a_corrupt_line_in_the_kept_range_stops_resume_until_repair(stopped_at_2, tmp_path, capsys, file, line, extra):
    run = _copy_run(stopped_at_2, tmp_path)
    lines = (run / file).read_bytes().splitlines(keepends=True)
    bad = _garbage(lines[line - 1], extra)
    lines[line - 1] = bad
    (run / file).write_bytes(b"".join(lines))
    before = _snapshot(run)

    assert main(["resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{file}:{line}:" in err and "--repair" in err, err
    assert _snapshot(run) == before  # nothing cut, nothing written

    assert main(["resume", str(run), "--repair"]) == 0
    reader = RunReader(run)
    assert reader.manifest()["status"] == "completed"
    assert (run / f"{file}.corrupt").read_bytes() == bad  # set aside, not thrown away
    assert sorted(_numbers(run)) == [1, 2, 3]
    repaired = [e for e in reader.events() if e.get("code") == "repaired"]
    assert repaired and file in repaired[0]["message"]
    check = check_run(run)
    assert check.ok, [str(e) for e in check.errors]


@pytest.mark.parametrize(
    "file, line, old, new",
    [
        ("metrics.jsonl", 2, b'"step"', b'"stap"'),
        ("metrics.jsonl", 2, b'"kind":"', b'"kind":"_'),
        ("trajectories/index.jsonl", 2, b'"size"', b'"sise"'),
    ],
    ids=["metrics-renamed-key", "metrics-wrong-value", "index-renamed-key"],
)
def test_a_kept_record_that_parses_but_breaks_its_schema_stops_resume_until_repair(
    stopped_at_2, tmp_path, capsys, file, line, old, new
):
    # Damage that still parses as JSON: resume once took it in, marked the run completed, and every reader then
    # refused the file. Same length, so the checkpoint's sizes still fall on line ends: only the schema can see it.
    run = _copy_run(stopped_at_2, tmp_path)
    lines = (run / file).read_bytes().splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = bad = lines[line - 1].replace(old, new, 1)
    if len(new) > len(old):  # keep the length: the value loses its last letter ("update" → "_updat")
        end = bad.index(b'"', bad.index(new) + len(new))
        lines[line - 1] = bad = bad[: end - 1] + bad[end:]
    (run / file).write_bytes(b"".join(lines))
    before = _snapshot(run)

    assert main(["resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{file}:{line}:" in err and "--repair" in err, err
    assert _snapshot(run) == before

    assert main(["resume", str(run), "--repair"]) == 0
    assert RunReader(run).manifest()["status"] == "completed"
    if file != "trajectories/index.jsonl":  # the index is rebuilt from the trajectory files instead
        assert (run / f"{file}.corrupt").read_bytes() == bad
    assert sorted(_numbers(run)) == [1, 2, 3]
    check = check_run(run)
    assert check.ok, [str(e) for e in check.errors]


def _corrupt_update_row(run: Path, step: int) -> bytes:
    """Overwrite metrics.jsonl's `update` row of `step` with garbage of the same length; returns the garbage."""
    lines = (run / "metrics.jsonl").read_bytes().splitlines(keepends=True)
    (index,) = [
        i for i, raw in enumerate(lines) if (row := json.loads(raw))["kind"] == "update" and row["step"] == step
    ]
    lines[index] = bad = _garbage(lines[index], 0)
    (run / "metrics.jsonl").write_bytes(b"".join(lines))
    return bad


def test_repair_trains_a_damaged_update_again_from_the_checkpoint_before_it(stopped_at_2, tmp_path):
    # The last metrics row the newest checkpoint covers is corrupt: dropping it would leave updates 1, 3 — a run the
    # checker rejects. Repair redoes update 2 from checkpoint 1 instead, and sets checkpoint 2 aside.
    run = _copy_run(stopped_at_2, tmp_path)
    original = _numbers(run)
    bad = _corrupt_update_row(run, 2)

    assert main(["resume", str(run), "--repair"]) == 0
    reader = RunReader(run)
    assert reader.manifest()["status"] == "completed"
    assert next(e for e in reader.events() if e["type"] == "resumed")["step"] == 1
    got = _numbers(run)
    assert sorted(got) == [1, 2, 3] and got[2] == original[2]  # update 2 trained again, exactly as before
    assert (run / "metrics.jsonl.corrupt").read_bytes() == bad
    assert (run / "checkpoints" / ".superseded-step-000002").is_dir()
    (repaired,) = [e for e in reader.events() if e.get("code") == "repaired"]
    assert "superseded-step-000002" in repaired["message"] and "update 2 is trained again" in repaired["message"]
    check = check_run(run)
    assert check.ok, [str(e) for e in check.errors]


def test_repair_refuses_when_no_checkpoint_precedes_the_damaged_update(stopped_at_2, tmp_path, capsys):
    run = _copy_run(stopped_at_2, tmp_path)
    shutil.rmtree(run / "checkpoints" / "step-000001")
    _corrupt_update_row(run, 2)
    before = _snapshot(run)
    assert main(["resume", str(run), "--repair"]) == 2
    err = capsys.readouterr().err
    assert "update 2 must be trained again" in err and "no complete checkpoint before it" in err, err
    assert _snapshot(run) == before


@pytest.mark.parametrize("missing", ["model.safetensors", "optimizer.pt", "rng_state.pt"])
def test_a_broken_newest_checkpoint_falls_back_to_the_newest_complete_one(stopped_at_2, tmp_path, missing):
    run = _copy_run(stopped_at_2, tmp_path)
    original = _numbers(run)
    (run / "checkpoints" / "step-000002" / missing).unlink()
    check = check_run(run)
    assert [(e.kind, e.file) for e in check.errors] == [("checkpoint", "checkpoints/step-000002")]
    assert missing in str(check.errors[0])

    assert main(["resume", str(run)]) == 0
    reader = RunReader(run)
    assert reader.manifest()["status"] == "completed"
    assert next(e for e in reader.events() if e["type"] == "resumed")["step"] == 1
    (warning,) = [e for e in reader.events() if e.get("code") == "checkpoint_incomplete"]
    assert "checkpoints/step-000002" in warning["message"] and missing in warning["message"]
    got = _numbers(run)
    assert sorted(got) == [1, 2, 3] and got[2] == original[2]  # update 2 trained again, exactly as before
    assert (run / "checkpoints" / ".broken-step-000002").is_dir()  # kept aside for inspection
    check = check_run(run)
    assert check.ok and not check.warnings, [str(e) for e in check.errors]


def test_no_complete_checkpoint_refuses_rather_than_start_over(stopped_at_2, tmp_path, capsys):
    run = _copy_run(stopped_at_2, tmp_path)
    for step in (1, 2):
        (run / "checkpoints" / f"step-{step:06d}" / "optimizer.pt").unlink()
    before = _snapshot(run)
    assert main(["resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert "no complete checkpoint" in err and "checkpoints/step-000001: optimizer.pt is missing" in err, err
    assert _snapshot(run) == before  # two updates of metrics and trajectories not thrown away


def test_a_checkpoint_from_before_manifests_still_resumes(stopped_at_2, tmp_path):
    run = _copy_run(stopped_at_2, tmp_path)
    for step in (1, 2):
        (run / "checkpoints" / f"step-{step:06d}" / "manifest.json").unlink()
    assert [e.kind for e in check_run(run).errors] == ["checkpoint", "checkpoint"]  # cannot be size-checked: said so
    assert main(["resume", str(run)]) == 0
    reader = RunReader(run)
    assert next(e for e in reader.events() if e["type"] == "resumed")["step"] == 2
    assert sorted(_numbers(run)) == [1, 2, 3]


# -- bad input: exit 2, nothing written -------------------------------------------------------------------------------


def _write_experiment(tmp_path: Path, model_path: str, environment: str = "counter_env:CounterTasks") -> Path:
    data = {
        "name": "bad",
        "updates": 1,
        "model": {"path": model_path},
        "environment": {"name": environment},
        "rollout": {"tasks_per_update": 1, "group_size": 2, "max_steps": 1, "max_response_tokens": 4},
    }
    path = tmp_path / "bad.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "case",
    [
        "missing-local-model",
        "mistyped-local-model",
        "empty-model-folder",
        "hub-id-offline",
        "missing-environment",
        "existing-run-dir",
    ],
)
def test_bad_input_exits_2_with_nothing_written(tmp_path, tiny_policy_dir, monkeypatch, capsys, case):
    (tmp_path / "models").mkdir()
    model, environment, extra = str(tiny_policy_dir), "counter_env:CounterTasks", []
    expected = {
        "missing-local-model": "model.path: ./no-such-model: no such model directory",
        "mistyped-local-model": "model.path: models/tiny-polcy: no such model directory",
        "empty-model-folder": "model.path: models/empty: holds no Hugging Face model (no config.json",
        "hub-id-offline": "not in the Hugging Face cache while HF_HUB_OFFLINE is set",
        "missing-environment": "environment.name: cannot load 'no_such_module:Tasks'",
        "existing-run-dir": "already exists",
    }[case]
    if case == "missing-local-model":
        model = "./no-such-model"
    elif case == "mistyped-local-model":
        model = "models/tiny-polcy"  # beside a models/ folder: a path, not the hub organisation "models"
    elif case == "empty-model-folder":
        (tmp_path / "models" / "empty").mkdir()  # e.g. a download that never started
        model = "models/empty"
    elif case == "hub-id-offline":
        model = "some-org/some-model"
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    elif case == "missing-environment":
        environment = "no_such_module:Tasks"
    else:
        (tmp_path / "runs" / "taken").mkdir(parents=True)
        extra = ["--run-dir", str(tmp_path / "runs" / "taken")]
    path = _write_experiment(tmp_path, model, environment)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for command in ("train", "collect", "eval"):
        args = [command, str(path), *extra] + (["--split", "valid_seen"] if command == "eval" else [])
        assert main(args) == 2, command
        assert expected in capsys.readouterr().err, command
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.fixture
def hub(monkeypatch):
    """A model hub on loopback (HF_ENDPOINT points at it): `some-org/some-model` exists, any other id is 404, and
    `slow/*` answers only after 30 s — a hub that cannot be reached in time. Yields the paths it was asked for."""
    import http.server
    import threading
    import time

    asked: list[str] = []

    class Hub(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            if self.path.startswith("/api/models/slow/"):
                time.sleep(30)
            self.send_response(200 if self.path == "/api/models/some-org/some-model" else 404)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    yield asked
    server.shutdown()


@pytest.mark.parametrize(
    "model, expected",
    [
        (
            "models/nope",
            "did not answer within 2 s",
        ),  # the household template's shape, with no models/ folder beside it
        ("slow/some-model", "did not answer within 2 s"),
        ("other-org/no-model", "the model hub has no model 'other-org/no-model'"),
    ],
)
def test_a_hub_id_that_is_not_on_disk_asks_the_hub_briefly_and_exits_2(
    tmp_path, hub, monkeypatch, capsys, model, expected
):
    path = _write_experiment(tmp_path, model)
    if model.startswith("models/"):  # nothing answers there: the real hub is unreachable from the tests
        monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert main(["train", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"model.path: {model}: not a local directory" in err and expected in err, err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_hub_id_the_hub_knows_passes_the_preflight(tmp_path, hub):
    from seed_trainer.experiment.preflight import check_model_path

    check_model_path(load_experiment(_write_experiment(tmp_path, "some-org/some-model")))  # no InputError


def test_a_hub_shaped_path_that_exists_on_disk_is_local_and_the_hub_is_not_asked(tmp_path, hub, tiny_policy_dir):
    # Issue 41 item 8: only an `org/name` that is not on disk may reach the hub. This one is a folder beside the
    # experiment, and the hub (which would answer 404 for it) is never asked.
    from seed_trainer.experiment.preflight import check_model_path

    shutil.copytree(tiny_policy_dir, tmp_path / "other-org" / "local-model")
    check_model_path(load_experiment(_write_experiment(tmp_path, "other-org/local-model")))  # no InputError
    assert hub == []


@pytest.fixture
def read_only_dir(tmp_path):
    """A folder no run can be created in: a read-only tmpfs mount (refuses root too), else a folder without write
    permission when this user is not root."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)], capture_output=True, text=True
    )
    assert done.returncode == 0, f"mount a read-only tmpfs: {done.stderr.strip()}"
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_run_dir_on_a_read_only_filesystem_exits_2_with_nothing_written(
    tmp_path, tiny_policy_dir, read_only_dir, capsys
):
    path = _write_experiment(tmp_path, str(tiny_policy_dir))
    assert main(["train", str(path), "--run-dir", str(read_only_dir / "runs" / "one")]) == 2
    assert "cannot be created" in capsys.readouterr().err
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**data, "runs_dir": str(read_only_dir / "runs")}), encoding="utf-8")
    assert main(["train", str(path)]) == 2
    assert "runs_dir" in capsys.readouterr().err
    assert list(read_only_dir.iterdir()) == []


@pytest.fixture
def stopped_early(tmp_path, tiny_policy_dir) -> Path:
    """A train run stopped before its first update (cheap to resume when the update loop is replaced)."""
    path = _write_experiment(tmp_path, str(tiny_policy_dir))
    writer = create_run(
        load_experiment(path),
        path,
        tmp_path / "runs",
        stage="train",
        run_id="early",
        echo=None,
        parent=None,
        progress_unit="update",
        progress_total=1,
    )
    writer.finish("stopped", "stopped before update 1")
    return writer.run_dir


def test_a_read_only_run_exits_2_and_is_left_alone(stopped_early, capsys, monkeypatch):
    # The run's files as a read-only mount shows them: not writable, whoever asks. Injected at os.access (root passes
    # every permission bit and chattr needs a privilege), so the test runs on any machine.
    run = stopped_early
    before = _snapshot(run)
    real_access = os.access

    def access(path, mode, *args, **kwargs):
        inside = Path(path).resolve().is_relative_to(run.resolve())
        return False if inside and mode & os.W_OK else real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    assert main(["resume", str(run)]) == 2
    assert "the run is read-only" in capsys.readouterr().err
    assert _snapshot(run) == before


def test_resume_removes_stale_temporary_files(stopped_early, monkeypatch):
    run = stopped_early
    (run / ".run.json.tmp-99999").write_bytes(b'{"format_vers')  # a kill during the run.json rewrite left this
    assert [(w.kind, w.file) for w in check_run(run).warnings] == [("stale_temp", ".run.json.tmp-99999")]
    monkeypatch.setattr(
        train_stage, "_train_loop", lambda config, writer, *rest, **_: writer.finish("stopped", "enough")
    )
    assert main(["resume", str(run)]) == 0
    assert not (run / ".run.json.tmp-99999").exists()
    warning = next(e for e in RunReader(run).events() if e.get("code") == "rolled_back")
    assert ".run.json.tmp-99999: stale temporary file removed" in warning["message"]
    check = check_run(run)
    assert check.ok and not check.warnings


# -- failures: the file named, the traceback recorded -----------------------------------------------------------------

FULL_DISK = r"""
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG instead of killing us
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from seed_trainer.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_write_that_fails_names_the_file_and_the_error_event_holds_the_traceback(tmp_path, tiny_policy_dir):
    path = _write_experiment(tmp_path, str(tiny_policy_dir))
    run = tmp_path / "runs" / "full"
    # 64 KiB per file: the run's small files fit, the model's weights (about 400 KB) do not
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(64 * 1024), "train", str(path), "--run-dir", str(run)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])},
    )
    assert done.returncode == 1, done.stderr[-2000:]
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "failed"
    assert str(run / "checkpoints" / ".tmp-step-000001") in manifest["error"], manifest["error"]
    assert str(run) in done.stderr
    (error,) = [e for e in RunReader(run).events() if e["type"] == "error"]
    assert error["detail"].startswith("Traceback (most recent call last)") and "save_checkpoint" in error["detail"]
    assert not (run / "checkpoints" / ".tmp-step-000001").exists()


def test_a_full_disk_while_a_trajectory_is_appended_ends_the_run_failed_with_its_error(
    tmp_path, tiny_policy_dir, monkeypatch
):
    """ENOSPC injected at the write layer: the first trajectory append finds the disk full, and from then on every
    write fails unless the run freed space of its own (a full disk stays full). run.json must still say `failed`
    with the error, or the extension shows the run as interrupted."""
    import errno

    from seed_trainer.runlog import jsonl
    from seed_trainer.runlog import writer as writer_module

    disk = {"full": False, "reserve_at_full": None}
    run = tmp_path / "runs" / "full-disk"
    reserve = run / layout.SPACE_RESERVE

    def space_left() -> bool:
        return not disk["full"] or (disk["reserve_at_full"] and not reserve.exists())

    def no_space(path) -> OSError:
        return OSError(errno.ENOSPC, "No space left on device", str(path))

    real_append, real_write = jsonl.JsonlAppender.append, writer_module.write_json_atomic

    def append(self, record):
        if not disk["full"] and self.path.name.startswith("it-"):
            disk["full"], disk["reserve_at_full"] = True, reserve.exists()
        if not space_left():
            raise no_space(self.path)
        return real_append(self, record)

    def write_json(path, document):
        if not space_left():
            raise no_space(path)
        return real_write(path, document)

    monkeypatch.setattr(jsonl.JsonlAppender, "append", append)
    monkeypatch.setattr(writer_module, "write_json_atomic", write_json)
    path = _write_experiment(tmp_path, str(tiny_policy_dir))
    assert main(["train", str(path), "--run-dir", str(run)]) == 1
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "failed", manifest["status"]
    assert "No space left on device" in manifest["error"] and "it-000001.jsonl" in manifest["error"]
    assert [e["type"] for e in RunReader(run).events()][-2:] == ["error", "finished"]
    assert not reserve.exists()


PAST_THE_LIMIT = r"""
import json, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))  # every file ends at 100 bytes, like a full disk
from seed_trainer.runlog.atomic import write_json_atomic
from seed_trainer.runlog.jsonl import JsonlAppender
failures = []
for write in (lambda: JsonlAppender(sys.argv[1]).append({"text": "x" * 200}),
              lambda: write_json_atomic(sys.argv[2], {"text": "x" * 200})):
    try:
        write()
    except OSError as exc:
        failures.append([exc.filename, str(exc)])
print(json.dumps(failures))
"""


def test_a_failed_append_or_document_write_names_its_file(tmp_path):
    appended, document = tmp_path / "metrics.jsonl", tmp_path / "run.json"
    done = subprocess.run(
        [sys.executable, "-c", PAST_THE_LIMIT, str(appended), str(document)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    (append_error, document_error) = json.loads(done.stdout)
    assert append_error[0] == str(appended) and str(appended) in append_error[1]
    assert document_error[0] == str(tmp_path / ".run.json.tmp-") + document_error[0].rsplit("-", 1)[1]
    assert not document.exists()  # nothing half-written in place of the document
