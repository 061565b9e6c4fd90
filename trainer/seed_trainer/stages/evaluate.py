"""Evaluation: the policy plays a split's tasks with the plain prompt — never a skill, no analyzer (DESIGN §2).

`evaluate_policy` is used both by the `eval` command (`evaluate_checkpoint`, a run directory of stage `eval`) and every
`eval.every` updates inside Stage 2. The tasks are the same at every evaluation (fixed by `seed`), and the sampling
runs on a forked RNG seeded from `seed`, so an evaluation neither depends on nor disturbs the training RNG stream
(resume stays exact whether or not evaluations happen).
"""

from __future__ import annotations

import sys
import time
import zlib
from pathlib import Path
from typing import Any, TextIO

import torch

from seed_trainer.checkpoints.checkpoint import STATE_FILE, load_checkpoint_policy, read_state
from seed_trainer.compute.engines import Generator, open_engine
from seed_trainer.compute.policy import Policy
from seed_trainer.envs import make_task_source
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.rl.rollout import Episode, play_episodes
from seed_trainer.runlog import RunWriter, metric_name
from seed_trainer.stages.common import (
    StopFlag,
    TokenText,
    create_run,
    drop_failed_episodes,
    parent_of,
    plain_trajectory_record,
    rollout_metrics,
    run_stage,
    runs_dir_for,
)


def _summary(episodes: list[Episode]) -> dict[str, Any]:
    return {
        "success": sum(e.won for e in episodes) / len(episodes) if episodes else 0.0,
        "n": len(episodes),
        "mean_length": sum(len(e.steps) for e in episodes) / len(episodes) if episodes else 0.0,
    }


def evaluate_policy(
    policy: Policy,
    source: Any,
    config: ExperimentConfig,
    split: str,
    *,
    step: int | None,
    writer: RunWriter | None = None,
    checkpoint: str | None = None,
    token_text: TokenText | None = None,
    generator: Generator | None = None,
) -> dict[str, Any]:
    """Play `eval.tasks` tasks of `split` × `eval.episodes_per_task`; returns the eval/<split>.json report.

    With a writer: each episode goes to trajectories/eval-<split>.jsonl (its `update` is `step`), the report to
    eval/<split>.json, a `kind: eval` metrics row and an `eval` event. `generator`: the engine that generates instead
    of the policy (`rollout.engine: vllm`).
    """
    started = time.perf_counter()
    settings, ro = config.eval, config.rollout
    specs = source.sample(split, settings.tasks, seed=config.seed, task_types=config.environment.task_types)
    devices = [policy.device] if policy.device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(config.seed * 1_000_003 + zlib.crc32(split.encode("utf-8")))
        episodes = play_episodes(
            policy,
            source,
            specs,
            group_size=settings.episodes_per_task,
            max_steps=ro.max_steps,
            history_length=ro.history,
            max_prompt_tokens=ro.max_prompt_tokens,
            max_response_tokens=ro.max_response_tokens,
            temperature=settings.temperature,
            greedy=settings.greedy,
            generator=generator,
            memory=ro.memory,
            prompt_format=ro.prompt_format,
        )
    episodes, failures = drop_failed_episodes(writer, episodes, f"evaluation on {split}", step=step)
    by_type: dict[str, list[Episode]] = {}
    for episode in episodes:
        by_type.setdefault(episode.task.type, []).append(episode)
    report: dict[str, Any] = {
        "split": split,
        "step": step,
        "checkpoint": checkpoint,
        "overall": _summary(episodes),
        "by_task_type": {task_type: _summary(group) for task_type, group in sorted(by_type.items())},
        "episodes": [],
    }
    token_text = token_text or TokenText(policy.tokenizer)
    for episode in episodes:
        entry = {
            "task": {"id": episode.task.id, "type": episode.task.type, "split": episode.task.split},
            "success": episode.won,
            "reward": 1.0 if episode.won else 0.0,
            "length": len(episode.steps),
        }
        if writer is not None:
            # with its prompts h_t: What if… rebuilds the teacher's prompt from them (evaluation trajectories too)
            record = plain_trajectory_record(episode, phase="eval", update=step, token_text=token_text, prompts=True)
            entry["trajectory"] = writer.trajectory(record, file=f"eval-{split}.jsonl")["id"]
        report["episodes"].append(entry)
    if writer is not None:
        values = rollout_metrics(episodes) | failures
        values["time/eval"] = time.perf_counter() - started
        writer.metrics(step or 0, "eval", values, split=split)
        path = writer.write_eval(report)
        success = report["overall"]["success"]
        writer.event(
            "eval",
            f"{split}: success {success:.3f} over {len(episodes)} episodes" + (f" (update {step})" if step else ""),
            split=split,
            path=writer.paths.relative(path),
            success=success,
            **({"step": step} if step is not None else {}),
        )
    return report


def evaluate_checkpoint(
    config: ExperimentConfig,
    experiment_path: str | Path,
    *,
    split: str,
    checkpoint: str | Path | None = None,
    runs_dir: str | Path | None = None,
    run_id: str | None = None,
    echo: TextIO | None = sys.stdout,
) -> Path:
    """The `eval` command: a run directory of stage `eval` holding eval/<split>.json for `checkpoint` (a Stage-2
    checkpoint, an SFT output or any HF model directory; default `model.path`). Returns the run directory."""
    runs_dir = runs_dir_for(config, runs_dir)
    model_dir = Path(checkpoint) if checkpoint is not None else None
    step = None
    if model_dir is not None and (model_dir / STATE_FILE).exists():
        step = int(read_state(model_dir)["update"])
    parent = parent_of(model_dir if model_dir is not None else config.resolve_path(config.model.path), runs_dir)
    writer = create_run(
        config,
        experiment_path,
        runs_dir,
        stage="eval",
        run_id=run_id,
        echo=echo,
        parent=parent,
        progress_total=1,
        progress_unit="split",
    )

    def body(_stop: StopFlag) -> None:  # one split: a stop request cannot shorten it
        source = make_task_source(config.environment.name, **config.environment.options)
        model = config.resolved_model()
        if model_dir is not None:
            policy = load_checkpoint_policy(model_dir, device=model.device, dtype=model.dtype)
        else:
            policy = Policy.load(model, with_reference=False, trainable=False)
        engine = open_engine(policy, config)
        writer.event("progress", f"evaluating {split}", phase="eval", done=0, total=1)
        report = evaluate_policy(
            policy,
            source,
            config,
            split,
            step=step,
            writer=writer,
            checkpoint=str(model_dir) if model_dir is not None else config.model.path,
            generator=engine,
        )
        metrics = {metric_name("success", t): s["success"] for t, s in report["by_task_type"].items()}
        writer.set_progress(1)
        overall = report["overall"]
        writer.finish(
            "completed",
            f"{split}: success {overall['success']:.3f} (n = {overall['n']}); "
            + ", ".join(f"{name} {value:.3f}" for name, value in metrics.items()),
        )

    run_stage(writer, body)
    return writer.run_dir
