"""What the tests run on: the device (`SEED_TEST_DEVICE=cuda|cpu`, default what `device: auto` picks), the compute
dtypes of the dtype-parametrised tests (`SEED_TEST_DTYPE`, default fp32 and bf16, so dtype bugs show on a CPU), their
tolerances, and the environment of the trainer subprocesses the tests start."""

from __future__ import annotations

import importlib.util
import os
import signal
from pathlib import Path
from types import ModuleType

import yaml

TESTS = Path(__file__).resolve().parent
BENCH = TESTS.parents[2] / "bench"

DTYPES = [os.environ["SEED_TEST_DTYPE"]] if os.environ.get("SEED_TEST_DTYPE") else ["float32", "bfloat16"]

# Log-prob agreement between two scorings of the same tokens (different padding, batch composition or kernels):
# fp32 is exact to rounding; bf16 autocast keeps ~3 significant digits in every matmul.
LOGP_ATOL = {"float32": 1e-5, "bfloat16": 5e-2, "float16": 2e-2}


def subprocess_env(**extra: str) -> dict[str, str]:
    """This process's environment with the tests folder prepended to PYTHONPATH (never replacing it: an
    interpreter may get its packages from PYTHONPATH)."""
    env = {**os.environ, **extra}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p)
    return env


def bench_module(name: str) -> ModuleType:
    """The script bench/<kind>/<name>.py imported as a module (bench/ is folders of scripts by kind, not a package)."""
    (path,) = BENCH.glob(f"*/{name}.py")
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sigint_as_in_a_terminal() -> None:
    """preexec_fn for a subprocess a test sends SIGINT to: Ctrl-C's default action, as a shell gives it. A pytest-xdist
    worker ignores SIGINT, the ignoring is inherited through exec, and Python installs its KeyboardInterrupt handler
    only where SIGINT is not ignored at startup."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def counter_experiment(tmp_path: Path, model_dir: Path, algorithm: str, **extra) -> Path:
    """A one-update Stage-2 experiment of `algorithm` on the counter environment with the tiny policy (and a two-file
    skill bank for `sdar`); `extra` replaces whole sections."""
    bank = tmp_path / "bank"
    bank.mkdir(exist_ok=True)
    (bank / "general.md").write_text("Read the admissible actions before acting.", encoding="utf-8")
    (bank / "counting.md").write_text("Add one until the counter shows the target, then finish.", encoding="utf-8")
    data = {
        "name": f"tiny-{algorithm}",
        "seed": 3,
        "algorithm": algorithm,
        "updates": 1,
        "model": {"path": str(model_dir)},
        "environment": {"name": "counter"},
        "rollout": {
            "tasks_per_update": 2,
            "group_size": 2,
            "max_steps": 2,
            "history": 1,
            "max_prompt_tokens": 256,
            "max_response_tokens": 6,
        },
        "analyzer": {"max_tokens": 12},
        "rl": {"mini_batch_size": 4, "micro_batch_size": 2, "lr": 1e-4},
        "sdar": {"skill_bank": "bank"} if algorithm == "sdar" else {},
        **extra,
    }
    path = tmp_path / f"{algorithm}.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path
