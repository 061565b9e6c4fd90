"""Stage 2 (DESIGN §2): per update, with the current weights as π_old —
rollout → scores and GRPO advantages → old/reference log-probs → self-analysis → teacher pass → PPO update →
metrics and trajectories → (every `eval.every` updates) evaluation → (every `checkpoint.every`) checkpoint.
The updated weights are the next actor and analyzer. The baselines are settings of this loop.

`train` starts a run; `resume` continues one from its latest checkpoint. Everything that draws random numbers
(sampling: torch; the mini-batch shuffle: the loop's own `random.Random`) is saved in the checkpoint, so a resumed run
repeats exactly the updates an uninterrupted one would have made.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path
from typing import Sequence, TextIO

import torch

from seed_trainer.algo.advantages import grpo_advantages, step_scores
from seed_trainer.algo.losses import opd_gate
from seed_trainer.analysis import self_analyze
from seed_trainer.analyzers import ANALYSIS_PROMPT_TOKENS
from seed_trainer.checkpoints import (
    file_sizes,
    latest_checkpoint,
    load_training_state,
    prune_checkpoints,
    read_state,
    remove_partial_checkpoints,
    roll_back,
    save_checkpoint,
)
from seed_trainer.config import ExperimentConfig, experiment_from_data
from seed_trainer.envs import make_task_source
from seed_trainer.policy import Policy
from seed_trainer.rollout import Episode, Step, play_episodes
from seed_trainer.runlog import RunWriter, TokenArrays
from seed_trainer.runlog.reader import read_manifest
from seed_trainer.skill_bank import SkillBank
from seed_trainer.stages.common import (
    StopFlag,
    TokenText,
    create_run,
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


def gate_statistics(steps: Sequence[Step], beta: float) -> dict[str, float | None]:
    """Gate metrics at the rollout weights over the OPD-active tokens (steps with a teacher pass)."""
    total = sum(len(s.response_ids) for s in steps)
    scored = [s for s in steps if s.teacher_logp is not None and s.old_logp is not None]
    if not scored:  # no valid skill this update: the gate is undefined, not 0
        return {"gate/mean": None, "gate/frac_gt_half": None, "delta/mean": None, "opd/active_ratio": 0.0}
    teacher = torch.cat([s.teacher_logp for s in scored])
    student = torch.cat([s.old_logp for s in scored])
    delta, gate = opd_gate(teacher, student, beta)
    return {
        "gate/mean": float(gate.mean()),
        "gate/frac_gt_half": float((gate > 0.5).float().mean()),
        "delta/mean": float(delta.mean()),
        "opd/active_ratio": teacher.numel() / max(total, 1),
    }


def trajectory_record(episode: Episode, update: int, config: ExperimentConfig, token_text: TokenText, source: str | None) -> dict:
    beta = config.opd.beta if config.algorithm != "grpo_opsd" else 0.0
    steps = []
    for step in episode.steps:
        arrays = {"ids": step.response_ids, "text": token_text(step.response_ids), "logp": step.old_logp}
        if step.teacher_logp is not None and step.old_logp is not None:
            delta, gate = opd_gate(step.teacher_logp, step.old_logp, beta)
            arrays.update(teacher_logp=step.teacher_logp, delta=delta, gate=gate)
        steps.append(
            {
                "t": step.t,
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
        "task": {"id": episode.task.id, "type": episode.task.type, "description": episode.task.description, "split": episode.task.split},
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
) -> Path:
    """Runs Stage 2 in a new run directory and returns it. Failures end the run as `failed` and re-raise."""
    runs_dir = runs_dir_for(config, runs_dir)
    writer = create_run(
        config, experiment_path, runs_dir, stage="train", run_id=run_id, echo=echo,
        parent=parent_of(config.resolve_path(config.model.path), runs_dir),
        progress_total=config.updates, progress_unit="update",
    )
    run_stage(writer, lambda stop: _train_loop(config, writer, None, stop, progress))
    return writer.run_dir


def resume(run_dir: str | Path, *, echo: TextIO | None = sys.stdout, progress: bool = False) -> Path:
    """Continues a `train` run from its latest checkpoint, in the same run directory (the configuration is the one
    run.json recorded). What was written after that checkpoint — the interrupted update — is rolled back first."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    if manifest["stage"] != "train":
        raise ResumeError(f"{run_dir}: only `train` runs can be resumed; this one is a `{manifest['stage']}` run")
    if manifest["status"] == "completed":
        raise ResumeError(f"{run_dir}: the run has completed all its updates")
    if manifest["status"] in ("running", "stopping") and _alive(manifest):
        raise ResumeError(f"{run_dir}: the run is still running (pid {manifest['pid']} on {manifest['host']})")
    experiment = run_dir / manifest["experiment"]["path"]
    config = experiment_from_data(manifest["config"], experiment.parent, f"{run_dir / 'run.json'}: config")
    checkpoint = latest_checkpoint(run_dir)
    partial = remove_partial_checkpoints(run_dir)
    rolled_back = roll_back(run_dir, read_state(checkpoint)["files"] if checkpoint else {})
    writer = RunWriter.reopen(run_dir, echo=echo)
    done = read_state(checkpoint)["update"] if checkpoint else 0
    where = writer.paths.relative(checkpoint) if checkpoint else "the start (no checkpoint yet)"
    writer.event("resumed", f"resumed from {where}, update {done + 1} next (pid {os.getpid()})", step=done, pid=os.getpid())
    if rolled_back or partial:
        writer.event(
            "warning",
            "rolled back what was written after the checkpoint: " + "; ".join(rolled_back + [f"checkpoints/{p}: removed" for p in partial]),
            code="rolled_back",
        )
    if writer.paths.control.exists():  # the stop request this run obeyed has been served
        writer.paths.control.unlink()
        writer.event("info", "removed the control file of the stop this run obeyed")
    writer.set_progress(done)
    run_stage(writer, lambda stop: _train_loop(config, writer, checkpoint, stop, progress))
    return run_dir


