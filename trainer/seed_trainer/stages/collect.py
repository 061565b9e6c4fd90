"""Stage-1 collection (DESIGN §2): the base policy plays M tasks × K0 rollouts, an analyzer writes one hindsight skill
per trajectory, and every analysis — valid or not — becomes one line of skills.jsonl for review and SFT.

M = `collect.tasks_per_type` × the task types (all of the environment's, or `environment.task_types`). Tasks are
played `collect.tasks_per_batch` at a time (each × K0 in lockstep); a batch is one trajectories/collect-NNNNNN.jsonl
file and one `kind: collect` metrics row. Order on disk: a trajectory line, its index row, then its skill record.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

from seed_trainer.algo.skill_relevance import relevance_metrics
from seed_trainer.analyzers import Analysis, Analyzer, AnalyzerError, make_analyzer
from seed_trainer.compute.policy import Policy
from seed_trainer.envs import make_task_source
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.runlog import RunWriter
from seed_trainer.stages.common import (
    StopFlag,
    TokenText,
    create_run,
    drop_failed_episodes,
    parent_of,
    plain_trajectory_record,
    progress_bar,
    rollout_metrics,
    run_stage,
    runs_dir_for,
    seed_everything,
)


def collection_tasks(source: Any, config: ExperimentConfig) -> list[Any]:
    """The M task specs: `tasks_per_type` of each task type, deterministic in `seed`."""
    task_types = list(config.environment.task_types or source.task_types)
    specs: list[Any] = []
    for number, task_type in enumerate(task_types):
        seed = config.seed * 1_000_003 + 500_000 + number  # apart from Stage 2's per-update seeds
        specs.extend(
            source.sample(config.collect.split, config.collect.tasks_per_type, seed=seed, task_types=[task_type])
        )
    return specs


def skill_of(analysis: Analysis, source: str) -> dict[str, Any]:
    """The trajectory's `skill` object."""
    parse = analysis.parse
    skill = {
        "text": parse.skill or None,
        "summary": parse.summary or None,
        "valid": parse.valid,
        "source": source,
        "reason": None if parse.valid else (parse.reason or "invalid"),
    }
    if analysis.raw is not None:
        skill["raw"] = analysis.raw
    return skill


def skill_record(trajectory: dict[str, Any], file: str, analysis: Analysis, analyzer: Analyzer) -> dict[str, Any]:
    """One line of skills.jsonl (docs/run-format.md §8); the review starts `pending`."""
    parse = analysis.parse
    record = {
        "id": trajectory["id"],
        "trajectory": {"id": trajectory["id"], "file": file},
        "task": trajectory["task"],
        "success": trajectory["success"],
        "reward": trajectory["reward"],
        "length": trajectory["length"],
        "source": analyzer.source,
        "model": analyzer.model,
        "summary": parse.summary or None,
        "skill": parse.skill or None,
        "valid": parse.valid,
        "reason": None if parse.valid else (parse.reason or "invalid"),
        "attempts": analysis.attempts,
    }
    if analysis.raw is not None:
        record["raw"] = analysis.raw
    return record


def collect(
    config: ExperimentConfig,
    experiment_path: str | Path,
    *,
    runs_dir: str | Path | None = None,
    run_id: str | None = None,
    echo: TextIO | None = sys.stdout,
    progress: bool = False,
    analyzer: Analyzer | None = None,
) -> Path:
    """Runs Stage-1 collection in a new run directory (stage `collect`) and returns it. `analyzer` replaces the one
    the config names (e.g. a custom analyzer in a script). A stop request ends it after the current batch."""
    runs_dir = runs_dir_for(config, runs_dir)
    writer = create_run(
        config,
        experiment_path,
        runs_dir,
        stage="collect",
        run_id=run_id,
        echo=echo,
        parent=parent_of(config.resolve_path(config.model.path), runs_dir),
        progress_unit="task",
    )
    # A setting or an endpoint problem of the analyzer: one clear line, no traceback needed.
    run_stage(
        writer,
        lambda stop: _collect(config, writer, stop, progress, analyzer),
        describe=lambda exc: f"analyzer: {exc}" if isinstance(exc, AnalyzerError) else None,
    )
    return writer.run_dir


