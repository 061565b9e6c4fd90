"""`report_to`: the run's metrics, config, evaluations and sample trajectories also go to TensorBoard and/or W&B.

The reporters hang on the RunWriter, so only the process that writes the run directory reports (rank 0 under
torchrun), in every stage. Neither is ever required: one that cannot be imported or started is left out with a
`warning` event (code `report_unavailable`), one that fails later is dropped (`report_failed`, runlog/report_hooks.py).
"""

from __future__ import annotations

from seed_trainer.runlog import RunWriter

INSTALL_HINT = {"tensorboard": "pip install tensorboard", "wandb": "pip install wandb"}


def _open(name: str, writer: RunWriter):
    manifest = writer.manifest
    if name == "tensorboard":
        from seed_trainer.reporting.tensorboard_reporter import TensorBoardReporter

        return TensorBoardReporter(writer.run_dir, manifest)
    if name == "wandb":
        from seed_trainer.reporting.wandb_reporter import WandbReporter

        return WandbReporter(
            writer.run_dir, manifest, lambda message, code: writer.event("warning", message, code=code)
        )
    raise ValueError(f"unknown report_to backend {name!r}")


def attach_reporters(writer: RunWriter) -> None:
    """Start the backends the run's config lists in `report_to` and attach them to `writer`."""
    names = (writer.manifest.get("config") or {}).get("report_to") or []
    for name in dict.fromkeys(names):
        try:
            writer.add_reporter(_open(name, writer))
        except Exception as exc:
            hint = (
                f" (install it: {INSTALL_HINT[name]})" if isinstance(exc, ImportError) and name in INSTALL_HINT else ""
            )
            writer.event(
                "warning",
                f"report_to {name}: not reporting to it in this run: {type(exc).__name__}: {exc}{hint}",
                code="report_unavailable",
            )
