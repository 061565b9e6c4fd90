"""Stage 2 (DESIGN §2): per update, with the current weights as π_old —
rollout → scores and GRPO advantages → old/reference log-probs → self-analysis → teacher pass → PPO update →
metrics and trajectories → (every `eval.every` updates) evaluation → (every `checkpoint.every`) checkpoint.
The updated weights are the next actor and analyzer. The baselines are settings of this loop.

`train` starts a run; `resume` continues one from its latest checkpoint. Everything that draws random numbers
(sampling: torch; the mini-batch shuffle: the loop's own `random.Random`) is saved in the checkpoint, so a resumed run
repeats exactly the updates an uninterrupted one would have made.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

import torch

from seed_trainer.algo.advantages import grpo_advantages, step_scores
from seed_trainer.analyzers import stage2_analyzer
from seed_trainer.checkpoints.checkpoint import Checkpointer
from seed_trainer.compute import distributed as dist
from seed_trainer.compute.engines import Generator, logprob_agreement, open_engine
from seed_trainer.compute.memory import memory_warnings
from seed_trainer.compute.optimizer import adamw
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.precision import NonFiniteError, NonFiniteGuard, grad_scaler
from seed_trainer.compute.sharding import refresh_inference_copy, shard_policy
from seed_trainer.envs import make_task_source
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.experiment.loading import experiment_from_data
from seed_trainer.rl.rollout import Episode
from seed_trainer.rl.teacher import controlled_skills
from seed_trainer.rl.update import LossSettings, Sample, ppo_update
from seed_trainer.runlog import RunWriter
from seed_trainer.stages.common import (
    StopFlag,
    TokenText,
    create_run,
    drop_failed_episodes,
    parent_of,
    progress_bar,
    run_stage,
    runs_dir_for,
    seed_everything,
)
from seed_trainer.stages.evaluate import evaluate_policy
from seed_trainer.stages.resume import recorded_device, reopen_for_resume
from seed_trainer.stages.train_records import trajectory_record, update_metrics
from seed_trainer.stages.train_settings import LoopSettings, loop_settings, play_episodes_with, teacher_pass_with


def assign_advantages(episodes: Sequence[Episode], config: ExperimentConfig) -> None:
    """Step scores (reward_scale·success − invalid_penalty·[invalid]) and GRPO advantages within each task group."""
    steps = [(episode, step) for episode in episodes for step in episode.steps]
    if not steps:
        return
    scores = step_scores(
        [float(e.won) for e, _ in steps],
        [not s.valid for _, s in steps],
        reward_scale=config.rl.reward_scale,
        invalid_penalty=config.rl.invalid_penalty,
    )
    advantages = grpo_advantages(
        scores,
        [e.group for e, _ in steps],
        [e.index for e, _ in steps],
        mode=config.rl.advantage,
        stats=config.rl.advantage_stats,
    )
    for (_, step), score, advantage in zip(steps, scores.tolist(), advantages.tolist()):
        step.score, step.advantage = score, advantage


def train(
    config: ExperimentConfig,
    experiment_path: str | Path,
    *,
    runs_dir: str | Path | None = None,
    run_id: str | None = None,
    echo: TextIO | None = sys.stdout,
    progress: bool = False,
    baseline_evals: dict[str, Path] | None = None,
) -> Path:
    """Runs Stage 2 in a new run directory and returns it. `baseline_evals` (split → eval run directory) is recorded
    in run.json for a before/after. Failures end the run as `failed` and re-raise.
    Under torchrun every rank calls it; rank 0 creates and writes the run directory (compute/distributed.py)."""
    ranks = dist.start(config.model.device)
    clean = False
    try:
        if not ranks.main:
            run_dir = dist.broadcast(ranks, None, "waiting for rank 0 to create the run directory")
            _run_quietly(lambda stop: _train_loop(config, dist.QuietWriter(), None, stop, False, ranks=ranks))
            clean = True
            return Path(run_dir)
        runs_dir = runs_dir_for(config, runs_dir)
        writer = create_run(
            config,
            experiment_path,
            runs_dir,
            stage="train",
            run_id=run_id,
            echo=echo,
            parent=parent_of(config.resolve_path(config.model.path), runs_dir),
            progress_total=config.updates,
            progress_unit="update",
            baseline_evals=baseline_evals,
        )
        if ranks.distributed:
            writer.event("info", f"{ranks.world} processes (torchrun); rank 0 writes this run directory")
        run_stage(
            writer,
            lambda stop: _train_loop(config, writer, None, stop, progress, ranks=ranks, announce=str(writer.run_dir)),
        )
        clean = True
        return writer.run_dir
    finally:
        dist.stop(ranks, clean=clean)


def _run_quietly(body) -> None:
    """A rank other than 0 runs the loop with the same stop handling and nothing to record (rank 0 records)."""
    stop = StopFlag()
    restore_signals = stop.install()
    try:
        body(stop)
    finally:
        restore_signals()


def resume(
    run_dir: str | Path, *, echo: TextIO | None = sys.stdout, progress: bool = False, repair: bool = False
) -> Path:
    """Continues a `train` run from its latest complete checkpoint, in the same run directory (the configuration is
    the one run.json recorded). It owns the directory first (runlog/ownership.py), checks everything it is about to
    keep, and only then cuts what was written after that checkpoint — the interrupted update. A corrupt line in what
    it keeps refuses the resume (ResumeError, nothing changed) unless `repair`, which sets such lines aside."""
    run_dir = Path(run_dir)
    ranks = dist.start(recorded_device(run_dir))
    clean = False
    try:
        if ranks.main:
            _resume_main(run_dir, echo, progress, repair, ranks)
        else:  # rank 0 checks and repairs the directory, then says what to continue from
            data, base, checkpoint = dist.broadcast(ranks, None, "waiting for rank 0 to check the run directory")
            config = experiment_from_data(data, Path(base), f"{run_dir / 'run.json'}: config")
            _run_quietly(
                lambda stop: _train_loop(
                    config, dist.QuietWriter(), checkpoint and Path(checkpoint), stop, False, ranks=ranks
                )
            )
        clean = True
    finally:
        dist.stop(ranks, clean=clean)
    return run_dir


def _resume_main(run_dir: Path, echo: TextIO | None, progress: bool, repair: bool, ranks: dist.Ranks) -> None:
    writer, config, checkpoint = reopen_for_resume(run_dir, echo, repair, ranks)
    run_stage(
        writer,
        lambda stop: _train_loop(
            config,
            writer,
            checkpoint,
            stop,
            progress,
            ranks=ranks,
            announce=(
                config.model_dump(mode="json", by_alias=True),
                str(config.resolve_path(".")),
                checkpoint and str(checkpoint),
            ),
        ),
    )


@contextlib.contextmanager
def _phase(times: dict[str, float], update: int, name: str) -> Iterator[None]:
    """Times one phase of an update into `time/<name>` and names the update and phase in a non-finite error."""
    mark = time.perf_counter()
    try:
        yield
    except NonFiniteError as error:
        raise NonFiniteError(f"update {update}, {name}: {error}") from error
    finally:
        times[f"time/{name}"] = time.perf_counter() - mark


def _train_loop(
    config: ExperimentConfig,
    writer: RunWriter | dist.QuietWriter,
    checkpoint: Path | None,
    stop: StopFlag,
    progress: bool,
    *,
    ranks: dist.Ranks = dist.SINGLE,
    announce: object = None,
) -> None:
    """The loop of every rank; rank 0 first sends the others `announce` (what they wait for: the run directory, or
    what resume continues from)."""
    if ranks.distributed and ranks.main:
        dist.broadcast(ranks, announce, "telling the other ranks to start")
    rng = seed_everything(config.seed)
    source = make_task_source(config.environment.name, **config.environment.options)
    policy = Policy.load(config.resolved_model())
    dist.copy_weights_from_main(ranks, policy.model)
    sharded = ranks.distributed and config.distributed.strategy == "fsdp"
    if sharded:  # before the optimizer: it steps on this rank's shards
        shard_policy(policy)
    if not ranks.main:  # its own sampling stream; the loop's `rng` (mini-batch shuffle) stays the same on every rank
        torch.manual_seed(dist.rank_seed(config.seed, ranks))
    optimizer = adamw(
        [p for p in policy.model.parameters() if p.requires_grad], lr=config.rl.lr, weight_decay=config.rl.weight_decay
    )
    scaler = grad_scaler(policy.device, policy.compute_dtype)
    guard = NonFiniteGuard(config.rl.max_skipped_steps)
    checkpoints = Checkpointer(writer, policy, optimizer, rng, config, ranks=ranks, sharded=sharded)
    first = checkpoints.restore(checkpoint) + 1  # weights, optimizer, RNG states and the update counter
    engine = open_engine(policy, config)  # None for rollout.engine: hf (the policy generates)

    # resolved once: the loss and gate settings, who writes the skills, what every phase is called with
    settings = LossSettings.for_algorithm(config)
    analyzer = stage2_analyzer(config, policy=policy, task_source=source, generator=engine)
    loop = loop_settings(
        config, settings, analyzer, engine=engine is not None, device=policy.device, compute_dtype=policy.compute_dtype
    )
    token_text = TokenText(policy.tokenizer)
    _describe_setup(writer, policy, config, ranks, sharded)

    for update in range(first, config.updates + 1):
        if _stopped_before(update, stop, writer, checkpoints, ranks):
            return
        times: dict[str, float] = {}
        started = time.perf_counter()

        # 1. rollout with π_old (under torchrun, of this rank's whole task groups)
        with _phase(times, update, "rollout"):
            specs = source.sample(
                "train",
                config.rollout.tasks_per_update,
                seed=config.seed * 1_000_003 + update,
                task_types=config.environment.task_types,
            )
            first_group, specs = ranks.share(specs)
            episodes = play_episodes_with(loop.rollout, policy, source, specs, engine)
            episodes, failures = drop_failed_episodes(writer, episodes, f"update {update}", step=update)

        # 2. scores and GRPO advantages; π_old and reference log-probs of the sampled tokens
        with _phase(times, update, "logprobs"):
            assign_advantages(episodes, config)
            agreement = old_and_reference_logprobs(policy, episodes, loop, engine, reference=config.rl.kl_coef > 0)

        # 3. self-analysis by the same π_old (SEED and its OPD baselines), or the static bank (SDAR), or the
        #    environment's oracle (opd.skill_source: oracle, the upper-bound diagnostic)
        with _phase(times, update, "analysis"):
            for episode, analysis in zip(episodes, analyzer.analyze(episodes) if analyzer is not None else []):
                episode.skill = analysis.parse
            if engine is not None:
                engine.release()  # its GPU memory goes to the teacher pass and the update

        # 4. teacher pass: ℓ^skill of the same response tokens under H(h_t, s), no grad, before the update
        with _phase(times, update, "teacher"):
            if settings.use_teacher:
                teacher_pass_with(loop.teacher, policy, episodes, controlled_skills(episodes, config, writer, update))

        # 5. the update (an optimizer step whose loss or gradient is not finite is skipped and reported); under
        #    torchrun every rank first receives every episode, in the order one process would hold them
        with _phase(times, update, "update"):
            episodes = dist.gather_episodes(ranks, episodes, first_group)
            steps = [s for e in episodes for s in e.steps]
            failures = dist.sum_values(ranks, failures, "counting environment failures")
            dist.forward_events(ranks, writer)
            # distilled: the teacher scored the step (a valid own skill, and under a skill control a donor for it)
            samples = [Sample(s, s.teacher_logp is not None) for s in steps]
            result = (
                ppo_update(policy, optimizer, samples, config, settings, rng, scaler=scaler, guard=guard, ranks=ranks)
                if samples
                else None
            )
            if engine is not None:  # the next rollout samples from the updated weights
                engine.push_weights()
            if sharded:  # likewise the inference copy that generates and scores
                refresh_inference_copy(policy)
        times["time/total"] = time.perf_counter() - started
        for line in result.skipped if result else []:
            writer.event("warning", f"update {update}: skipped {line}", step=update, code="skipped_step")

        # 6. metrics and trajectories
        values = update_metrics(episodes, result, settings, config.rl.lr, failures | agreement, times)
        writer.metrics(update, "update", values)
        for episode in episodes:
            writer.trajectory(trajectory_record(episode, update, settings, token_text, loop.skill_source))
        _report_progress(writer, update, config.updates, values, progress)

        # 7. evaluation with the plain prompt (its own RNG: it never shifts the training stream), by rank 0
        if ranks.main and config.eval.every and update % config.eval.every == 0:
            for split in config.eval.splits:
                evaluate_policy(
                    policy, source, config, split, step=update, writer=writer, token_text=token_text, generator=engine
                )

        # 8. checkpoint: weights, optimizer, RNG states, update counter
        if update % config.checkpoint.every == 0 or update == config.updates:
            checkpoints.save(update)
    writer.finish("completed", f"{config.updates} updates completed")


def _stopped_before(
    update: int, stop: StopFlag, writer: RunWriter | dist.QuietWriter, checkpoints: Checkpointer, ranks: dist.Ranks
) -> bool:
    """Whether a signal or the extension's stop file ends the run before `update` (every rank agrees); if so, the last
    update is checkpointed and the run finished as `stopped`."""
    stopping = dist.broadcast(ranks, stop.signal or writer.stop_requested(), f"starting update {update}")
    if stopping:
        writer.begin_stop("signal" if stop.signal else "control", signal=stop.signal)
        if update - 1 > checkpoints.saved:
            checkpoints.save(update - 1)
        writer.finish("stopped", f"stopped before update {update}")
    return stopping


def old_and_reference_logprobs(
    policy: Policy, episodes: Sequence[Episode], loop: LoopSettings, engine: Generator | None, *, reference: bool
) -> dict[str, float]:
    """π_old log-probs of the episodes' sampled tokens (the sampling ones where `loop.reuse_sampling_logprobs`) and,
    with a KL term (`reference`), the reference's. Returns the engine's agreement with π_old: the engine must sample
    from the weights and the distribution that the update scores with."""
    steps = [s for e in episodes for s in e.steps]
    prompts, responses = [s.prompt_ids for s in steps], [s.response_ids for s in steps]
    scoring = loop.scoring

    def score(reference: bool) -> list[torch.Tensor]:
        return policy.score(
            prompts,
            responses,
            temperature=scoring.temperature,
            micro_batch_size=scoring.micro_batch_size,
            reference=reference,
            max_tokens=scoring.max_tokens,
        )

    if loop.reuse_sampling_logprobs:
        for step in steps:
            step.old_logp = step.sample_logp
    else:
        for step, logp in zip(steps, score(reference=False)):
            step.old_logp = logp
    agreement = (
        {}
        if engine is None or loop.reuse_sampling_logprobs
        else logprob_agreement([s.sample_logp for s in steps], [s.old_logp for s in steps])
    )
    if reference:
        for step, logp in zip(steps, score(reference=True)):
            step.ref_logp = logp
    return agreement


def _describe_setup(
    writer: RunWriter | dist.QuietWriter, policy: Policy, config: ExperimentConfig, ranks: dist.Ranks, sharded: bool
) -> None:
    """Events on where and how the policy trains, and rank 0's memory warnings."""
    writer.event(
        "info",
        f"policy on {policy.device} (compute {str(policy.compute_dtype).removeprefix('torch.')}); "
        f"{sum(p.numel() for p in policy.model.parameters() if p.requires_grad):,} trainable parameters",
    )
    if config.distributed.strategy == "fsdp" and not ranks.distributed:
        writer.event("info", "distributed.strategy fsdp with one process: nothing to shard, the policy trains whole")
    elif sharded:
        writer.event(
            "info",
            f"full fine-tune sharded over {ranks.world} processes (FSDP2); rollouts and scoring on "
            "an unsharded inference copy",
        )
    for warning in memory_warnings(policy, config, shards=ranks.world if sharded else 1) if ranks.main else ():
        writer.event("warning", warning, code="memory")


def _report_progress(
    writer: RunWriter | dist.QuietWriter, update: int, total: int, values: dict, progress: bool
) -> None:
    """The update's `iteration` event and, with `progress`, the progress bar."""
    writer.set_progress(update)
    writer.event(
        "iteration",
        f"update {update}/{total}: success {values['success/overall']:.3f}, {values['time/total']:.1f} s",
        step=update,
        total=total,
        success=values["success/overall"],
    )
    if progress:
        progress_bar(update, total, f"success {values['success/overall']:.2f} {values['time/total']:.1f}s/update")