def _collect(
    config: ExperimentConfig, writer: RunWriter, stop: StopFlag, progress: bool, analyzer: Analyzer | None
) -> None:
    seed_everything(config.seed)
    source = make_task_source(config.environment.name, **config.environment.options)
    specs = collection_tasks(source, config)
    if analyzer is None and config.analyzer.kind != "self":
        analyzer = make_analyzer(config, task_source=source)  # its settings (key, oracle) checked before any rollout
    policy = Policy.load(config.resolved_model(), with_reference=False, trainable=False)
    analyzer = analyzer or make_analyzer(config, policy=policy, task_source=source)
    token_text = TokenText(policy.tokenizer)
    ro, settings = config.rollout, config.collect
    total = len(specs)
    batches = -(-total // settings.tasks_per_batch)
    writer.set_progress(0, total=total, unit="task")
    writer.event(
        "info",
        f"collecting {total} tasks × {settings.rollouts_per_task} rollouts; analyzer `{analyzer.source}`"
        + (f" ({analyzer.model})" if analyzer.model else ""),
    )

    done, batch = 0, 0
    while done < total:
        if stop.signal or writer.stop_requested():
            writer.begin_stop("signal" if stop.signal else "control", signal=stop.signal)
            writer.finish("stopped", f"stopped after {done} of {total} tasks")
            return
        batch += 1
        batch_specs = specs[done : done + settings.tasks_per_batch]
        started = time.perf_counter()

        # 1. K0 rollouts of each task with the base policy
        episodes = play_episodes(
            policy,
            source,
            batch_specs,
            group_size=settings.rollouts_per_task,
            max_steps=ro.max_steps,
            history_length=ro.history,
            max_prompt_tokens=ro.max_prompt_tokens,
            max_response_tokens=ro.max_response_tokens,
            temperature=settings.temperature,
            memory=ro.memory,
            prompt_format=ro.prompt_format,
        )
        episodes, failures = drop_failed_episodes(writer, episodes, f"collect batch {batch}", step=batch)
        rollout_time = time.perf_counter() - started
        writer.event(
            "progress",
            f"batch {batch}: analysing {len(episodes)} trajectories",
            phase="analysis",
            done=done,
            total=total,
            step=batch,
        )

        # 2. one analysis per trajectory, through format verification
        mark = time.perf_counter()
        retries_before = getattr(analyzer, "retries", 0)
        analyses = analyzer.analyze(episodes)
        analysis_time = time.perf_counter() - mark

        # 3. trajectory, then its skill record
        file = f"collect-{batch:06d}.jsonl"
        for episode, analysis in zip(episodes, analyses):
            record = plain_trajectory_record(
                episode, phase="collect", update=batch, token_text=token_text, group=done + episode.group, prompts=True
            )
            record["skill"] = skill_of(analysis, analyzer.source)
            row = writer.trajectory(record, file=file)
            writer.skill(skill_record({**record, "id": row["id"]}, file, analysis, analyzer))
        done += len(batch_specs)

        values = rollout_metrics(episodes) | failures
        values["skill/parse_rate"] = sum(a.parse.valid for a in analyses) / max(len(analyses), 1)
        values.update(
            relevance_metrics(
                [
                    (e.task.description, a.parse.summary, a.parse.skill)
                    for e, a in zip(episodes, analyses)
                    if a.parse.valid
                ]
            )
        )
        values["analyzer/retries"] = getattr(analyzer, "retries", 0) - retries_before
        values["time/rollout"], values["time/analysis"] = rollout_time, analysis_time
        values["time/total"] = time.perf_counter() - started
        writer.metrics(batch, "collect", values)
        writer.set_progress(done)
        writer.event(
            "iteration",
            f"batch {batch}: {done}/{total} tasks, success {values['success/overall']:.3f}, "
            f"valid analyses {values['skill/parse_rate']:.3f}",
            step=batch,
            total=batches,
            success=values["success/overall"],
        )
        if progress:
            progress_bar(done, total, f"tasks, valid analyses {values['skill/parse_rate']:.2f}")
    writer.finish("completed", f"collected {total} tasks × {config.collect.rollouts_per_task} rollouts")
