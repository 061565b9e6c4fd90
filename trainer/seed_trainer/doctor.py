"""`python -m seed_trainer doctor [--json]`: what this interpreter can run — which optional extras are installed, and
for each built-in environment whether its extra and its data are there, with the command that fixes what is missing.

The editor asks this (as `python -m seed_trainer.doctor --json`, from the trainer folder it ships, so it also answers
before the trainer is installed) to flag an experiment whose environment cannot start, and to offer the extras in
"SEED: Set Up Trainer". The JSON report follows schemas/doctor.schema.json. Standard library only, and nothing is
imported to find out whether it is installed (`importlib.util.find_spec`): the report takes a fraction of a second.

`SEED_DOCTOR_HIDE_MODULES` (comma-separated module names) makes the report treat those modules as missing. It exists
for tests of the editor, which must see a missing extra in an interpreter that has it; it changes nothing else.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from seed_trainer import __version__
from seed_trainer.envs.catalog import ENVIRONMENTS

HIDE_VARIABLE = "SEED_DOCTOR_HIDE_MODULES"

# The optional extras of trainer/pyproject.toml (all but `test`) with what each is for and the modules it provides;
# tests/test_doctor.py holds this table to pyproject.toml.
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "textworld": ("Generated TextWorld games: the `textworld` environment (games made offline by tw-make).",
                  ("textworld",)),
    "alfworld": ("ALFWorld's text games: the `alfworld` environment; then `alfworld-download` fetches its data.",
                 ("alfworld",)),
    "tensorboard": ("`report_to: [tensorboard]`: metrics and sample trajectories to TensorBoard.", ("tensorboard",)),
    "wandb": ("`report_to: [wandb]`: metrics and sample trajectories to Weights & Biases.", ("wandb",)),
    "export": ("ONNX export of a checkpoint (`export --format onnx`), for the editor's what-if on the CPU.",
               ("onnx", "onnxruntime")),
}


def install_command(extra: str) -> str:
    return f"pip install 'seed-trainer[{extra}]'"


def _importable(module: str, hidden: set[str]) -> bool:
    if module in hidden:
        return False
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken package counts as missing
        return False


def report(environ: dict[str, str] | None = None) -> dict[str, Any]:
    environ = dict(os.environ if environ is None else environ)
    hidden = {name.strip() for name in environ.get(HIDE_VARIABLE, "").split(",") if name.strip()}
    extras = []
    for name, (purpose, modules) in EXTRAS.items():
        missing = [module for module in modules if not _importable(module, hidden)]
        extras.append({"name": name, "purpose": purpose, "modules": list(modules), "installed": not missing,
                       "missing": missing, "install": install_command(name)})
    environments = []
    for entry in ENVIRONMENTS:
        item: dict[str, Any] = {"name": entry.name, "extra": entry.extra,
                                "installed": entry.module is None or _importable(entry.module, hidden),
                                "install": entry.install_command()}
        if entry.data:
            path = Path(environ.get(entry.data.variable) or entry.data.default).expanduser()
            item["data"] = {"variable": entry.data.variable, "path": str(path),
                            "found": (path / entry.data.marker).is_dir(), "marker": entry.data.marker,
                            "option": entry.data.option, "how": entry.data.how}
        environments.append(item)
    return {
        "python": {"executable": sys.executable, "version": platform.python_version()},
        "trainer": {"version": __version__},
        "extras": extras,
        "environments": environments,
    }


def describe(found: dict[str, Any]) -> list[str]:
    """The report for a terminal, one line per extra and environment."""
    lines = [f"Python {found['python']['version']} ({found['python']['executable']}), seed-trainer {found['trainer']['version']}",
             "Extras:"]
    for extra in found["extras"]:
        state = "installed" if extra["installed"] else f"missing ({extra['install']})"
        lines.append(f"  {extra['name']:<12} {state} — {extra['purpose']}")
    lines.append("Environments:")
    for env in found["environments"]:
        problems = [] if env["installed"] else [f"needs {env['install']}"]
        data = env.get("data")
        if data and not data["found"]:
            problems.append(f"no {data['marker']}/ under {data['path']} (${data['variable']}): {data['how']}")
        lines.append(f"  {env['name']:<12} {'ready' if not problems else '; '.join(problems)}")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON object (schemas/doctor.schema.json)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m seed_trainer.doctor", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    found = report()
    sys.stdout.write(json.dumps(found, ensure_ascii=False) + "\n" if args.json else "\n".join(describe(found)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
