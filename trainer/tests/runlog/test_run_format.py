"""The run-directory contract (docs/run-format.md): fixtures, writer → reader round trip, atomic writes, token arrays."""

from __future__ import annotations

import json
import math
import os
import struct
import threading
from pathlib import Path

import jsonschema
import make_run_fixtures
import pytest

from seed_trainer.runlog import (
    FORMAT_VERSION,
    RunEnvironment,
    RunFormatError,
    RunReader,
    RunWriter,
    SchemaSet,
    TokenArrays,
    check_run,
    decode_float32,
    decode_int32,
    encode_float32,
    encode_int32,
    find_schemas_dir,
    format_field_path,
    layout,
    metric_name,
)
from seed_trainer.runlog.atomic import write_json_atomic
from seed_trainer.runlog.jsonl import JsonlAppender, read_jsonl
from seed_trainer.runlog.tokens import base64_length, token_pieces

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "test" / "fixtures" / "runs"
EXPECTATIONS = json.loads((FIXTURES / "expectations.json").read_text(encoding="utf-8"))["runs"]
SCHEMAS = SchemaSet()


def f32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


# -- fixtures ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTATIONS))
def test_fixture_matches_expectations(name):
    expected = EXPECTATIONS[name]
    report = check_run(FIXTURES / name, SCHEMAS)
    got_errors = [{"kind": e.kind, "file": e.file, "line": e.line, "field": e.field} for e in report.errors]
    want_errors = [{k: e[k] for k in ("kind", "file", "line", "field")} for e in expected["errors"]]
    assert got_errors == want_errors, [str(e) for e in report.errors]
    for error, want in zip(report.errors, expected["errors"]):
        message = str(error)
        assert error.file in message and (error.line is None or f":{error.line}:" in message)
        assert error.field is None or error.field in message
        assert want.get("message_includes", "") in message
    assert [{"kind": w.kind, "file": w.file, "line": w.line} for w in report.warnings] == expected["warnings"]
    for key, count in expected.get("counts", {}).items():
        assert report.counts[key] == count, key


def test_fixtures_are_what_the_generator_writes(tmp_path):
    make_run_fixtures.generate(tmp_path)
    committed = sorted(p.relative_to(FIXTURES) for p in FIXTURES.rglob("*") if p.is_file())
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert committed == generated
    for relative in committed:
        assert (FIXTURES / relative).read_bytes() == (tmp_path / relative).read_bytes(), (
            f"{relative} is stale: run trainer/tests/support/make_run_fixtures.py"
        )


def test_valid_fixture_decodes_to_the_expected_arrays():
    decoded = EXPECTATIONS["valid"]["decoded"]
    reader = RunReader(FIXTURES / "valid", schemas=SCHEMAS)
    step = reader.trajectory(decoded["trajectory"])["steps"][decoded["step"]]
    arrays = reader.tokens(step)
    assert arrays.count == decoded["count"] and arrays.text == decoded["text"]
    assert arrays.ids[:6] == decoded["ids_head"]
    for name in ("logp", "teacher_logp", "delta", "gate"):
        assert getattr(arrays, name)[:6] == decoded[f"{name}_head"]
    for d, g in zip(arrays.delta, arrays.gate):
        assert g == pytest.approx(1 / (1 + math.exp(-decoded["beta"] * d)), abs=1e-6)
    assert "".join(arrays.text) == step["response"]


def test_valid_fixture_reads_through_the_reader():
    reader = RunReader(FIXTURES / "valid", schemas=SCHEMAS)
    manifest = reader.manifest()
    assert manifest["format_version"] == FORMAT_VERSION and manifest["status"] == "stopped"
    assert [s["review"]["state"] for s in reader.skills()] == ["pending", "accepted", "rejected", "edited"]
    assert reader.control() == {"request": "stop", "time": reader.control()["time"], "source": "vscode"}
    assert reader.latest_checkpoint().name == "step-000002"
    assert reader.tags() == EXPECTATIONS["valid"]["tags"] == ["baseline", "β = 5 sweep"]
    assert reader.eval("test_seen")["overall"]["success"] == 1.0
    index = reader.trajectory_index()
    no_teacher = [row for row in index if not row["teacher"]]
    assert no_teacher and all(reader.tokens(s).gate is None for s in reader.trajectory(no_teacher[0])["steps"])
    assert reader.warnings == []


