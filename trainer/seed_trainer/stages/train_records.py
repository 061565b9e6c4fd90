"""What every Stage-2 update records: its losses and gate statistics in the metrics row (docs/trainer.md, "Gate
statistics"), and one trajectory record per episode (docs/run-format.md §7), token arrays included."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from seed_trainer.algo.estimator_table import estimator_row
from seed_trainer.algo.estimators import subtracted_gate
from seed_trainer.algo.losses import opd_gate
from seed_trainer.algo.skill_relevance import relevance_metrics
from seed_trainer.algo.token_quantiles import token_quantiles
from seed_trainer.rl.rollout import Episode, Step
from seed_trainer.rl.update import LossSettings, UpdateResult
from seed_trainer.runlog import TokenArrays
from seed_trainer.runlog.quantiles import QUANTILE_LEVELS
from seed_trainer.stages.common import TokenText, rollout_metrics

# ppo_update's metric names → the metrics row's
LOSS_NAMES = {
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


def update_metrics(
    episodes: Sequence[Episode],
    result: UpdateResult | None,
    settings: LossSettings,
    lr: float,
    counts: dict[str, float],
    times: dict[str, float],
) -> dict[str, float | None]:
    """The metrics row of one update, in this order: the rollout's (success, lengths, valid actions), `counts`
    (environment failures, the engine's agreement with π_old), the losses, the learning rate, with a teacher pass the
    gate statistics, the skill parse rate and what the valid skills are about (algo/skill_relevance.py), and the
    phase times."""
    steps = [s for e in episodes for s in e.steps]
    values = rollout_metrics(episodes) | counts
    values.update({LOSS_NAMES[k]: v for k, v in (result.metrics if result else {}).items() if k in LOSS_NAMES})
    values["optim/lr"] = lr
    if settings.use_teacher:
        values.update(gate_statistics(steps, settings.opd_beta, settings.opd_estimator))
        values["skill/parse_rate"] = sum(bool(e.skill and e.skill.valid) for e in episodes) / max(len(episodes), 1)
        values.update(
            relevance_metrics(
                [(e.task.description, e.skill.summary, e.skill.skill) for e in episodes if e.skill and e.skill.valid]
            )
        )
    values.update(times)
    return values


def _strips(gate: torch.Tensor, delta: torch.Tensor) -> dict[str, float | int | None]:
    """The quantiles of g and Δ at the run format's levels: the per-update strips of the dashboard."""
    return token_quantiles(gate, "gate", QUANTILE_LEVELS) | token_quantiles(delta, "delta", QUANTILE_LEVELS)


def gate_statistics(steps: Sequence[Step], beta: float, estimator: str = "sample") -> dict[str, float | None]:
    """Gate metrics at the rollout weights over the OPD-active tokens (steps with a teacher pass). An estimator that
    subtracts from g adds the mean of what it subtracts (`opd/gate_baseline_mean`); `expected` adds the share of the
    weight mass Σ_v π_old(v)·g(v) its top-k left out (`opd/tail_mass`, 0 with the whole vocabulary)."""
    row = estimator_row(estimator)
    total = sum(len(s.response_ids) for s in steps)
    scored = [s for s in steps if s.teacher_logp is not None and s.old_logp is not None]
    if not scored:  # no valid skill this update: the gate is undefined, not 0
        out: dict[str, float | None] = {
            "gate/mean": None,
            "gate/frac_gt_half": None,
            "delta/mean": None,
            "opd/active_ratio": 0.0,
        }
        if row.subtracts != "nothing":
            out["opd/gate_baseline_mean"] = None
        if row.keeps == "soft_targets":
            out["opd/tail_mass"] = None
        return out | _strips(torch.empty(0), torch.empty(0))
    teacher = torch.cat([s.teacher_logp for s in scored])
    student = torch.cat([s.old_logp for s in scored])
    delta, gate = opd_gate(teacher, student, beta)
    out = {
        "gate/mean": float(gate.mean()),
        "gate/frac_gt_half": float((gate > 0.5).float().mean()),
        "delta/mean": float(delta.mean()),
        "opd/active_ratio": teacher.numel() / max(total, 1),
    }
    out |= _strips(gate, delta)
    baseline = subtracted_gate(estimator, gate, _joined(scored, "gate_baseline"))
    if baseline is not None:
        out["opd/gate_baseline_mean"] = float(baseline.mean())
    tail = _joined(scored, "target_tail") if row.keeps == "soft_targets" else None
    if tail is not None and baseline is not None:
        out["opd/tail_mass"] = float(tail.sum() / baseline.sum().clamp(min=1e-12))
    return out


def _joined(steps: Sequence[Step], name: str) -> torch.Tensor | None:
    values = [getattr(s, name) for s in steps]
    return torch.cat(values) if values and all(v is not None for v in values) else None


def trajectory_record(
    episode: Episode, update: int, settings: LossSettings, token_text: TokenText, source: str | None
) -> dict:
    """One episode's record; `settings` gives the gate's β and estimator, `source` the skill's."""
    beta = settings.opd_beta
    steps = []
    for step in episode.steps:
        arrays = {"ids": step.response_ids, "text": token_text(step.response_ids), "logp": step.old_logp}
        scored = step.teacher_logp is not None and step.old_logp is not None
        if scored:
            delta, gate = opd_gate(step.teacher_logp, step.old_logp, beta)
            arrays.update(teacher_logp=step.teacher_logp, delta=delta, gate=gate)
            # what the update subtracted from g (½, or b(s)): the heatmap can show g − b as the update used it
            subtracted = subtracted_gate(settings.opd_estimator, gate, step.gate_baseline)
            if subtracted is not None:
                arrays["gate_baseline"] = subtracted
        steps.append(
            {
                "t": step.t,
                # h_t of every step, scored or not (no valid skill that update): what-if rescoring rebuilds the
                # teacher prompt from it
                "prompt": step.prompt,
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
