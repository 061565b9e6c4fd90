"""What every stage shares: stop handling, seeding, rollout metrics, per-token text and plain trajectory records."""

from __future__ import annotations

import os
import random
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import torch

from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.models.builtin import CONVERTED_MODELS, builtin_name
from seed_trainer.reporting import attach_reporters
from seed_trainer.rl.rollout import Episode
from seed_trainer.runlog import RunWriter, TokenArrays, metric_name


class StopFlag:
    """Set by SIGINT/SIGTERM; a stage checks it (and the control file) at every step boundary."""

    def __init__(self) -> None:
        self.signal: str | None = None

    def install(self) -> Callable[[], None]:
        previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

        def handler(signum, _frame):
            self.signal = signal.Signals(signum).name

        for sig in previous:
            signal.signal(sig, handler)
        return lambda: [signal.signal(sig, old) for sig, old in previous.items()]


def runs_dir_for(config: ExperimentConfig, runs_dir: str | Path | None) -> Path:
    """The folder new runs go to: the caller's, else the experiment's `runs_dir` (relative to the experiment file)."""
    return Path(runs_dir) if runs_dir is not None else config.resolve_path(config.runs_dir)


def create_run(
    config: ExperimentConfig,
    experiment_path: str | Path,
    runs_dir: Path,
    *,
    stage: str,
    run_id: str | None,
    echo: TextIO | None,
    parent: dict[str, Any] | None,
    progress_unit: str,
    progress_total: int | None = None,
    baseline_evals: dict[str, Path] | None = None,
) -> RunWriter:
    """A new run directory of `stage` for this experiment, its resolved config recorded in run.json."""
    return RunWriter.create(
        runs_dir,
        name=config.name,
        stage=stage,
        algorithm=config.algorithm,
        config=config.model_dump(mode="json", by_alias=True),
        experiment_path=Path(experiment_path),
        run_id=run_id,
        parent=parent,
        baseline_evals=baseline_evals,
        progress_total=progress_total,
        progress_unit=progress_unit,
        echo=echo,
    )


def run_stage(
    writer: RunWriter, body: Callable[[StopFlag], None], *, describe: Callable[[BaseException], str] | None = None
) -> None:
    """Runs a stage's body with SIGINT/SIGTERM turned into a stop flag it checks at step boundaries. Any exception
    ends the run as `failed` (with `describe(exc)` as the error, default `Type: message`) and is re-raised. The
    backends of the config's `report_to` get the run's records too (seed_trainer/reporting)."""
    attach_reporters(writer)  # before our signal handlers, so that a backend's own handlers cannot replace them
    stop = StopFlag()
    restore_signals = stop.install()
    try:
        convert_model_first(writer)
        body(stop)
    except BaseException as exc:
        message = describe(exc) if describe is not None else None
        try:
            writer.finish("failed", error=message or f"{type(exc).__name__}: {exc}", detail=traceback.format_exc())
        except Exception:
            writer.close()
        raise
    finally:
        restore_signals()


def convert_model_first(writer: RunWriter) -> None:
    """A converted built-in model (SmolLM2) not yet in its cache is converted before the stage's work, as a progress
    step of its own (phase `convert`): the run's views say what the half minute is spent on instead of showing
    update 0. Nothing happens for any other model, or once the cache holds it."""
    path = (writer.manifest.get("config") or {}).get("model", {}).get("path")
    name = builtin_name(path) if isinstance(path, str) else None
    if name not in CONVERTED_MODELS:
        return
    model = CONVERTED_MODELS[name]
    from seed_trainer.models.smollm2 import cache_problem, converted_dir, ensure_converted

    if cache_problem(model, converted_dir(model)) is None:
        return
    writer.event(
        "progress",
        f"converting {model.title} once (~{model.converted_mb} MB, about half a minute on one CPU core)",
        phase="convert",
        done=0,
        total=1,
    )
    ensure_converted(model)
    writer.event("progress", f"converted {model.title}", phase="convert", done=1, total=1)


def seed_everything(seed: int) -> random.Random:
    torch.manual_seed(seed)
    random.seed(seed)
    return random.Random(seed)


class EnvironmentFailures(RuntimeError):
    """Every episode of a batch failed in its environment: nothing to learn from or measure."""


