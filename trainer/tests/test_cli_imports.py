"""The commands the editor calls often (schema, validate, doctor, export-verl) and a stage or a what-if rescoring refused
for bad input never import torch: it costs seconds per call. They run in one fresh interpreter (this one has torch loaded already), each
through the CLI's own `main`, and the first command that loads torch is named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TRAINER = Path(__file__).resolve().parents[1]
REPO = TRAINER.parent
EXAMPLE = REPO / "examples" / "household-demo.seed.yaml"

# Runs each argv through seed_trainer.cli.main and prints one JSON line per command: its exit status and whether
# torch was imported by then.
PROBE = """
import contextlib, io, json, sys
from seed_trainer.cli import main
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    print(json.dumps({"argv": argv, "code": code, "torch": "torch" in sys.modules}))
"""


def test_light_commands_do_not_import_torch(tmp_path):
    commands = [
        (["--version"], 0),
        (["schema"], 0),
        (["doctor", "--json"], 0),
        (["validate", str(EXAMPLE)], 0),
        (["validate", "--json", str(tmp_path / "missing.seed.yaml")], 2),
        (["export-verl", str(EXAMPLE), "--out", str(tmp_path / "verl")], 0),
        (["train", str(tmp_path / "missing.seed.yaml")], 2),
        (["resume", str(tmp_path)], 2),
        (["export", "--checkpoint", str(tmp_path), "--format", "hf"], 2),
        # what-if rescoring refused for its input: a control character in the skill, a folder that is no run
        (["rescore", str(tmp_path), "--trajectory", "x", "--skill", "look\u0007"], 2),
        (["rescore", str(tmp_path), "--trajectory", "x", "--skill", "x"], 2),
        # the premise check refused for its input
        (["premise", "--model", str(tmp_path / "missing"), "--out", str(tmp_path / "p.json")], 2),
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TRAINER), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([argv for argv, _ in commands])],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["argv"] for r in results] == [argv for argv, _ in commands], out.stderr
    for result, (argv, code) in zip(results, commands):
        assert result["code"] == code, f"{argv}: exit {result['code']}, expected {code}"
        assert not result["torch"], f"python -m seed_trainer {argv}: imported torch"
    assert (tmp_path / "verl" / "overrides.txt").is_file()  # export-verl did its work, not an early exit
