"""Shared fixtures: a tiny local Hugging Face policy (no downloads) and a small deterministic environment."""

from __future__ import annotations

import os
import re

# One intra-op thread for torch here and in every trainer subprocess a test starts: the tiny models gain nothing from
# more, and spinning thread pools slow the suite down several times over when other processes share the cores. Under
# pytest-xdist (`-n N`, as `npm test` runs this suite) every worker is one process per core: one thread each, whatever
# the environment says.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["OMP_NUM_THREADS"] = "1"
else:
    os.environ.setdefault("OMP_NUM_THREADS", "1")

# SEED_TEST_DEVICE=cpu hides CUDA from this process and every trainer subprocess, so `device: auto` picks the CPU;
# =cuda insists on a CUDA device.
if os.environ.get("SEED_TEST_DEVICE") == "cpu":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""

# The test helpers in support/ (testenv, counter_env, …) are importable by name: pyproject.toml's `pythonpath`.
import pytest
import torch
from testenv import DTYPES

if os.environ.get("PYTEST_XDIST_WORKER"):
    torch.set_num_threads(1)  # in case something imported torch before the variable above was set

from counter_env import CounterTasks

from seed_trainer.envs import register
from seed_trainer.models.tiny import save_tiny_policy

CORPUS = [
    "Your task is to: set the counter to 3. The counter shows 0. add one. finish. Nothing happens.",
    "<think>The counter shows 2, the target is 3, so I add one.</think><action>add one</action>",
    "<think>The counter already shows the target.</think><action>finish</action>",
    '{"episode_summary": "reached the target", "episode_skill": "add one until the counter shows the target, then finish"}',
    "Admissible actions: add one, finish. Now it's your turn to take an action.",
    "**Episode-Level Skill** Use this skill for the current episode.",
] * 20


@pytest.fixture(scope="session")
def tiny_policy_dir(tmp_path_factory):
    return save_tiny_policy(tmp_path_factory.mktemp("tiny-policy"), CORPUS, vocab_size=400)


def pytest_configure(config):
    if os.environ.get("SEED_TEST_DEVICE") == "cuda" and not torch.cuda.is_available():
        raise pytest.UsageError("SEED_TEST_DEVICE=cuda but torch sees no CUDA device")


@pytest.fixture(params=DTYPES)
def compute_dtype(request) -> str:
    """The `model.dtype` of a dtype-parametrised test (fp32 and bf16 unless SEED_TEST_DTYPE names one)."""
    return request.param


@pytest.fixture
def counter_tasks():
    return CounterTasks()


register("counter", lambda **_: CounterTasks())  # in-process tests; subprocesses use counter_env:CounterTasks


# The real model (smollm2_support.py): converted once per session; the tests that use it point SEED_CACHE at it.
from smollm2_support import HEAVY_MARK, HEAVY_REASON, HEAVY_VARIABLE, convert_for_session  # noqa: E402


@pytest.fixture(scope="session")
def smollm2(tmp_path_factory):
    converted = convert_for_session(tmp_path_factory)
    previous = os.environ.get("SEED_CACHE")
    os.environ["SEED_CACHE"] = str(converted.cache)  # builtin:smollm2-… resolves there, here and in subprocesses
    yield converted
    if previous is None:
        os.environ.pop("SEED_CACHE", None)
    else:
        os.environ["SEED_CACHE"] = previous
    if converted.seconds is not None:  # this session's conversion: 540 MB that pytest would keep for 3 sessions
        import shutil

        shutil.rmtree(converted.cache, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    # The heavy real-model suite runs on request (npm run test:smollm2 sets the variable; npm test deselects it by its
    # marker); a plain pytest run skips it with its reason, which -ra prints, so that run says what it left out.
    if os.environ.get(HEAVY_VARIABLE) == "1":
        return
    skip = pytest.mark.skip(reason=HEAVY_REASON)
    for item in items:
        if HEAVY_MARK in item.keywords:
            item.add_marker(skip)


# Under CI, in npm test's run of this suite (scripts/test.mjs sets SEED_STRICT_SKIPS=1 when CI is set), a skip must be
# about a device this machine lacks (a GPU, CUDA): a skip that names a missing package or a privilege means the setup
# left something out or the test cannot run anywhere, and a green run would hide it. (The vLLM, verl and heavy
# SmolLM2 suites run in interpreters of their own, where some tests of the main suite skip by design.)
DEVICE_REASON = re.compile(r"\b(GPU|CUDA|device)s?\b", re.IGNORECASE)
_ci_skips: list[str] = []


def pytest_runtest_logreport(report):
    if os.environ.get("SEED_STRICT_SKIPS") == "1" and report.skipped and not hasattr(report, "wasxfail"):
        reason = str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr)
        if not DEVICE_REASON.search(reason):
            _ci_skips.append(f"{report.nodeid}: {reason.removeprefix('Skipped: ')}")


def pytest_sessionfinish(session, exitstatus):
    if _ci_skips and exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    if _ci_skips:
        terminalreporter.section("skips that CI does not accept (the reason names no missing device)")
        for line in _ci_skips:
            terminalreporter.line(f"FAILED (skip under CI) {line}")
