"""Command line of the trainer: `python -m seed_trainer <command>`.

Every stage command reads an experiment file and writes a new run directory (docs/run-format.md), printing each event
as one JSON line on stdout; `resume` continues a run directory; `export` writes a model directory. Exit status: 0 done
(or stopped on request), 1 the run failed (the run directory says why), 2 bad input or a run directory another trainer
owns (nothing written), 130 interrupted.
`validate` checks experiment files under the rules the editor shares: exit 0 when every file is valid, 2 otherwise.
`doctor` reports which optional extras and environments the interpreter can run.

This module parses the arguments, dispatches, and holds the commands that write no run directory (schema, doctor,
validate, export, rescore, export-verl); the stage commands are in stages/commands.py (agent SFT's in
bootstrap/agent_sft_stage.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from seed_trainer import __version__
from seed_trainer.compute.ranks import (  # torch-free: most commands never load torch
    DistributedSetupError,
    ranks_from_env,
)
from seed_trainer.doctor import add_arguments as add_doctor_arguments
from seed_trainer.experiment.config import ExperimentError, experiment_json_schema
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.models import holds_model
from seed_trainer.premise.command import add_arguments as premise_arguments
from seed_trainer.stages.commands import cmd_collect, cmd_eval, cmd_resume, cmd_sft, cmd_train


def _cmd_sft(args: argparse.Namespace) -> int:
    """`sft` as the experiment's `sft.mode` says: hindsight-skill SFT on a collect run's analyses (stages/commands.py),
    or agent SFT on the environment's demonstrations (bootstrap/agent_sft_stage.py, a layer above the stages)."""
    from seed_trainer.bootstrap.agent_sft_stage import cmd_agent_sft, wants_agent_sft

    return cmd_agent_sft(args) if wants_agent_sft(args.experiment) else cmd_sft(args)


def _cmd_schema(args: argparse.Namespace) -> int:
    sys.stdout.write(json.dumps(experiment_json_schema(), indent=2, ensure_ascii=False) + "\n")
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    from seed_trainer.doctor import run

    return run(args)


def _cmd_validate(args: argparse.Namespace) -> int:
    from seed_trainer.experiment.check import check_experiment_file, problem_line

    all_valid = True
    for file in args.files:
        _, problems = check_experiment_file(file)
        all_valid = all_valid and not problems
        if args.json:
            sys.stdout.write(
                json.dumps(
                    {"file": file, "valid": not problems, "problems": [p.as_json() for p in problems]},
                    ensure_ascii=False,
                )
                + "\n"
            )
        else:
            for problem in problems:
                sys.stdout.write(problem_line(file, problem) + "\n")
    return 0 if all_valid else 2


def _cmd_export(args: argparse.Namespace) -> int:
    checkpoint = Path(args.checkpoint)
    if not holds_model(checkpoint):
        sys.stderr.write(
            f"error: --checkpoint {checkpoint}: not a model directory (no config.json or adapter_config.json)\n"
        )
        return 2
    from seed_trainer.export.model_export import export

    try:
        out = export(checkpoint, args.format, args.out)
    except Exception as exc:
        sys.stderr.write(f"error: export failed: {type(exc).__name__}: {exc}\n")
        return 1
    sys.stdout.write(json.dumps({"type": "exported", "format": args.format, "path": str(out)}) + "\n")
    return 0


