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
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

import torch

from seed_trainer import dist
from seed_trainer.algo.advantages import grpo_advantages, step_scores
from seed_trainer.algo.estimators import subtracted_gate
from seed_trainer.algo.losses import opd_gate
from seed_trainer.algo.quantiles import token_quantiles
from seed_trainer.algo.variants import VARIANTS, gate_beta
from seed_trainer.analysis import self_analyze
from seed_trainer.analyzers import ANALYSIS_PROMPT_TOKENS
from seed_trainer.analyzers.oracle import OracleAnalyzer
from seed_trainer.checkpoints import (
    checkpoint_before,
    checkpoint_dirs,
    checkpoint_update,
    file_sizes,
    load_training_state,
    prune_checkpoints,
    read_state,
    remove_partial_checkpoints,
    save_checkpoint,
    set_aside_broken,
    usable_checkpoint,
)
from seed_trainer.config import BUILTIN_PREFIX, CONVERTED_MODELS, ExperimentConfig, experiment_from_data
from seed_trainer.envs import make_task_source
from seed_trainer.memory import memory_warnings
from seed_trainer.policy import Policy
from seed_trainer.precision import (
    NonFiniteError,
    NonFiniteGuard,
    check_finite_weights,
    first_non_finite_weight,
    grad_scaler,
)
from seed_trainer.preflight import check_inputs
from seed_trainer.rollback import first_damaged_update, plan_rollback, repair_to_update, roll_back, rollback_candidates
from seed_trainer.rollout import Episode, Step, play_episodes
from seed_trainer.rollout_engine import logprob_agreement, open_engine
from seed_trainer.runlog import RunWriter, TokenArrays, layout
from seed_trainer.runlog.ownership import RunLock, RunNotWritableError
from seed_trainer.runlog.reader import read_manifest
from seed_trainer.sharding import refresh_inference_copy, save_sharded, shard_policy
from seed_trainer.skill_bank import SkillBank
from seed_trainer.stages.common import (
    StopFlag,
    TokenText,
    create_run,
    drop_failed_episodes,
    parent_of,
    progress_bar,
    rollout_metrics,
    run_stage,
    runs_dir_for,
    seed_everything,
)
from seed_trainer.stages.evaluate import evaluate_policy
from seed_trainer.teacher import teacher_pass
from seed_trainer.update import LossSettings, Sample, ppo_update


class ResumeError(RuntimeError):
    """A run directory that cannot be resumed, with the reason."""


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


def gate_statistics(steps: Sequence[Step], beta: float, estimator: str = "sample") -> dict[str, float | None]:
    """Gate metrics at the rollout weights over the OPD-active tokens (steps with a teacher pass). An estimator that
    subtracts from g adds the mean of what it subtracts (`opd/gate_baseline_mean`); `expected` adds the share of the
    weight mass Σ_v π_old(v)·g(v) its top-k left out (`opd/tail_mass`, 0 with the whole vocabulary)."""
    total = sum(len(s.response_ids) for s in steps)
    scored = [s for s in steps if s.teacher_logp is not None and s.old_logp is not None]
    if not scored:  # no valid skill this update: the gate is undefined, not 0
        out: dict[str, float | None] = {
            "gate/mean": None,
            "gate/frac_gt_half": None,
            "delta/mean": None,
            "opd/active_ratio": 0.0,
        }
        if estimator != "sample":
            out["opd/gate_baseline_mean"] = None
        if estimator == "expected":
            out["opd/tail_mass"] = None
        return out | token_quantiles(torch.empty(0), "gate") | token_quantiles(torch.empty(0), "delta")
    teacher = torch.cat([s.teacher_logp for s in scored])
    student = torch.cat([s.old_logp for s in scored])
    delta, gate = opd_gate(teacher, student, beta)
    out = {
        "gate/mean": float(gate.mean()),
        "gate/frac_gt_half": float((gate > 0.5).float().mean()),
        "delta/mean": float(delta.mean()),
        "opd/active_ratio": teacher.numel() / max(total, 1),
    }
    out |= token_quantiles(gate, "gate") | token_quantiles(delta, "delta")  # the per-update strips of the dashboard
    baseline = subtracted_gate(estimator, gate, _joined(scored, "gate_baseline"))
    if baseline is not None:
        out["opd/gate_baseline_mean"] = float(baseline.mean())
    tail = _joined(scored, "target_tail") if estimator == "expected" else None
    if tail is not None and baseline is not None:
        out["opd/tail_mass"] = float(tail.sum() / baseline.sum().clamp(min=1e-12))
    return out


