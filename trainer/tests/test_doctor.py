"""`python -m seed_trainer doctor`: the report follows schemas/doctor.schema.json, lists exactly the extras of
pyproject.toml, says what is missing with the command that installs it, and finds ALFWorld's data where
ALFWORLD_DATA points; it also runs from the trainer folder before the trainer is installed."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from seed_trainer.doctor import EXTRAS, HIDE_VARIABLE, describe, report

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "schemas" / "doctor.schema.json").read_text(encoding="utf-8"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (HIDE_VARIABLE, "ALFWORLD_DATA")}
    return {**env, **extra}


def _doctor(*args: str, cwd: Path | None = None, **env: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", *args, "--json"], check=True, capture_output=True, text=True, cwd=cwd, env=_env(**env)
    ).stdout
    assert out.count("\n") == 1, "one JSON line"
    return json.loads(out)


def _by_name(items: list[dict]) -> dict[str, dict]:
    return {item["name"]: item for item in items}


def test_cli_report_follows_the_schema_and_lists_the_pyproject_extras():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11")
    import tomllib

    found = _doctor("seed_trainer", "doctor")
    jsonschema.Draft202012Validator(SCHEMA).validate(found)
    declared = tomllib.loads((REPO / "trainer" / "pyproject.toml").read_text(encoding="utf-8"))
    extras = set(declared["project"]["optional-dependencies"]) - {"test"}
    assert set(_by_name(found["extras"])) == extras == set(EXTRAS)
    assert found["python"]["executable"] == sys.executable


def test_installed_follows_the_interpreter_and_the_hide_variable_hides():
    shown = _by_name(report(_env())["environments"])
    has_textworld = importlib.util.find_spec("textworld") is not None
    assert shown["textworld"]["installed"] is has_textworld
    assert shown["household"] == {"name": "household", "extra": None, "installed": True, "install": None}
    hidden = report(_env(**{HIDE_VARIABLE: "textworld, onnx"}))
    extras, envs = _by_name(hidden["extras"]), _by_name(hidden["environments"])
    assert envs["textworld"]["installed"] is False
    assert envs["textworld"]["install"] == "pip install 'seed-trainer[textworld]'"
    assert extras["textworld"]["missing"] == ["textworld"]
    assert "onnx" in extras["export"]["missing"] and extras["export"]["installed"] is False
    lines = "\n".join(describe(hidden))
    assert "textworld    needs pip install 'seed-trainer[textworld]'" in lines


def test_alfworld_data_is_looked_for_where_alfworld_data_points(tmp_path):
    empty = _by_name(report(_env(ALFWORLD_DATA=str(tmp_path)))["environments"])["alfworld"]["data"]
    assert empty["found"] is False and empty["path"] == str(tmp_path) and "alfworld-download" in empty["how"]
    (tmp_path / "json_2.1.1").mkdir()
    assert _by_name(report(_env(ALFWORLD_DATA=str(tmp_path)))["environments"])["alfworld"]["data"]["found"] is True


def test_runs_from_the_trainer_folder_as_the_editor_runs_it(tmp_path):
    """The editor runs `python -m seed_trainer.doctor --json` in the trainer folder it ships, also before Set Up
    Trainer has installed anything: only the standard library may be needed."""
    found = _doctor("seed_trainer.doctor", cwd=REPO / "trainer", **{HIDE_VARIABLE: "textworld"})
    jsonschema.Draft202012Validator(SCHEMA).validate(found)
    assert _by_name(found["environments"])["textworld"]["installed"] is False
    script = (
        "import sys, builtins; real = builtins.__import__\n"
        "def guard(name, *a, **k):\n"
        "    if name.split('.')[0] in {'pydantic', 'torch', 'yaml', 'transformers', 'jsonschema'}:\n"
        "        raise ImportError('not installed: ' + name)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = guard\n"
        "import runpy; sys.argv = ['doctor', '--json']; runpy.run_module('seed_trainer.doctor', run_name='__main__')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True, cwd=REPO / "trainer", env=_env()
    ).stdout
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(out))
