"""The stage commands of the command line (`collect`, `sft`, `train`, `eval`, `resume`): each checks its inputs before
any run directory exists (exit 2 and one line on stderr when it cannot run), then runs its stage, which records a
failure in the run directory (exit 1), a Ctrl-C (130) or success (0). cli.py parses the arguments and dispatches.

torch and transformers load only inside each command, once its inputs passed: a refused command stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from seed_trainer.compute.ranks import ranks_from_env
from seed_trainer.experiment.config import ExperimentError
from seed_trainer.experiment.loading import load_experiment


def run_stage_command(run: Callable[[], object]) -> int:
    """Runs a stage; the run directory already records a failure, so the terminal gets one line."""
    try:
        run()
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from seed_trainer.analyzers import AnalyzerError

        if getattr(exc, "reported", False):  # on stderr already (a rank failure under torchrun)
            return 1
        what = f"analyzer: {exc}" if isinstance(exc, AnalyzerError) else f"{type(exc).__name__}: {exc}"
        sys.stderr.write(f"error: {what}\n")
        return 1
    return 0


def checked_experiment(args: argparse.Namespace, *, model: bool = True, environment: bool = True):
    """The experiment of a stage command, its inputs checked before any run directory exists; None (after one line on
    stderr) when it cannot run."""
    from seed_trainer.experiment.preflight import InputError, check_can_create, check_inputs, check_new_run_dir

    try:
        config = load_experiment(args.experiment)
        if ranks_from_env().main:  # under torchrun rank 0 creates the run directory; the others must not race it
            check_new_run_dir(args.run_dir)
            if not args.run_dir:
                check_can_create(config.resolve_path(config.runs_dir), "runs_dir")
        check_inputs(config, model=model, environment=environment)
    except (ExperimentError, InputError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return None
    return config


def run_dir_args(args: argparse.Namespace) -> dict:
    run_dir = Path(args.run_dir) if args.run_dir else None
    return {"runs_dir": run_dir.parent if run_dir else None, "run_id": run_dir.name if run_dir else None}


def cmd_train(args: argparse.Namespace) -> int:
    baselines: dict[str, Path] = {}
    for directory in args.baseline_eval or []:
        from seed_trainer.runlog.errors import RunFormatError
        from seed_trainer.runlog.reader import baseline_splits

        try:
            for split in baseline_splits(directory):
                baselines[split] = Path(directory)
        except RunFormatError as exc:
            sys.stderr.write(f"error: --baseline-eval {directory}: {exc}\n")
            return 2
    config = checked_experiment(args)
    if config is None:
        return 2
    from seed_trainer.stages.train import train  # torch and transformers load only for commands that need them

    return run_stage_command(
        lambda: train(
            config,
            args.experiment,
            echo=sys.stdout,
            progress=sys.stderr.isatty(),
            baseline_evals=baselines or None,
            **run_dir_args(args),
        )
    )


def cmd_collect(args: argparse.Namespace) -> int:
    config = checked_experiment(args)
    if config is None:
        return 2
    from seed_trainer.stages.collect import collect

    return run_stage_command(
        lambda: collect(config, args.experiment, echo=sys.stdout, progress=sys.stderr.isatty(), **run_dir_args(args))
    )


def cmd_sft(args: argparse.Namespace) -> int:
    config = checked_experiment(args, environment=False)  # SFT trains on recorded analyses: no environment runs
    if config is None:
        return 2
    data = Path(args.data) if args.data else (config.resolve_path(config.sft.data) if config.sft.data else None)
    if data is None:
        sys.stderr.write("error: sft: no data — set `sft.data` in the experiment or pass --data RUN_DIR\n")
        return 2
    from seed_trainer.stages.sft import sft, skills_source

    try:
        skills_source(data)
    except FileNotFoundError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    return run_stage_command(
        lambda: sft(
            config, args.experiment, data=data, echo=sys.stdout, progress=sys.stderr.isatty(), **run_dir_args(args)
        )
    )


def cmd_eval(args: argparse.Namespace) -> int:
    if args.checkpoint and not Path(args.checkpoint).is_dir():
        sys.stderr.write(f"error: --checkpoint {args.checkpoint}: not a directory\n")
        return 2
    config = checked_experiment(args, model=not args.checkpoint)
    if config is None:
        return 2
    from seed_trainer.stages.evaluate import evaluate_checkpoint

    return run_stage_command(
        lambda: evaluate_checkpoint(
            config,
            args.experiment,
            split=args.split,
            checkpoint=args.checkpoint,
            echo=sys.stdout,
            **run_dir_args(args),
        )
    )


def cmd_resume(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir)
    if not (run_dir / "run.json").is_file():
        sys.stderr.write(f"error: {run_dir}: not a run directory (no run.json)\n")
        return 2
    from seed_trainer.experiment.preflight import InputError
    from seed_trainer.runlog import RunFormatError
    from seed_trainer.runlog.ownership import RunNotWritableError, RunOwnedError
    from seed_trainer.stages.resume import ResumeError
    from seed_trainer.stages.train import resume  # torch: only once there is a run to resume

    try:
        resume(run_dir, echo=sys.stdout, progress=sys.stderr.isatty(), repair=args.repair)
    except (ResumeError, RunFormatError, ExperimentError, InputError, RunOwnedError, RunNotWritableError) as exc:
        # refused before anything was written
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        sys.stderr.write(f"error: {type(exc).__name__}: {exc}\n")
        return 1
    return 0