def _joined(steps: Sequence[Step], name: str) -> torch.Tensor | None:
    values = [getattr(s, name) for s in steps]
    return torch.cat(values) if values and all(v is not None for v in values) else None


def trajectory_record(
    episode: Episode, update: int, config: ExperimentConfig, token_text: TokenText, source: str | None
) -> dict:
    beta = gate_beta(config.algorithm, config.opd.beta)
    steps = []
    for step in episode.steps:
        arrays = {"ids": step.response_ids, "text": token_text(step.response_ids), "logp": step.old_logp}
        scored = step.teacher_logp is not None and step.old_logp is not None
        if scored:
            delta, gate = opd_gate(step.teacher_logp, step.old_logp, beta)
            arrays.update(teacher_logp=step.teacher_logp, delta=delta, gate=gate)
            # what the update subtracted from g (½, or b(s)): the heatmap can show g − b as the update used it
            subtracted = subtracted_gate(config.opd.estimator, gate, step.gate_baseline)
            if subtracted is not None:
                arrays["gate_baseline"] = subtracted
        steps.append(
            {
                "t": step.t,
                # h_t of a step the teacher scored: what-if rescoring rebuilds the teacher prompt from it
                **({"prompt": step.prompt} if scored else {}),
                "observation": step.observation,
                "response": step.response,
                "action": step.action if step.valid else None,
                "valid": step.valid,
                "score": step.score,
                "advantage": step.advantage,
                "prompt_tokens": len(step.prompt_ids),
                "truncated": step.truncated,
                "tokens": TokenArrays(**arrays),
            }
        )
    skill = None
    if episode.skill is not None and source is not None:
        skill = {
            "text": episode.skill.skill or None,
            "summary": episode.skill.summary or None,
            "valid": episode.skill.valid,
            "source": source,
            "reason": episode.skill.reason or None,
        }
        if not episode.skill.valid and episode.skill_reply is not None:
            skill["raw"] = episode.skill_reply  # why it failed format verification (run-format §7)
    return {
        "phase": "train",
        "update": update,
        "task": {
            "id": episode.task.id,
            "type": episode.task.type,
            "description": episode.task.description,
            "split": episode.task.split,
        },
        "group": episode.group,
        "sample": episode.index,
        "success": episode.won,
        "reward": 1.0 if episode.won else 0.0,  # the 0/1 environment scale; each step's score carries R
        "length": len(episode.steps),
        "skill": skill,
        "final_observation": episode.final_observation,
        "steps": steps,
    }