def _alive(manifest: dict) -> bool:
    """Whether the trainer process run.json names still runs (only decidable on its own host)."""
    if manifest.get("host") != socket.gethostname():
        return False
    pid = int(manifest["pid"])
    if os.name == "nt":  # os.kill(pid, 0) would send CTRL_C_EVENT there
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        ctypes.windll.kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        ctypes.windll.kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _train_loop(config: ExperimentConfig, writer: RunWriter, checkpoint: Path | None, stop: StopFlag, progress: bool) -> None:
    rng = seed_everything(config.seed)
    source = make_task_source(config.environment.name, **config.environment.options)
    policy = Policy.load(config.resolved_model())
    optimizer = torch.optim.AdamW(
        [p for p in policy.model.parameters() if p.requires_grad], lr=config.rl.lr, weight_decay=config.rl.weight_decay
    )
    first = 1
    if checkpoint is not None:  # weights, optimizer, RNG states and the update counter
        first = load_training_state(checkpoint, policy, optimizer, rng)["update"] + 1
    saved = first - 1  # the last update whose checkpoint exists

    def save(update: int) -> None:
        nonlocal saved
        files = file_sizes(writer.run_dir)
        with writer.checkpoint(update) as directory:
            save_checkpoint(directory, policy, optimizer, update=update, loop_rng=rng,
                            base_model=str(config.resolved_model().path), files=files)
        prune_checkpoints(writer.paths.checkpoints, config.checkpoint.keep_last)
        saved = update

    settings = LossSettings.for_algorithm(config)
    bank = SkillBank.load(config.resolve_path(config.sdar.skill_bank)) if config.algorithm == "sdar" else None
    analyze = settings.use_teacher and bank is None
    skill_source = "static" if bank is not None else ("self" if analyze else None)
    token_text = TokenText(policy.tokenizer)
    ro = config.rollout
    writer.event("info", f"policy on {policy.device}; {sum(p.numel() for p in policy.model.parameters() if p.requires_grad):,} trainable parameters")

    for update in range(first, config.updates + 1):
        if stop.signal or writer.stop_requested():
            writer.begin_stop("signal" if stop.signal else "control", signal=stop.signal)
            if update - 1 > saved:
                save(update - 1)
            writer.finish("stopped", f"stopped before update {update}")
            return
        times: dict[str, float] = {}
        started = time.perf_counter()

        # 1. rollout with π_old
        specs = source.sample(
            "train", ro.tasks_per_update, seed=config.seed * 1_000_003 + update, task_types=config.environment.task_types
        )
        episodes = play_episodes(
            policy, source, specs,
            group_size=ro.group_size, max_steps=ro.max_steps, history_length=ro.history,
            max_prompt_tokens=ro.max_prompt_tokens, max_response_tokens=ro.max_response_tokens,
            temperature=ro.temperature,
        )
        steps = [s for e in episodes for s in e.steps]
        times["time/rollout"] = time.perf_counter() - started

        # 2. scores and GRPO advantages; π_old and reference log-probs of the sampled tokens
        mark = time.perf_counter()
        assign_advantages(episodes, config)
        prompts, responses = [s.prompt_ids for s in steps], [s.response_ids for s in steps]
        mb = config.rl.micro_batch_size
        for step, logp in zip(steps, policy.score(prompts, responses, ro.temperature, mb)):
            step.old_logp = logp
        if config.rl.kl_coef > 0:
            for step, logp in zip(steps, policy.score(prompts, responses, ro.temperature, mb, reference=True)):
                step.ref_logp = logp
        times["time/logprobs"] = time.perf_counter() - mark

        # 3. self-analysis by the same π_old (SEED and its OPD baselines), or the static bank (SDAR)
        mark = time.perf_counter()
        if analyze:
            self_analyze(policy, episodes, max_tokens=config.analyzer.max_tokens, max_prompt_tokens=ANALYSIS_PROMPT_TOKENS)
        elif bank is not None:
            for episode in episodes:
                episode.skill = _StaticSkill(bank.for_task_type(episode.task.type))
        times["time/analysis"] = time.perf_counter() - mark

        # 4. teacher pass: ℓ^skill of the same response tokens under H(h_t, s), no grad, before the update
        mark = time.perf_counter()
        if settings.use_teacher:
            teacher_pass(
                policy, episodes, max_prompt_tokens=ro.max_prompt_tokens, temperature=ro.temperature,
                micro_batch_size=mb, **({"insert": bank.insert} if bank is not None else {}),
            )
        times["time/teacher"] = time.perf_counter() - mark

        # 5. the update
        mark = time.perf_counter()
        has_skill = {id(s): e.skill is not None and e.skill.valid for e in episodes for s in e.steps}
        samples = [Sample(s, has_skill[id(s)]) for s in steps]
        losses = ppo_update(policy, optimizer, samples, config, settings, rng) if samples else {}
        times["time/update"] = time.perf_counter() - mark
        times["time/total"] = time.perf_counter() - started

        # 6. metrics and trajectories
        values = rollout_metrics(episodes)
        values.update({_LOSS_NAMES[k]: v for k, v in losses.items() if k in _LOSS_NAMES})
        values["optim/lr"] = config.rl.lr
        if settings.use_teacher:
            values.update(gate_statistics(steps, settings.opd_beta))
            values["skill/parse_rate"] = sum(bool(e.skill and e.skill.valid) for e in episodes) / max(len(episodes), 1)
        values.update(times)
        writer.metrics(update, "update", values)
        for episode in episodes:
            writer.trajectory(trajectory_record(episode, update, config, token_text, skill_source))
        writer.set_progress(update)
        writer.event(
            "iteration",
            f"update {update}/{config.updates}: success {values['success/overall']:.3f}, {times['time/total']:.1f} s",
            step=update,
            total=config.updates,
            success=values["success/overall"],
        )
        if progress:
            progress_bar(update, config.updates, f"success {values['success/overall']:.2f} {times['time/total']:.1f}s/update")

        # 7. evaluation with the plain prompt (its own RNG: it never shifts the training stream)
        if config.eval.every and update % config.eval.every == 0:
            for split in config.eval.splits:
                evaluate_policy(policy, source, config, split, step=update, writer=writer, token_text=token_text)

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
}