def test_valid_fixture_quantiles_are_those_of_its_distilled_tokens():
    """Each update row's quantiles of g and Δ are those of the gates and deltas its trajectories hold (the generator
    computed expectations.json's from the trajectories); the TypeScript reader is held to the same numbers."""
    reader = RunReader(FIXTURES / "valid", schemas=SCHEMAS)
    for family, expected in EXPECTATIONS["valid"]["quantiles"].items():
        got = reader.metric_quantiles(family)
        assert [step for step, _ in got] == [row["step"] for row in expected] == [1, 2]
        for (_, summary), want in zip(got, expected):
            assert summary == {key: value for key, value in want.items() if key != "step"}
        counts = [summary["count"] for _, summary in got]
        teacher_tokens = [
            sum(r["tokens"] for r in reader.trajectory_index() if r["update"] == step and r["teacher"])
            for step in (1, 2)
        ]
        assert counts == teacher_tokens


def test_unknown_format_version_is_refused_with_a_clear_message():
    with pytest.raises(RunFormatError) as info:
        RunReader(FIXTURES / "unknown-format-version", schemas=SCHEMAS).manifest()
    assert info.value.kind == "unsupported_version"
    assert "format_version 2" in str(info.value) and f"reads format_version {FORMAT_VERSION}" in str(info.value)


def test_torn_last_line_is_skipped_and_reported():
    reader = RunReader(FIXTURES / "torn-last-line", schemas=SCHEMAS)
    assert [row["step"] for row in reader.metrics()] == [1, 2]
    [torn] = reader.warnings
    assert (torn.file, torn.line) == ("metrics.jsonl", 3) and "torn last line" in torn.message


# -- schemas -----------------------------------------------------------------------------------------------------


