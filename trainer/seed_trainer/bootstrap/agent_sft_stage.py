"""Agent SFT as a Stage-1 run (`sft.mode: agent`): `python -m seed_trainer sft EXPERIMENT` trains the experiment's
model to act on the household's demonstrations (bootstrap/agent_sft.py's recipe) and writes an `sft` run directory —
the same stage, the same `<run>/model/` the next experiment takes as `model.path`, the same metrics rows and stop
handling as the hindsight-skill SFT of stages/sft.py.

The recipe is read from the experiment so that the model learns the prompt it will act with: `rollout.prompt_format`
picks the layout (`step` → one sequence per step; `chat` → packed episodes, each step's prompt truncated to
`rollout.max_prompt_tokens`), and `rollout.history`, `memory` and `max_steps`, `model` (device and dtype; all weights
are trained, `model.lora` must be null) and `seed` are the experiment's; `sft.agent` holds the rest. Every `sft.agent.eval_every` steps it measures the teacher-forced
next-action accuracy on the dev states (an `iteration` event) and keeps its weights and optimizer in
`<run>/model.partial/`; a stop request ends the run there (`stopped`), and
`python -m seed_trainer.bootstrap.agent_sft <run>/model` with the recipe of the run's `agent_sft` event continues it.

It lives in bootstrap/ (above stages/, which it uses) because the demonstrations are the bootstrap's data; the `sft`
command reaches it through cli.py.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from seed_trainer.bootstrap.agent_sft import AgentSftConfig

if TYPE_CHECKING:
    from seed_trainer.experiment.config import ExperimentConfig

MODEL_DIR = "model"  # as stages/sft.py's: the run's output


def wants_agent_sft(experiment: str) -> bool:
    """Whether the experiment file asks for agent SFT; False when it cannot be read (the `sft` command says why)."""
    from seed_trainer.experiment.config import ExperimentError
    from seed_trainer.experiment.loading import load_experiment

    try:
        return load_experiment(experiment).sft.mode == "agent"
    except (ExperimentError, OSError):
        return False


def recipe(config: ExperimentConfig) -> AgentSftConfig:
    """bootstrap/agent_sft.py's settings for this experiment (module docstring)."""
    agent, rollout = config.sft.agent, config.rollout
    chat = rollout.prompt_format == "chat"
    base = config.model.path  # a built-in name or a hub id as written, a local folder relative to the experiment
    if not base.startswith("builtin:") and config.resolve_path(base).exists():
        base = str(config.resolve_path(base))
    return AgentSftConfig(
        base=base,
        seed=config.seed,
        episodes=agent.episodes,
        history=rollout.history,
        memory=rollout.memory,
        max_steps=rollout.max_steps,
        skill_share=agent.skill_share,
        analysis_share=agent.analysis_share,
        steps=agent.steps,
        batch_size=agent.batch_size,
        lr=agent.lr,
        warmup=agent.warmup,
        weight_decay=agent.weight_decay,
        max_length=agent.max_length,
        dtype=config.model.dtype,
        save_every=agent.eval_every,
        train_invalid=agent.train_invalid,
        freeze_layers=agent.freeze_layers,
        dev_states=agent.dev_states,
        layout="packed" if chat else "step",
        max_prompt_tokens=rollout.max_prompt_tokens if chat else AgentSftConfig.max_prompt_tokens,  # chat only
    )


def cmd_agent_sft(args: argparse.Namespace) -> int:
    """The `sft` command of an experiment with `sft.mode: agent` (its inputs checked before any run directory)."""
    from seed_trainer.stages.commands import checked_experiment, run_dir_args, run_stage_command

    config = checked_experiment(args)
    if config is None:
        return 2
    if args.data:
        sys.stderr.write(
            "error: sft: --data names analyses to train on; with `sft.mode: agent` the data are the environment's "
            "demonstrations\n"
        )
        return 2
    return run_stage_command(
        lambda: agent_sft_run(
            config, args.experiment, echo=sys.stdout, progress=sys.stderr.isatty(), **run_dir_args(args)
        )
    )


def agent_sft_run(
    config: ExperimentConfig,
    experiment_path: str | Path,
    *,
    runs_dir: str | Path | None = None,
    run_id: str | None = None,
    echo: TextIO | None = sys.stdout,
    progress: bool = False,
) -> Path:
    """Runs agent SFT in a new run directory (stage `sft`) and returns it; the trained model is `<run>/model/`."""
    from seed_trainer.stages.common import create_run, run_stage, runs_dir_for

    writer = create_run(
        config, experiment_path, runs_dir_for(config, runs_dir), stage="sft", run_id=run_id, echo=echo, parent=None,
        progress_unit="sft_step",
    )  # fmt: skip
    run_stage(writer, lambda stop: _agent_sft(config, writer, stop, progress))
    return writer.run_dir


def _agent_sft(config: ExperimentConfig, writer, stop, progress: bool) -> None:
    from seed_trainer.bootstrap.agent_sft import Hooks, agent_sft
    from seed_trainer.stages.common import progress_bar

    settings = recipe(config)
    total = settings.steps
    writer.event(
        "info",
        f"agent SFT: {settings.episodes} demonstration episodes, {settings.layout} layout, {total} steps of "
        f"{settings.batch_size}",
        code="agent_sft",
        recipe={k: v for k, v in asdict(settings).items() if k != "save_every"},
    )
    writer.set_progress(0, total=total, unit="sft_step")

    def on_step(step: int, loss: float, lr: float, seconds: float) -> None:
        writer.metrics(step, "sft", {"loss/sft": loss, "optim/lr": lr, "time/step": seconds})
        writer.set_progress(step)
        if progress:
            progress_bar(step, total, f"loss {loss:.4f}")

    def on_accuracy(step: int, accuracy: float, states: int) -> None:
        writer.event(
            "iteration",
            f"agent SFT step {step}/{total}: dev greedy next-action accuracy {accuracy:.3f} ({states} states)",
            step=step,
            total=total,
        )

    def should_stop() -> bool:
        if stop.signal or writer.stop_requested():
            writer.begin_stop("signal" if stop.signal else "control", signal=stop.signal)
            return True
        return False

    model = config.resolved_model()
    out = agent_sft(
        writer.run_dir / MODEL_DIR,
        settings,
        echo=None,
        model=model,
        hooks=Hooks(step=on_step, accuracy=on_accuracy, stop=should_stop),
    )
    if out is None:
        writer.finish(
            "stopped", f"stopped; weights and optimizer in {MODEL_DIR}.partial/ (bootstrap.agent_sft resumes)"
        )
        return
    writer.event(
        "model",
        f"model after agent SFT step {total} saved to {MODEL_DIR}/ (use it as model.path)",
        step=total,
        path=writer.paths.relative(out),
    )
    writer.finish("completed", f"agent SFT completed: {total} steps; model in {MODEL_DIR}/")
