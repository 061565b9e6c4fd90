"""The shared corpus of experiment files (test/fixtures/experiments/): the trainer's verdict on each is the one in
expectations.json, which the editor's test (test/unit/experiments/experimentCorpus.test.ts) checks too; and `validate`
prints it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from seed_trainer.experiment.check import check_experiment_bytes, check_experiment_file
from seed_trainer.experiment.config import ExperimentError
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.experiment.text import MAX_BYTES

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "test" / "fixtures" / "experiments"
EXPECTED = json.loads((CORPUS / "expectations.json").read_text(encoding="utf-8"))["files"]


def test_every_corpus_file_has_an_expectation():
    assert sorted(p.name for p in CORPUS.glob("*.seed.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_verdict(name):
    expected = EXPECTED[name]
    _, problems = check_experiment_file(CORPUS / name)
    if expected["valid"]:
        assert problems == [], f"{name}: {[p.message for p in problems]}"
        return
    assert problems, f"{name} was accepted ({expected['why'] or 'expected an error'})"
    first = problems[0]
    if expected["line"] is not None:
        assert (first.span.start[0] + 1, first.span.start[1] + 1) == (expected["line"], expected["column"]), first
    assert first.field == expected["field"], first
    assert expected["message_includes"] in first.message, first


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if not e["valid"]))
def test_load_experiment_refuses_with_a_located_error(name):
    with pytest.raises(ExperimentError) as info:
        load_experiment(CORPUS / name)
    assert str(info.value).startswith(f"{CORPUS / name}:")


def test_size_limit_is_checked_before_anything_else():
    _, problems = check_experiment_bytes(b"name: x\n#" + b"\xff" * MAX_BYTES)
    assert len(problems) == 1 and "limited to 1048576 bytes" in problems[0].message and problems[0].source == "limit"
    _, problems = check_experiment_bytes(b"name: x\nmodel: {path: m}\n#" + b"x" * (MAX_BYTES - 30))
    assert problems == []


def test_validate_command_prints_located_lines_and_exits_2(capsys):
    from seed_trainer.cli import main

    invalid = CORPUS / "unknown-key.seed.yaml"
    run = subprocess.run(
        [sys.executable, "-m", "seed_trainer", "validate", str(invalid)], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert run.stdout == f"{invalid}:5:3: rollout.group_sise: is not a known field (did you mean `group_size`?)\n"
    # the rest through the same cli.main in this process (each interpreter start with torch costs seconds)
    valid = CORPUS / "valid-minimal.seed.yaml"
    assert main(["validate", "--json", str(valid), str(invalid)]) == 2
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["valid"] for r in rows] == [True, False]
    assert rows[1]["problems"][0]["range"]["start"] == {"line": 4, "character": 2}
    assert main(["validate", str(valid)]) == 0
    assert capsys.readouterr().out == ""


def test_cross_field_rules_hold_for_a_run_json_config_too():
    from seed_trainer.experiment.loading import experiment_from_data

    with pytest.raises(ExperimentError, match=r"analyzer\.kind: `external` needs"):
        experiment_from_data({"name": "x", "model": {"path": "m"}, "analyzer": {"kind": "external"}}, ".", "run.json")