def drop_failed_episodes(
    writer: RunWriter | None, episodes: Sequence[Episode], where: str, step: int | None = None
) -> tuple[list[Episode], dict[str, float]]:
    """The episodes whose environment did not fail, and the metric counting those that did. Each failed one (a dead,
    slow or broken environment server) gets a `warning` event (`code: environment_failure`) and is left out of the
    update, the analyses and the evaluation — the environment failed, not the policy. When all failed, the stage fails."""
    failed = [e for e in episodes if e.error is not None]
    if writer is not None:
        for episode in failed:
            writer.event(
                "warning",
                f"{where}: episode {episode.task.id} (copy {episode.index}) failed: {episode.error}",
                code="environment_failure",
                **({"step": step} if step is not None else {}),
            )
    if episodes and len(failed) == len(episodes):
        raise EnvironmentFailures(
            f"{where}: all {len(episodes)} episodes failed in the environment; the first: {failed[0].error}"
        )
    kept = [e for e in episodes if e.error is None]
    return kept, ({"episode/environment_failures": float(len(failed))} if failed else {})


def rollout_metrics(episodes: Sequence[Episode]) -> dict[str, float]:
    """Success (overall and per task type), mean length, valid- and admissible-action ratios, response tokens per step."""
    metrics = {"success/overall": sum(e.won for e in episodes) / max(len(episodes), 1)}
    by_type: dict[str, list[bool]] = {}
    for episode in episodes:
        by_type.setdefault(episode.task.type, []).append(episode.won)
    for task_type, outcomes in sorted(by_type.items()):
        metrics[metric_name("success", task_type)] = sum(outcomes) / len(outcomes)
    steps = [s for e in episodes for s in e.steps]
    metrics["episode/length"] = len(steps) / max(len(episodes), 1)
    metrics["episode/valid_action_ratio"] = sum(s.valid for s in steps) / max(len(steps), 1)
    metrics["episode/response_tokens"] = sum(len(s.response_ids) for s in steps) / max(len(steps), 1)
    listed = [s for s in steps if s.admissible_actions]
    if listed:  # only environments that list their admissible actions (household, ALFWorld, TextWorld)
        # The tiny policy's main failure is acting outside the list ("Nothing happens."), often in a loop: this is
        # the behaviour RL and the skills should remove, visible long before success resolves.
        metrics["episode/admissible_action_ratio"] = sum(s.action in s.admissible_actions for s in listed) / len(listed)
    scores = [e.score for e in episodes if e.score is not None]
    if scores:  # the environment's own task score (WebShop's), next to the 0/1 success
        metrics["episode/task_score"] = sum(scores) / len(scores)
    return metrics


class TokenText:
    """Each token's own text for the heatmap (the extension has no tokenizer); memoised per id."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer, self.cache = tokenizer, {}

    def __call__(self, ids: Sequence[int]) -> list[str]:
        missing = [i for i in set(ids) if i not in self.cache]
        for token_id, text in zip(missing, self.tokenizer.batch_decode([[i] for i in missing])):
            self.cache[token_id] = text
        return [self.cache[i] for i in ids]


def plain_trajectory_record(
    episode: Episode,
    *,
    phase: str,
    update: int | None,
    token_text: TokenText,
    group: int | None = None,
    prompts: bool = False,
) -> dict:
    """A trajectory record without training arrays (collection and evaluation): steps with their sampled tokens, and
    with `prompts` their prompts h_t (collection: the skill review's what-if rebuilds teacher prompts from them)."""
    steps = [
        {
            "t": step.t,
            **({"prompt": step.prompt} if prompts else {}),
            "observation": step.observation,
            "response": step.response,
            "action": step.action if step.valid else None,
            "valid": step.valid,
            "prompt_tokens": len(step.prompt_ids),
            "truncated": step.truncated,
            "tokens": TokenArrays(ids=step.response_ids, text=token_text(step.response_ids)),
        }
        for step in episode.steps
    ]
    task = episode.task
    return {
        "phase": phase,
        "update": update,
        "task": {"id": task.id, "type": task.type, "description": task.description, "split": task.split},
        "group": episode.group if group is None else group,
        "sample": episode.index,
        "success": episode.won,
        "reward": 1.0 if episode.won else 0.0,
        "length": len(episode.steps),
        "final_observation": episode.final_observation,
        "steps": steps,
    }


def progress_bar(done: int, total: int, text: str) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {text}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def parent_of(model_dir: Path, runs_dir: Path) -> dict[str, str] | None:
    """`{run, checkpoint}` for a run's manifest when the model directory lies in another run (`<run>/model`,
    `<run>/checkpoints/step-N`); the path is relative to the new run directory (a sibling inside `runs_dir`)."""
    resolved = Path(model_dir).resolve()
    for run in (resolved.parent, resolved.parent.parent):
        if (run / "run.json").exists():
            try:
                checkpoint = Path(os.path.relpath(resolved, (Path(runs_dir) / "_").resolve())).as_posix()
            except ValueError:  # another drive (Windows)
                checkpoint = str(resolved)
            return {"run": run.name, "checkpoint": checkpoint}
    return None