def _cmd_premise(args: argparse.Namespace) -> int:
    from seed_trainer.premise.command import write_report
    from seed_trainer.runlog import RunFormatError

    try:
        write_report(args)
    except (RunFormatError, OSError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    return 0


def _cmd_rescore(args: argparse.Namespace) -> int:
    from seed_trainer.export.rescore import RescoreError, rescore_run_trajectory
    from seed_trainer.runlog import RunFormatError

    def progress(done: int, total: int) -> None:
        sys.stdout.write(json.dumps({"type": "progress", "done": done, "total": total}) + "\n")
        sys.stdout.flush()

    try:
        content = rescore_run_trajectory(
            args.run_dir, args.trajectory, args.skill, checkpoint=args.checkpoint, device=args.device, progress=progress
        )
    except (RescoreError, RunFormatError, ExperimentError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        sys.stderr.write(f"error: rescore failed: {type(exc).__name__}: {exc}\n")
        return 1
    sys.stdout.write(json.dumps({"type": "whatif", "file": content}, ensure_ascii=False) + "\n")
    return 0


def _cmd_export_verl(args: argparse.Namespace) -> int:
    from seed_trainer.export.verl import default_out_dir, verl_export, write_export

    try:
        config = load_experiment(args.experiment)
    except (ExperimentError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    experiment = Path(args.experiment)
    out_dir = Path(args.out) if args.out else default_out_dir(experiment)
    export = verl_export(config, nnodes=args.nnodes, gpus_per_node=args.gpus_per_node, address=args.address)
    try:
        written = write_export(export, experiment, out_dir)
    except OSError as exc:
        sys.stderr.write(f"error: export-verl: {exc}\n")
        return 2
    print(
        json.dumps(
            {
                "out": str(out_dir),
                "files": [p.name for p in written],
                "overrides": len(export.overrides),
                "unmapped": [u.setting for u in export.unmapped],
            }
        )
    )
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m seed_trainer", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"seed-trainer {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    schema = commands.add_parser("schema", help="print the JSON Schema of the experiment file")
    schema.set_defaults(func=_cmd_schema)

    doctor = commands.add_parser(
        "doctor", help="which optional extras and environments this interpreter can run, and how to get the rest"
    )
    add_doctor_arguments(doctor)
    doctor.set_defaults(func=_cmd_doctor)

    validate = commands.add_parser(
        "validate", help="check experiment files: FILE:LINE:COLUMN: field: message per problem; exit 0 valid, 2 not"
    )
    validate.add_argument("files", nargs="+", metavar="FILE", help="experiment files (*.seed.yaml)")
    validate.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per file: {file, valid, problems: [{message, field, source, range}]}",
    )
    validate.set_defaults(func=_cmd_validate)

    def stage(name: str, help: str, func) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help)
        sub.add_argument("experiment", help="the experiment file (*.seed.yaml)")
        sub.add_argument("--run-dir", help="the run directory to create (default: <runs_dir>/<generated id>)")
        sub.set_defaults(func=func)
        return sub

    stage("collect", "Stage 1: roll out the base policy and analyze every trajectory (skills.jsonl)", cmd_collect)
    sft = stage(
        "sft",
        "Stage 1: SFT on the analyses of a collect run, or (sft.mode: agent) on the environment's demonstrations; "
        "writes <run>/model",
        _cmd_sft,
    )
    sft.add_argument("--data", help="the collect run directory (or its skills.jsonl); default: sft.data")
    train = stage("train", "Stage 2: SEED (or a baseline) from an experiment file", cmd_train)
    train.add_argument(
        "--baseline-eval",
        action="append",
        metavar="RUN_DIR",
        help="an eval run of the starting policy, recorded in run.json `baseline_evals` for a "
        "before/after beside this run's own evaluation (repeat for each split)",
    )
    evaluate = stage("eval", "evaluate a checkpoint on a split with the plain prompt", cmd_eval)
    evaluate.add_argument("--checkpoint", help="checkpoint or HF model directory (default: model.path)")
    evaluate.add_argument("--split", required=True, help="the split, e.g. valid_seen or valid_unseen")

    resume = commands.add_parser(
        "resume", help="continue a stopped or interrupted train run from its latest checkpoint"
    )
    resume.add_argument("run_dir", metavar="RUN_DIR", help="the run directory")
    resume.add_argument(
        "--repair",
        action="store_true",
        help="drop corrupt lines in what the checkpoint keeps (saved beside the file as <name>.corrupt) "
        "instead of refusing to resume",
    )
    resume.set_defaults(func=cmd_resume)

    export = commands.add_parser("export", help="export a checkpoint as an HF model directory or ONNX")
    export.add_argument("--checkpoint", required=True, help="checkpoint, SFT output or HF model directory")
    export.add_argument("--format", required=True, choices=["hf", "onnx"])
    export.add_argument("--out", help="output directory (default: <run>/exports/<checkpoint>-<format>)")
    export.set_defaults(func=_cmd_export)

    rescore = commands.add_parser(
        "rescore",
        help="what-if: the gates of a trajectory's tokens under other skills, scored on the run's device; "
        "prints progress lines, then {type: whatif, file} (schemas/whatif.schema.json)",
    )
    rescore.add_argument("run_dir", metavar="RUN_DIR", help="the run directory")
    rescore.add_argument("--trajectory", required=True, help="the trajectory's id (trajectories/index.jsonl)")
    rescore.add_argument("--skill", required=True, action="append", help="a skill text to try (repeat for several)")
    rescore.add_argument(
        "--checkpoint",
        help="the weights (default: those that scored the trajectory — checkpoint "
        "step-(k-1) for update k, the run's model for update 1 and Stage 1)",
    )
    rescore.add_argument("--device", help="cpu, cuda, cuda:N (default: the run's model.device)")
    rescore.set_defaults(func=_cmd_rescore)

    premise = commands.add_parser(
        "premise",
        help="premise check before training: does a hindsight skill raise the log-probability of what worked and "
        "lower that of mistakes? forward passes only; writes a JSON report (schemas/premise.schema.json)",
    )
    premise_arguments(premise)
    premise.set_defaults(func=_cmd_premise)

    verl = commands.add_parser(
        "export-verl",
        help="write verl-agent's Hydra overrides and the `ray job submit` command "
        "for a multi-node run of the experiment (see mapping.md for what has no counterpart)",
    )
    verl.add_argument("experiment", help="the experiment file (*.seed.yaml)")
    verl.add_argument("--out", help="output folder (default: <experiment>-verl beside the experiment file)")
    verl.add_argument("--nnodes", type=_positive, default=1, help="nodes of the Ray cluster (default 1)")
    verl.add_argument("--gpus-per-node", type=_positive, default=8, help="GPUs per node (default 8)")
    verl.add_argument("--address", default="http://127.0.0.1:8265", help="Ray dashboard address of the head node")
    verl.set_defaults(func=_cmd_export_verl)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C before a stage takes it as a stop request (importing torch, checking inputs)
        return 130


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        ranks = ranks_from_env()
    except DistributedSetupError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    if ranks.distributed and args.func not in (cmd_train, cmd_resume) and not ranks.main:
        # only Stage 2 shares its work across processes; rank 0 runs the other commands alone
        sys.stderr.write(
            f"rank {ranks.rank}: `{args.command}` runs in one process (rank 0); this rank has nothing to do\n"
        )
        return 0
    return int(args.func(args))