class _StaticSkill:
    """A skill from the static bank, shaped like a parsed analysis (for the trajectory record)."""

    def __init__(self, text: str) -> None:
        self.skill, self.summary, self.valid, self.reason = text, "", bool(text.strip()), ""


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
    Under torchrun every rank calls it; rank 0 creates and writes the run directory (dist.py)."""
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
    ranks = dist.start(_recorded_device(run_dir))
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


def _recorded_device(run_dir: Path) -> str:
    """The run's `model.device` (it picks the process group's backend); `auto` when run.json cannot say — resume's own
    checks report that."""
    try:
        return str(read_manifest(run_dir)["config"]["model"].get("device", "auto"))
    except Exception:
        return "auto"


def _resume_main(run_dir: Path, echo: TextIO | None, progress: bool, repair: bool, ranks: dist.Ranks) -> None:
    lock = RunLock.acquire(run_dir, command=None)  # recorded once the checks pass: a refusal changes nothing
    try:
        config, checkpoint, broken, plan, superseded = _check_resumable(run_dir, repair)
        lock.record_owner("resume")
        changes = _clean_up(run_dir)
        changes += [f"{layout.CHECKPOINTS_DIR}/{set_aside_broken(path)}: {problem}" for path, problem in broken]
        changes += [
            f"{layout.CHECKPOINTS_DIR}/{set_aside_broken(path, 'superseded')}: set aside, as update "
            f"{checkpoint_update(checkpoint) + 1} is trained again"
            for path in superseded
        ]
        done = read_state(checkpoint)["update"] if checkpoint else 0
        changes += repair_to_update(run_dir, done) if repair else roll_back(run_dir, plan)
        writer = RunWriter.reopen(run_dir, echo=echo, lock=lock)
    except BaseException:
        lock.release()
        raise
    where = writer.paths.relative(checkpoint) if checkpoint else "the start (no checkpoint yet)"
    processes = f", {ranks.world} processes" if ranks.distributed else ""
    writer.event(
        "resumed",
        f"resumed from {where}, update {done + 1} next (pid {os.getpid()}{processes})",
        step=done,
        pid=os.getpid(),
    )
    if broken:
        writer.event(
            "warning",
            f"fell back to {where}: "
            + "; ".join(f"{writer.paths.relative(p)} is incomplete ({why})" for p, why in broken),
            code="checkpoint_incomplete",
        )
    if changes:
        writer.event(
            "warning",
            "rolled back what was written after the checkpoint: " + "; ".join(changes),
            code="repaired" if repair else "rolled_back",
        )
    if writer.paths.control.exists():  # the stop request this run obeyed has been served
        writer.paths.control.unlink()
        writer.event("info", "removed the control file of the stop this run obeyed")
    writer.set_progress(done)
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


def _check_resumable(run_dir: Path, repair: bool):
    """Everything `resume` checks before it changes anything: the manifest, the inputs, write access, the checkpoint to
    continue from and what it keeps of each file. Raises ResumeError (or an input/format error) when it cannot."""
    manifest = read_manifest(run_dir)
    if manifest["stage"] != "train":
        raise ResumeError(f"{run_dir}: only `train` runs can be resumed; this one is a `{manifest['stage']}` run")
    if manifest["status"] == "completed":
        raise ResumeError(f"{run_dir}: the run has completed all its updates")
    experiment = run_dir / manifest["experiment"]["path"]
    config = experiment_from_data(manifest["config"], experiment.parent, f"{run_dir / 'run.json'}: config")
    check_inputs(config)
    folders = [run_dir / name for name in (layout.TRAJECTORIES_DIR, layout.CHECKPOINTS_DIR, layout.EVAL_DIR)]
    for path in [
        run_dir,
        *[f for f in folders if f.is_dir()],
        run_dir / layout.MANIFEST,
        *rollback_candidates(run_dir),
    ]:
        if not os.access(path, os.W_OK):
            raise RunNotWritableError(f"{run_dir}: the run is read-only ({path} cannot be written)")
    checkpoint, broken = usable_checkpoint(run_dir)
    if broken and checkpoint is None:  # starting over would discard every update: the user decides that, not resume
        raise ResumeError(
            f"{run_dir}: no complete checkpoint to resume from ("
            + "; ".join(f"{p.relative_to(run_dir).as_posix()}: {why}" for p, why in broken)
            + "); nothing was changed. Delete the checkpoints folder to start the run over."
        )
    superseded: list[Path] = []
    if (
        repair
        and checkpoint is not None
        and (damage := first_damaged_update(run_dir, read_state(checkpoint)["update"]))
    ):
        update, why = damage
        earlier = checkpoint_before(run_dir, update)
        if earlier is None:  # never a "completed" run that skips the damaged update
            raise ResumeError(
                f"{run_dir}: update {update} must be trained again ({why}), but no complete checkpoint before it is "
                "kept; nothing was changed. Delete the checkpoints folder to start the run over."
            )
        superseded = [path for path in checkpoint_dirs(run_dir) if checkpoint_update(path) > checkpoint_update(earlier)]
        checkpoint = earlier
    plan = plan_rollback(run_dir, read_state(checkpoint)["files"] if checkpoint else {})
    if plan.problems and not repair:
        raise ResumeError(
            f"{run_dir}: what checkpoint {checkpoint.name if checkpoint else '(none)'} keeps is damaged, nothing was "
            "changed:\n  "
            + "\n  ".join(str(p) for p in plan.problems)
            + "\nresume --repair keeps the records that parse, moves the others to <file>.corrupt and rebuilds the index"
        )
    return config, checkpoint, broken, plan, superseded


def _clean_up(run_dir: Path) -> list[str]:
    """Remove what an interrupted writer left: temporary checkpoint directories and `.<name>.tmp-<pid>` documents."""
    removed = [f"{layout.CHECKPOINTS_DIR}/{name}: removed" for name in remove_partial_checkpoints(run_dir)]
    for folder in (run_dir, run_dir / layout.EVAL_DIR):
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if layout.STALE_DOCUMENT_TEMP.match(path.name) and path.is_file():
                    path.unlink()
                    removed.append(f"{path.relative_to(run_dir).as_posix()}: stale temporary file removed")
    return removed


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


def _base_model(config: ExperimentConfig) -> str:
    """What a checkpoint names as its base model: a converted built-in by its `builtin:` name (its cache folder is
    per user and machine, so a path would not survive copying the run), anything else by its resolved folder."""
    if config.model.path.startswith(BUILTIN_PREFIX) and config.model.path[len(BUILTIN_PREFIX) :] in CONVERTED_MODELS:
        return config.model.path
    return str(config.resolved_model().path)


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
    optimizer = torch.optim.AdamW(
        [p for p in policy.model.parameters() if p.requires_grad], lr=config.rl.lr, weight_decay=config.rl.weight_decay
    )
    scaler = grad_scaler(policy.device, policy.compute_dtype)
    guard = NonFiniteGuard(config.rl.max_skipped_steps)
    first = 1
    if checkpoint is not None:  # weights, optimizer, RNG states and the update counter
        first = (
            load_training_state(
                checkpoint, policy, optimizer, rng, rank=ranks.rank, world=ranks.world, sharded=sharded
            )["update"]
            + 1
        )
    saved = first - 1  # the last update whose checkpoint exists
    engine = open_engine(policy, config)  # None for rollout.engine: hf (the policy generates)

    def save(update: int) -> None:
        nonlocal saved
        rank_rng = dist.rank_rng_states(ranks)  # every rank takes part; rank 0 writes
        saved = update
        if sharded:  # every rank checks and writes its shards into rank 0's temporary checkpoint directory
            _save_sharded(update, rank_rng)
            return
        if not ranks.main:
            return
        check_finite_weights(policy.model, f"checkpoint of update {update}")
        files = file_sizes(writer.run_dir)
        with writer.checkpoint(update) as directory:
            save_checkpoint(
                directory,
                policy,
                optimizer,
                update=update,
                loop_rng=rng,
                base_model=_base_model(config),
                files=files,
                rank_rng=rank_rng,
            )
        prune_checkpoints(writer.paths.checkpoints, config.checkpoint.keep_last)

    def _save_sharded(update: int, rank_rng) -> None:
        bad = [
            name
            for name in dist.all_gather(ranks, first_non_finite_weight(policy.model), "checking the weights")
            if name is not None
        ]
        if bad:
            raise NonFiniteError(f"checkpoint of update {update}: weight {bad[0]} is not finite; nothing saved")
        if not ranks.main:
            directory = dist.broadcast(ranks, None, f"opening the checkpoint of update {update}")
            save_sharded(Path(directory), policy, optimizer, main=False)
            dist.broadcast(ranks, None, f"finishing the checkpoint of update {update}")
            return
        files = file_sizes(writer.run_dir)
        with writer.checkpoint(update) as directory:
            dist.broadcast(ranks, str(directory), f"opening the checkpoint of update {update}")
            save_sharded(directory, policy, optimizer, main=True)
            save_checkpoint(
                directory,
                policy,
                optimizer,
                update=update,
                loop_rng=rng,
                sharded=True,
                base_model=_base_model(config),
                files=files,
                rank_rng=rank_rng,
            )
        # the others wait until the checkpoint is in place: a rank that fails next must not find it half-written
        dist.broadcast(ranks, None, f"finishing the checkpoint of update {update}")
        prune_checkpoints(writer.paths.checkpoints, config.checkpoint.keep_last)

    settings = LossSettings.for_algorithm(config)
    variant = VARIANTS[config.algorithm]
    skills = "oracle" if variant.skills == "self" and config.opd.skill_source == "oracle" else variant.skills
    bank = SkillBank.load(config.resolve_path(config.sdar.skill_bank)) if skills == "static" else None
    oracle = OracleAnalyzer(source) if skills == "oracle" else None
    token_text = TokenText(policy.tokenizer)
    ro, rl = config.rollout, config.rl
    reuse_sampling_logprobs = rl.old_logprobs == "rollout" or (
        rl.old_logprobs == "auto"
        and engine is None
        and policy.device.type == "cpu"
        and policy.compute_dtype == torch.float32
    )
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

    for update in range(first, config.updates + 1):
        stopping = dist.broadcast(ranks, stop.signal or writer.stop_requested(), f"starting update {update}")
        if stopping:
            writer.begin_stop("signal" if stop.signal else "control", signal=stop.signal)
            if update - 1 > saved:
                save(update - 1)
            writer.finish("stopped", f"stopped before update {update}")
            return
        times: dict[str, float] = {}
        started = time.perf_counter()

        # 1. rollout with π_old (under torchrun, of this rank's whole task groups)
        with _phase(times, update, "rollout"):
            specs = source.sample(
                "train",
                ro.tasks_per_update,
                seed=config.seed * 1_000_003 + update,
                task_types=config.environment.task_types,
            )
            first_group, specs = ranks.share(specs)
            episodes = play_episodes(
                policy,
                source,
                specs,
                group_size=ro.group_size,
                max_steps=ro.max_steps,
                history_length=ro.history,
                max_prompt_tokens=ro.max_prompt_tokens,
                max_response_tokens=ro.max_response_tokens,
                temperature=ro.temperature,
                generation_batch_size=ro.generation_batch_size,
                with_logprobs=reuse_sampling_logprobs or engine is not None,
                generator=engine,
            )
            episodes, failures = drop_failed_episodes(writer, episodes, f"update {update}", step=update)
            steps = [s for e in episodes for s in e.steps]

        # 2. scores and GRPO advantages; π_old and reference log-probs of the sampled tokens
        with _phase(times, update, "logprobs"):
            assign_advantages(episodes, config)
            prompts, responses = [s.prompt_ids for s in steps], [s.response_ids for s in steps]
            scoring = dict(
                temperature=ro.temperature, micro_batch_size=rl.micro_batch_size, max_tokens=rl.micro_batch_tokens
            )
            if reuse_sampling_logprobs:
                for step in steps:
                    step.old_logp = step.sample_logp
            else:
                for step, logp in zip(steps, policy.score(prompts, responses, **scoring)):
                    step.old_logp = logp
            # The engine must sample from the weights and the distribution that the update scores with.
            agreement = (
                {}
                if engine is None or reuse_sampling_logprobs
                else logprob_agreement([s.sample_logp for s in steps], [s.old_logp for s in steps])
            )
            if rl.kl_coef > 0:
                for step, logp in zip(steps, policy.score(prompts, responses, reference=True, **scoring)):
                    step.ref_logp = logp

        # 3. self-analysis by the same π_old (SEED and its OPD baselines), or the static bank (SDAR), or the
        #    environment's oracle (opd.skill_source: oracle, the upper-bound diagnostic)
        with _phase(times, update, "analysis"):
            if skills == "self":
                self_analyze(
                    policy,
                    episodes,
                    max_tokens=config.analyzer.max_tokens,
                    max_prompt_tokens=ANALYSIS_PROMPT_TOKENS,
                    batch_size=ro.generation_batch_size,
                    generator=engine,
                )
            elif oracle is not None:
                for episode, analysis in zip(episodes, oracle.analyze(episodes)):
                    episode.skill = analysis.parse
            elif bank is not None:
                for episode in episodes:
                    episode.skill = _StaticSkill(bank.for_task_type(episode.task.type))

            if engine is not None:
                engine.release()  # its GPU memory goes to the teacher pass and the update

        # 4. teacher pass: ℓ^skill of the same response tokens under H(h_t, s), no grad, before the update
        with _phase(times, update, "teacher"):
            if settings.use_teacher:
                teacher_pass(
                    policy,
                    episodes,
                    max_prompt_tokens=ro.max_prompt_tokens,
                    temperature=ro.temperature,
                    micro_batch_size=rl.micro_batch_size,
                    max_tokens=rl.micro_batch_tokens,
                    **({"insert": bank.insert} if bank is not None else {}),
                    estimator=settings.opd_estimator,
                    beta=settings.opd_beta,
                    top_k=config.opd.expected_top_k,
                )

        # 5. the update (an optimizer step whose loss or gradient is not finite is skipped and reported); under
        #    torchrun every rank first receives every episode, in the order one process would hold them
        with _phase(times, update, "update"):
            episodes = dist.gather_episodes(ranks, episodes, first_group)
            steps = [s for e in episodes for s in e.steps]
            failures = dist.sum_values(ranks, failures, "counting environment failures")
            dist.forward_events(ranks, writer)
            has_skill = {id(s): e.skill is not None and e.skill.valid for e in episodes for s in e.steps}
            samples = [Sample(s, has_skill[id(s)]) for s in steps]
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
        values = rollout_metrics(episodes) | failures | agreement
        values.update({_LOSS_NAMES[k]: v for k, v in (result.metrics if result else {}).items() if k in _LOSS_NAMES})
        values["optim/lr"] = config.rl.lr
        if settings.use_teacher:
            values.update(gate_statistics(steps, settings.opd_beta, settings.opd_estimator))
            values["skill/parse_rate"] = sum(bool(e.skill and e.skill.valid) for e in episodes) / max(len(episodes), 1)
        values.update(times)
        writer.metrics(update, "update", values)
        for episode in episodes:
            writer.trajectory(trajectory_record(episode, update, config, token_text, skills))
        writer.set_progress(update)
        writer.event(
            "iteration",
            f"update {update}/{config.updates}: success {values['success/overall']:.3f}, {times['time/total']:.1f} s",
            step=update,
            total=config.updates,
            success=values["success/overall"],
        )
        if progress:
            progress_bar(
                update, config.updates, f"success {values['success/overall']:.2f} {times['time/total']:.1f}s/update"
            )

        # 7. evaluation with the plain prompt (its own RNG: it never shifts the training stream), by rank 0
        if ranks.main and config.eval.every and update % config.eval.every == 0:
            for split in config.eval.splits:
                evaluate_policy(
                    policy, source, config, split, step=update, writer=writer, token_text=token_text, generator=engine
                )

        # 8. checkpoint: weights, optimizer, RNG states, update counter
        if update % config.checkpoint.every == 0 or update == config.updates:
            save(update)
    writer.finish("completed", f"{config.updates} updates completed")


_LOSS_NAMES = {
    "loss": "loss/total",
    "pg_loss": "loss/pg",
    "kl": "loss/kl",
    "entropy": "loss/entropy",
    "opd_loss": "loss/opd",
    "clip_frac": "ppo/clip_frac",
    "clip_frac_lower": "ppo/clip_frac_lower",
    "approx_kl": "ppo/approx_kl",
    "grad_norm": "optim/grad_norm",
    "skipped_steps": "optim/skipped_steps",
}