def _undescribed_fields(node, where):
    """Property schemas without a description (a `$ref` carries its target's); conditionals restate, so skipped."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub and "$ref" not in sub:
                yield f"{where}.{name}"
        for key, value in node.items():
            if key not in ("if", "then", "else"):
                yield from _undescribed_fields(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _undescribed_fields(value, f"{where}[{i}]")


def test_schemas_are_draft_2020_12_with_urn_ids_and_described_fields():
    for path in sorted(find_schemas_dir().glob("*.schema.json")):
        if path.name == "experiment.schema.json":
            continue
        schema = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"urn:seed-studio:schema:{path.name.removesuffix('.schema.json')}"
        missing = list(_undescribed_fields(schema, path.name))
        assert not missing, f"fields without a description: {missing}"


def test_schemas_dir_override_and_failure(tmp_path, monkeypatch):
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in find_schemas_dir().glob("*.schema.json"):
        (copy / path.name).write_bytes(path.read_bytes())
    assert find_schemas_dir(copy) == copy
    monkeypatch.setenv("SEED_SCHEMAS_DIR", str(copy))
    assert find_schemas_dir() == copy and SchemaSet().dir == copy
    monkeypatch.delenv("SEED_SCHEMAS_DIR")
    with pytest.raises(FileNotFoundError, match="SEED_SCHEMAS_DIR") as info:
        find_schemas_dir(tmp_path / "empty", start=tmp_path)
    assert str(tmp_path / "empty") in str(info.value)


def test_unknown_and_missing_keys_are_named():
    row = {"step": 1, "time": "2026-03-01T12:00:00Z", "kind": "update", "success": 1.0}
    with pytest.raises(RunFormatError) as info:
        SCHEMAS.validate("metric", row, "metrics.jsonl", 4)
    assert (info.value.line, info.value.field) == (4, "success")
    with pytest.raises(RunFormatError) as info:
        SCHEMAS.validate(
            "event", {"time": row["time"], "type": "checkpoint", "message": "m", "step": 2}, "events.jsonl", 1
        )
    assert info.value.field == "path"


def test_field_paths_read_like_code():
    assert format_field_path(["steps", 1, "tokens", "gate"]) == "steps[1].tokens.gate"
    assert format_field_path(["loss/pg"]) == "loss/pg"
    assert format_field_path(["by_task_type", "odd type", "n"]) == 'by_task_type["odd type"].n'
    assert format_field_path([]) == ""


# -- writer → reader ---------------------------------------------------------------------------------------------


def _environment() -> RunEnvironment:
    return RunEnvironment(
        pid=os.getpid(),
        host="test",
        versions={"trainer": "0.1.0", "python": "3.11"},
        device={"kind": "cpu", "name": "cpu", "count": 0},
    )


def _writer(tmp_path: Path, **kwargs) -> RunWriter:
    experiment = tmp_path / "exp.seed.yaml"
    experiment.write_text("name: t\nmodel: {path: m}\n", encoding="utf-8")
    return RunWriter.create(
        tmp_path / "runs",
        name="t exp",
        stage="train",
        algorithm="seed",
        config={"name": "t"},
        experiment_path=experiment,
        environment=_environment(),
        schemas=SCHEMAS,
        **kwargs,
    )


def _trajectory(update: int, teacher: bool = True) -> dict:
    ids = [151643, 0, -5, 2**31 - 1]
    logp = [-0.001, -2.5, -0.1, -7.25]
    arrays = TokenArrays(ids=ids, text=["<", "act", "ion", ">"], logp=logp)
    if teacher:
        teacher_logp = [-0.002, -0.5, -0.3, -7.0]
        delta = [t - s for t, s in zip(teacher_logp, logp)]
        arrays = TokenArrays(
            ids=ids,
            text=arrays.text,
            logp=logp,
            teacher_logp=teacher_logp,
            delta=delta,
            gate=[1 / (1 + math.exp(-5 * d)) for d in delta],
        )
    return {
        "phase": "train",
        "update": update,
        "task": {"id": "q1", "type": "heat"},
        "group": 0,
        "sample": 0,
        "success": False,
        "reward": 0.0,
        "length": 1,
        "skill": {"text": "Look first.", "summary": None, "valid": True, "source": "self"} if teacher else None,
        "steps": [
            {
                "t": 0,
                "observation": "Ünïcode → room",
                "response": "<action>",
                "action": None,
                "valid": False,
                "score": -0.1,
                "advantage": -1.2,
                "tokens": arrays,
            }
        ],
    }


def test_writer_reader_round_trip(tmp_path):
    writer = _writer(tmp_path)
    run_dir = writer.run_dir
    assert run_dir.name.endswith("-train-t-exp") and writer.manifest["experiment"]["path"] == "../../exp.seed.yaml"
    writer.metrics(
        1,
        "update",
        {
            "success/overall": 0.5,
            metric_name("success", "pick and place"): 1.0,
            "loss/opd": float("nan"),
            "loss/kl": None,
        },
    )
    rows = [writer.trajectory(_trajectory(1)), writer.trajectory(_trajectory(1, teacher=False))]
    writer.metrics(2, "update", {"success/overall": 0.0})  # a train update's row comes before its trajectories
    rows.append(writer.trajectory(_trajectory(2)))
    writer.skill(
        {
            "id": "s1",
            "trajectory": None,
            "task": {"id": "q1", "type": "heat"},
            "success": True,
            "reward": 1.0,
            "length": 2,
            "source": "external",
            "summary": "s",
            "skill": "k",
            "valid": True,
            "reason": None,
        }
    )
    writer.write_eval(
        {
            "split": "test",
            "step": 2,
            "overall": {"success": 0.25, "n": 4},
            "by_task_type": {"heat": {"success": 0.25, "n": 4}},
            "episodes": [{"task": {"id": "q1", "type": "heat"}, "success": False, "reward": 0.0, "length": 30}],
        }
    )
    writer.finish("completed")

    reader = RunReader(run_dir, schemas=SCHEMAS)
    manifest = reader.manifest()
    assert manifest["status"] == "completed" and manifest["ended"] and manifest["pid"] == os.getpid()
    row = reader.metrics()[0]
    assert row["success/pick_and_place"] == 1.0 and row["loss/opd"] is None and row["loss/kl"] is None
    assert [e["type"] for e in reader.events()] == ["started", "finished"]
    assert [r["id"] for r in reader.trajectory_index()] == ["it-000001-0001", "it-000001-0002", "it-000002-0001"]
    assert rows[0]["teacher"] and not rows[1]["teacher"] and rows[1]["skill"] is None
    assert (rows[0]["offset"], rows[1]["offset"]) == (0, rows[0]["size"])
    record = reader.trajectory("it-000001-0001")
    assert record["steps"][0]["observation"] == "Ünïcode → room"
    arrays = reader.tokens(record["steps"][0])
    original = _trajectory(1)["steps"][0]["tokens"]
    assert arrays.ids == original.ids and arrays.text == original.text
    for name in ("logp", "teacher_logp", "delta", "gate"):
        assert getattr(arrays, name) == [f32(v) for v in getattr(original, name)]
    assert reader.skills()[0]["review"] == {"state": "pending"}
    assert reader.eval_splits() == ["test"]
    assert check_run(run_dir, SCHEMAS).ok


def test_writer_refuses_bad_records_without_touching_disk(tmp_path):
    writer = _writer(tmp_path)
    with pytest.raises(RunFormatError) as info:
        writer.skill(
            {
                "id": "s",
                "trajectory": None,
                "task": {"id": "q", "type": "t"},
                "success": True,
                "reward": 1,
                "length": 1,
                "source": "self",
                "summary": None,
                "skill": None,
                "valid": False,
                "reason": None,
            }
        )
    assert (info.value.kind, info.value.file, info.value.line, info.value.field) == (
        "schema",
        "skills.jsonl",
        1,
        "reason",
    )
    assert writer.paths.skills.read_bytes() == b""
    with pytest.raises(RunFormatError) as info:
        writer.trajectory({**_trajectory(1), "success": "no"})
    assert (info.value.file, info.value.line, info.value.field) == ("trajectories/it-000001.jsonl", 1, "success")
    assert writer.paths.trajectory_file("it-000001.jsonl").read_bytes() == b""
    assert not writer.paths.trajectory_index.exists()
    manifest = writer.paths.manifest.read_bytes()
    with pytest.raises(RunFormatError) as info:
        writer.update_manifest(status="paused")
    assert info.value.field == "status"
    assert writer.paths.manifest.read_bytes() == manifest and writer.manifest["status"] == "running"


def test_metric_names_are_namespaced(tmp_path):
    with pytest.raises(ValueError, match="namespaced"):
        metric_name("success")
    writer = _writer(tmp_path)
    with pytest.raises(ValueError, match="namespaced"):
        writer.metrics(1, "update", {"success": 0.5})
    with pytest.raises(TypeError):
        writer.metrics(1, "update", {"success/overall": "0.5"})


def test_run_ids_are_unique(tmp_path):
    # one instant for both: the id holds the second, and two runs made across a second's boundary differ anyway
    instant = lambda: "2026-03-01T12:00:00.123Z"  # noqa: E731
    first, second = _writer(tmp_path, clock=instant), _writer(tmp_path, clock=instant)
    assert first.run_dir != second.run_dir and second.run_dir.name == f"{first.run_dir.name}-2"


def test_checkpoint_is_renamed_into_place_and_removed_on_failure(tmp_path):
    writer = _writer(tmp_path)
    with pytest.raises(RuntimeError):
        with writer.checkpoint(5) as directory:
            (directory / "model.safetensors").write_bytes(b"x")
            raise RuntimeError("disk full")
    assert not any(writer.paths.checkpoints.iterdir())
    for content in (b"one", b"two"):
        with writer.checkpoint(5) as directory:
            assert directory.name.startswith(".tmp-")
            (directory / "model.safetensors").write_bytes(content)
    assert [p.name for p in writer.paths.checkpoints.iterdir()] == ["step-000005"]
    assert (writer.paths.checkpoint(5) / "model.safetensors").read_bytes() == b"two"
    events = RunReader(writer.run_dir, schemas=SCHEMAS).events()
    assert [e["path"] for e in events if e["type"] == "checkpoint"] == ["checkpoints/step-000005"] * 2


def test_stop_requests(tmp_path):
    writer = _writer(tmp_path)
    assert not writer.stop_requested()
    writer.paths.control.write_bytes(b"")
    assert writer.stop_requested()
    write_json_atomic(writer.paths.control, {"request": "stop", "time": "2026-01-01T00:00:00Z"})
    assert writer.stop_requested()
    writer.begin_stop("control")
    writer.begin_stop("control")
    assert writer.manifest["status"] == "stopping"
    writer.finish("stopped")
    types = [e["type"] for e in RunReader(writer.run_dir, schemas=SCHEMAS).events()]
    assert types == ["started", "stop_requested", "finished"]


def test_exception_inside_with_marks_the_run_failed(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with _writer(tmp_path) as writer:
            1 / 0  # noqa: B018
    reader = RunReader(writer.run_dir, schemas=SCHEMAS)
    assert reader.manifest()["status"] == "failed" and "ZeroDivisionError" in reader.manifest()["error"]
    assert [e["type"] for e in reader.events()][-2:] == ["error", "finished"]


def test_events_are_echoed_as_json_lines(tmp_path, capsys):
    import sys

    writer = _writer(tmp_path, echo=sys.stdout)
    writer.event("warning", "careful", code="x")
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["started", "warning"]


# -- atomic writes and JSONL -------------------------------------------------------------------------------------


def test_run_json_is_replaced_atomically(tmp_path):
    writer = _writer(tmp_path)
    stop, seen, bad = threading.Event(), [], []

    def read_continuously():
        while not stop.is_set():
            try:
                seen.append(json.loads(writer.paths.manifest.read_bytes())["progress"]["step"])
            except (json.JSONDecodeError, KeyError) as exc:  # a half-written file would land here
                bad.append(exc)

    thread = threading.Thread(target=read_continuously)
    thread.start()
    try:
        for step in range(1, 151):
            writer.set_progress(step, 150)
    finally:
        stop.set()
        thread.join()
    assert not bad and seen and seen == sorted(seen)
    # no temporary file left; the space reserve is the live writer's (§10, "A full disk")
    assert sorted(p.name for p in writer.run_dir.iterdir() if p.name.startswith(".")) == [layout.SPACE_RESERVE]


def test_atomic_write_leaves_the_old_file_when_replace_fails(tmp_path, monkeypatch):
    target = tmp_path / "run.json"
    write_json_atomic(target, {"a": 1})

    def failing_replace(*args):
        raise OSError("no")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_json_atomic(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 1} and [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_appender_cuts_a_torn_tail_and_counts_lines(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":2}\n{"a":')
    assert read_jsonl(path).torn.line == 3
    with JsonlAppender(path) as appender:
        assert appender.repaired == 5 and appender.lines == 2
        placed = appender.append({"a": 3, "s": "é"})
    assert (placed.line, placed.offset) == (3, 16)
    assert path.read_bytes()[placed.offset : placed.offset + placed.size] == '{"a":3,"s":"é"}\n'.encode()
    result = read_jsonl(path)
    assert result.values == [{"a": 1}, {"a": 2}, {"a": 3, "s": "é"}] and result.torn is None


def test_a_bad_line_in_the_middle_is_a_located_error(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a":1}\n\n{"a":\n{"a":3}\n')
    with pytest.raises(RunFormatError) as info:
        read_jsonl(path, "x.jsonl")
    assert (info.value.kind, info.value.line) == ("invalid_json", 3) and str(info.value).startswith(f"{path}:3:")


# -- token arrays ------------------------------------------------------------------------------------------------


def test_token_arrays_round_trip():
    values = [0.0, -0.0, 1.5, -1e-8, 3.4e38, float("inf"), -20.123456789]
    assert decode_float32(encode_float32(values)) == [f32(v) for v in values]
    ints = [0, 1, -1, 2**31 - 1, -(2**31), 151643]
    assert decode_int32(encode_int32(ints)) == ints
    assert encode_int32([]) == "" and decode_float32("") == []
    assert encode_int32([1]) == "AQAAAA==" and encode_float32([1.0]) == "AACAPw=="  # little-endian
    assert math.isnan(decode_float32(encode_float32([float("nan")]))[0])
    for count in range(0, 9):
        assert len(encode_int32(range(count))) == base64_length(count)


def test_token_arrays_reject_inconsistent_input():
    with pytest.raises(ValueError, match="not valid base64"):
        decode_float32("AAA*")
    with pytest.raises(ValueError, match="4-byte"):
        decode_int32("AAA=")
    with pytest.raises(ValueError, match="text has 1 items"):
        TokenArrays(ids=[1, 2], text=["a"])
    with pytest.raises(ValueError, match="together"):
        TokenArrays(ids=[1], text=["a"], logp=[0.0], teacher_logp=[0.0])
    encoded = TokenArrays(ids=[1, 2], text=["a", "b"], logp=[0.1, 0.2]).encode()
    with pytest.raises(ValueError, match="logp"):
        TokenArrays.decode({**encoded, "logp": encode_float32([0.1])})
    with pytest.raises(ValueError, match="delta"):
        TokenArrays.decode({**encoded, "teacher_logp": encoded["logp"], "gate": encoded["logp"]})


def test_token_arrays_accept_tensors():
    torch = pytest.importorskip("torch")
    arrays = TokenArrays(ids=torch.tensor([3, 4]), text=["a", "b"], logp=torch.tensor([-0.5, -1.25]))
    assert arrays.encode() == TokenArrays(ids=[3, 4], text=["a", "b"], logp=[-0.5, -1.25]).encode()


class ByteTokenizer:
    """Byte-level ids; decoding a prefix that ends inside a character yields U+FFFD, as HF tokenizers do."""

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, ids) -> str:
        return bytes(ids).decode("utf-8", errors="replace")


def test_token_pieces_join_to_the_text_and_hold_whole_characters():
    tokenizer = ByteTokenizer()
    text = "go to café → 1 🎉!"
    pieces = token_pieces(tokenizer.decode, tokenizer.encode(text))
    assert "".join(pieces) == text and len(pieces) == len(text.encode("utf-8"))
    assert "\ufffd" not in "".join(pieces)
    assert pieces[text.encode().index("é".encode()) : text.encode().index("é".encode()) + 2] == ["", "é"]


def test_gate_baseline_travels_beside_the_gate_and_is_length_checked():
    """What an OPD estimator subtracted from g (`opd.estimator` centred / baseline / expected): optional, float32,
    `count` items, and only beside the teacher arrays."""
    from seed_trainer.runlog.tokens import token_array_problems

    arrays = TokenArrays(
        ids=[5, 6],
        text=["a", "b"],
        logp=[-0.5, -1.0],
        teacher_logp=[-0.4, -1.2],
        delta=[0.1, -0.2],
        gate=[0.62, 0.27],
        gate_baseline=[0.5, 0.5],
    )
    encoded = arrays.encode()
    assert TokenArrays.decode(encoded).gate_baseline == [0.5, 0.5]
    assert token_array_problems({**encoded, "gate_baseline": encoded["ids"][:4]})[0][0] == "gate_baseline"
    without_gate = {k: v for k, v in encoded.items() if k not in ("teacher_logp", "delta", "gate")}
    assert token_array_problems(without_gate) == [
        ("gate_baseline", "present without gate: what was subtracted from g needs g")
    ]
    with pytest.raises(ValueError, match="gate_baseline is recorded only beside gate"):
        TokenArrays(ids=[5], text=["a"], gate_baseline=[0.5])
    # the shared JSON Schema says the same (`dependentRequired`), so the TypeScript reader's check agrees
    from referencing import Registry, Resource

    documents = [json.loads(p.read_text(encoding="utf-8")) for p in (REPO / "schemas").glob("*.schema.json")]
    registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in documents if "$id" in d)
    validator = jsonschema.Draft202012Validator(
        {"$ref": "urn:seed-studio:schema:trajectory#/$defs/tokens"}, registry=registry
    )
    assert not list(validator.iter_errors(encoded))
    assert [e.validator for e in validator.iter_errors(without_gate)] == ["dependentRequired"]


def test_gate_baseline_values_must_be_finite_and_decode():
    """b is ½ or a mean of gates: a NaN, an infinity or bad base64 in `gate_baseline` is an error naming it."""
    from seed_trainer.runlog.tokens import gate_baseline_problem

    good = TokenArrays(
        ids=[5, 6],
        text=["a", "b"],
        logp=[-0.5, -1.0],
        teacher_logp=[-0.4, -1.2],
        delta=[0.1, -0.2],
        gate=[0.62, 0.27],
        gate_baseline=[0.5, 0.25],
    ).encode()
    assert gate_baseline_problem(good) is None
    assert gate_baseline_problem({**good, "gate_baseline": encode_float32([0.5, math.inf])}) == (
        "item 1 is Infinity, not a finite number"
    )
    with pytest.raises(ValueError, match="gate_baseline: item 0 is NaN, not a finite number"):
        TokenArrays.decode({**good, "gate_baseline": encode_float32([math.nan, 0.5])})
    assert "not a whole number of 4-byte items" in gate_baseline_problem({**good, "gate_baseline": "AAAAAAAAAA=="})


def test_baseline_fixture_decodes_gate_baseline_beside_the_gate():
    decoded = EXPECTATIONS["valid-baseline"]["decoded"]
    reader = RunReader(FIXTURES / "valid-baseline", schemas=SCHEMAS)
    assert reader.manifest()["config"]["opd"]["estimator"] == decoded["estimator"] == "baseline"
    arrays = reader.tokens(reader.trajectory(decoded["trajectory"])["steps"][decoded["step"]])
    assert arrays.count == decoded["count"]
    assert arrays.gate[:6] == decoded["gate_head"] and arrays.gate_baseline[:6] == decoded["gate_baseline_head"]
    # b(s) is a mean of gates under π_old: inside [0, 1], and the metric is the mean over the OPD-active tokens
    assert all(0.0 <= b <= 1.0 for b in arrays.gate_baseline)
    active = [
        b
        for t in reader.trajectory_index()
        if t["teacher"]
        for s in reader.trajectory(t)["steps"]
        for b in reader.tokens(s).gate_baseline
    ]
    row = reader.metrics()[0]
    assert row["opd/gate_baseline_mean"] == pytest.approx(sum(active) / len(active), abs=1e-6)


def test_baseline_evals_link_a_train_run_to_its_base_evaluation(tmp_path: Path, capsys) -> None:
    """run.json `baseline_evals` (issue 41): split → the base eval run, relative to the train run, valid against the
    schema and resolved by the reader; `train --baseline-eval` takes the splits from the eval run's reports."""
    from seed_trainer.cli import main
    from seed_trainer.runlog.reader import baseline_evals, baseline_splits

    base = _writer(tmp_path, run_id="base-seen")
    base._manifest["stage"] = "eval"
    base._write_manifest()
    base.write_eval(
        {
            "split": "valid_seen",
            "step": None,
            "overall": {"success": 0.5, "n": 2},
            "by_task_type": {"heat": {"success": 0.5, "n": 2}},
            "episodes": [
                {"task": {"id": "q1", "type": "heat"}, "success": True, "reward": 1.0, "length": 3},
                {"task": {"id": "q2", "type": "heat"}, "success": False, "reward": 0.0, "length": 9},
            ],
        }
    )
    base.finish("completed")
    assert baseline_splits(base.run_dir) == ["valid_seen"]

    train = _writer(tmp_path, run_id="train", baseline_evals={"valid_seen": base.run_dir})
    train.finish("completed")
    manifest = RunReader(train.run_dir, schemas=SCHEMAS).manifest()
    assert manifest["baseline_evals"] == {"valid_seen": "../base-seen"}
    assert RunReader(train.run_dir).baseline_evals()["valid_seen"].resolve() == base.run_dir.resolve()
    assert baseline_evals(base.run_dir) == {}

    # a train run is not a baseline; the CLI refuses it (exit 2) before anything is written
    with pytest.raises(RunFormatError, match="must be an eval run"):
        baseline_splits(train.run_dir)
    experiment = tmp_path / "exp.seed.yaml"
    assert (
        main(["train", str(experiment), "--baseline-eval", str(train.run_dir), "--run-dir", str(tmp_path / "x")]) == 2
    )
    assert "--baseline-eval" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    bad = json.loads((train.run_dir / "run.json").read_text())
    bad["baseline_evals"] = {"valid_seen": ""}
    with pytest.raises(RunFormatError):
        SCHEMAS.validate("run", bad, "run.json")
