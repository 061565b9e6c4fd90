"""The trainer's structure (docs/trainer.md, "Map"): the import contracts in trainer/pyproject.toml hold, and no
module takes a private name from another. Each check is also run on a copy of the package with one violation added,
so a check that cannot fail would show here."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

TRAINER = Path(__file__).resolve().parents[1]
PACKAGE = TRAINER / "seed_trainer"


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """import-linter over the `seed_trainer` found in `root`, with the contracts of root/pyproject.toml."""
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)


def private_imports(package: Path) -> list[str]:
    """`module: from other import _name` for every private name a module of `package` imports from another of its
    modules (relative imports resolved). A private name is the module's own business; another module that needs it
    means the name is public or the code is in the wrong module."""
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        importer = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        here = parts[:-1]  # the package a relative import starts from
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = list(here[: len(here) - node.level + 1])
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith(package.name) or source == importer:
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{importer}: from {source} import {alias.name}")
    return found


def test_import_contracts_hold():
    result = lint_imports(TRAINER)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "2 kept, 0 broken" in result.stdout


def test_no_module_imports_another_modules_private_name():
    assert private_imports(PACKAGE) == []


def _package_copy(tmp_path: Path) -> Path:
    root = tmp_path / "trainer"
    shutil.copytree(PACKAGE, root / "seed_trainer", ignore=shutil.ignore_patterns("assets", "__pycache__"))
    shutil.copy(TRAINER / "pyproject.toml", root / "pyproject.toml")
    return root


def test_contracts_break_on_an_upward_import_or_a_cycle(tmp_path):
    root = _package_copy(tmp_path)
    losses = root / "seed_trainer" / "algo" / "losses.py"
    # algo is the bottom layer; a lazy import counts as much as one at the top of the file
    losses.write_text(
        losses.read_text(encoding="utf-8") + "\n\ndef _late():\n    from seed_trainer.runlog import RunReader\n"
    )
    result = lint_imports(root)
    assert result.returncode != 0
    assert "seed_trainer.algo.losses -> seed_trainer.runlog" in " ".join(result.stdout.split())
    assert "1 kept, 1 broken" in result.stdout

    root = _package_copy(tmp_path / "cycle")
    estimators = root / "seed_trainer" / "algo" / "estimators.py"  # algo.losses imports it
    estimators.write_text(
        estimators.read_text(encoding="utf-8") + "\n\ndef _late():\n    from seed_trainer.algo import losses\n"
    )
    result = lint_imports(root)
    assert result.returncode != 0 and "1 kept, 1 broken" in result.stdout, result.stdout[-3000:]


def test_private_name_check_finds_absolute_and_relative_imports(tmp_path):
    package = tmp_path / "seed_trainer"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text("_hidden = 1\nfrom . import a\n")
    (package / "sub" / "b.py").write_text("from .a import _hidden\nfrom seed_trainer.sub.a import __all__\n")
    (package / "c.py").write_text("from seed_trainer.sub.a import _hidden as h\nfrom .sub import a\n")
    assert private_imports(package) == [
        "seed_trainer.c: from seed_trainer.sub.a import _hidden",
        "seed_trainer.sub.b: from seed_trainer.sub.a import _hidden",
    ]


# Size guards (the extension's are eslint's max-lines and max-lines-per-function): a module past 400 lines or a function
# past 120 holds more than one thing a reader keeps in view. The exceptions, each with its reason:
LONG_FILES = {
    "experiment/config.py": "a declarative table: one pydantic field per setting with its description, the schema's source",
}
LONG_FUNCTIONS: dict[str, str] = {}


def oversized(package: Path) -> tuple[list[str], list[str]]:
    """(modules over 400 lines, functions over 120 lines) of `package`, as paths relative to it (`path:function`)."""
    files, functions = [], []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 400:
            files.append(name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 120:
                functions.append(f"{name}:{node.name}")
    return files, functions


def test_modules_and_functions_within_the_size_guards():
    files, functions = oversized(PACKAGE)
    assert sorted(set(files) - set(LONG_FILES)) == [], "over 400 lines: split it, or list it with its reason"
    assert sorted(set(functions) - set(LONG_FUNCTIONS)) == [], "over 120 lines: split it by what its parts do"
    assert sorted(set(LONG_FILES) - set(files)) == [] and sorted(set(LONG_FUNCTIONS) - set(functions)) == [], (
        "an exception that no longer applies: take it off the list"
    )


def test_size_guard_counts_lines_of_files_and_functions(tmp_path):
    (tmp_path / "long.py").write_text("x = 1\n" * 401)
    body = "".join(f"    a{i} = {i}\n" for i in range(120))
    (tmp_path / "f.py").write_text(f"def short():\n{body[: len(body) // 2]}\n\ndef long():\n{body}")
    assert oversized(tmp_path) == (["long.py"], ["f.py:long"])
