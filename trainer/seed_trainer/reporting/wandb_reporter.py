"""Metrics, config, evaluations and sample trajectories as a Weights & Biases run in `<run>/wandb/`.

Offline unless the user is logged in (an API key in the environment or in ~/.netrc) or chose a mode with WANDB_MODE:
nothing needs the network, and `wandb sync <run>/wandb/offline-run-*` uploads an offline run later.
"""

from __future__ import annotations

import netrc
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from seed_trainer.reporting.records import EVAL_COLUMNS, STEP_COLUMNS, TOKEN_COLUMNS, SampleChooser, eval_rows, scalars

DEFAULT_PROJECT = "seed-studio"
INIT_TIMEOUT = 30.0  # seconds (W&B's own default is 90: a long wait before training starts when the network is down)
#: The x axis of every chart: the run's own step (update, SFT step, collection batch), not W&B's call counter.
STEP_KEY = "step"


def logged_in(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether W&B has credentials on this machine, found without the network."""
    if environ.get("WANDB_API_KEY") or environ.get("WANDB_IDENTITY_TOKEN_FILE"):
        return True
    host = urlparse(environ.get("WANDB_BASE_URL") or "https://api.wandb.ai").hostname or "api.wandb.ai"
    try:
        return netrc.netrc(environ.get("NETRC") or None).authenticators(host) is not None
    except (OSError, netrc.NetrcParseError):
        return False


def choose_mode(environ: Mapping[str, str] = os.environ) -> str | None:
    """`offline` unless the user is logged in or set WANDB_MODE; None leaves the choice to W&B's own settings."""
    return None if environ.get("WANDB_MODE") or logged_in(environ) else "offline"


class WandbReporter:
    name = "wandb"

    def __init__(self, run_dir: Path, manifest: Mapping[str, Any], warn: Callable[[str, str], None]) -> None:
        import wandb

        self._wandb = wandb
        init = dict(
            dir=str(run_dir),
            id=manifest["id"],  # the same W&B run after `resume`
            resume="allow",
            name=manifest["id"],
            project=os.environ.get("WANDB_PROJECT") or DEFAULT_PROJECT,
            group=manifest.get("name"),
            job_type=manifest.get("stage"),
            config={
                **(manifest.get("config") or {}),
                "seed_run": {
                    key: manifest.get(key) for key in ("stage", "algorithm", "experiment", "git_commit", "parent")
                },
            },
            # console off: the trainer's stdout carries its JSON events, nothing else may write there
            # init_timeout: how long an online start may wait for the server before the run logs offline instead;
            # read here because W&B reads its environment only once per process
            settings=wandb.Settings(
                silent=True, console="off", init_timeout=float(os.environ.get("WANDB_INIT_TIMEOUT") or INIT_TIMEOUT)
            ),
        )
        mode = choose_mode()
        try:
            self._run = wandb.init(mode=mode, **init)
        except Exception as exc:
            if mode == "offline":
                raise
            warn(
                f"report_to wandb: could not start an online run ({type(exc).__name__}: {exc}); logging offline to "
                f"wandb/ instead (upload it later with `wandb sync`)",
                "report_offline",
            )
            wandb.teardown()  # forget the failed start, which still holds the run id
            self._run = wandb.init(mode="offline", **init)
        self._run.define_metric(STEP_KEY)
        self._run.define_metric("*", step_metric=STEP_KEY)
        self._samples = SampleChooser()

    def _table(self, columns: list[str], rows: list[list[Any]]) -> Any:
        # mixed types allowed: a column that is null in one row and text in the next must not end the reporting
        return self._wandb.Table(columns=columns, data=rows, allow_mixed_types=True)

    def metrics(self, row: Mapping[str, Any]) -> None:
        self._run.log({STEP_KEY: row["step"], **dict(scalars(row))})

    def trajectory(self, record: Mapping[str, Any]) -> None:
        sample = self._samples.choose(record)
        if sample is None:
            return
        tables = {f"{sample.tag}/steps": self._table(STEP_COLUMNS, sample.steps)}
        if sample.tokens:
            tables[f"{sample.tag}/tokens"] = self._table(TOKEN_COLUMNS, sample.tokens)
        self._run.log({STEP_KEY: sample.step, **tables})

    def eval(self, report: Mapping[str, Any]) -> None:
        table = self._table(EVAL_COLUMNS, eval_rows(report))
        self._run.log({STEP_KEY: int(report.get("step") or 0), f"eval/{report['split']}/by_task_type": table})

    def close(self, status: str) -> None:
        self._run.finish(exit_code=0 if status in ("completed", "stopped") else 1)
