"""What TensorBoard and W&B are sent, from the run's own records: scalars of a metrics row, an evaluation's table and a
few sample trajectories as tables (text and, where the teacher pass recorded them, per-token gates)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from seed_trainer.runlog.tokens import TokenArrays

#: Stage-2 updates whose trajectories are sampled: the first, then every SAMPLE_EVERY-th (a 150-update run sends 16).
SAMPLE_EVERY = 10
#: Token rows of one sample's token table at most (a 30-step episode of 512-token responses has 15 360).
MAX_TOKEN_ROWS = 4096

STEP_COLUMNS = ["t", "observation", "response", "action", "valid", "advantage", "gate_mean"]
TOKEN_COLUMNS = ["t", "i", "token", "gate", "delta", "logp", "teacher_logp"]
EVAL_COLUMNS = ["task_type", "success", "n", "mean_length"]
_ROW_KEYS = ("step", "time", "kind", "split", "epoch")


def scalar_prefix(row: Mapping[str, Any]) -> str:
    """Evaluation rows share metric names with update rows (`success/overall`): they go under `eval/<split>/`."""
    return f"eval/{row.get('split', 'unknown')}/" if row.get("kind") == "eval" else ""


def scalars(row: Mapping[str, Any]) -> Iterator[tuple[str, float]]:
    """(tag, value) of every metric of a metrics.jsonl row that is a number (null — not finite — is left out), and
    the SFT `epoch`."""
    prefix = scalar_prefix(row)
    if row.get("epoch") is not None:
        yield "epoch", float(row["epoch"])
    for name, value in row.items():
        if name not in _ROW_KEYS and value is not None:
            yield prefix + name, float(value)


def eval_rows(report: Mapping[str, Any]) -> list[list[Any]]:
    """One row per task type, then `overall`, of an eval/<split>.json report."""
    groups = [*report.get("by_task_type", {}).items(), ("overall", report.get("overall", {}))]
    return [[name, s.get("success"), s.get("n"), s.get("mean_length")] for name, s in groups]


@dataclass
class TrajectorySample:
    """One trajectory as tables: a row per environment step and, when gates were recorded, a row per token."""

    tag: str  # samples/<phase>/<success|failure>
    step: int
    title: str
    skill: str | None
    steps: list[list[Any]] = field(default_factory=list)
    tokens: list[list[Any]] = field(default_factory=list)
    tokens_cut: int = 0  # token rows left out beyond MAX_TOKEN_ROWS


class SampleChooser:
    """Picks the samples: per trajectory file (an update, a collection batch, an evaluated split) the first success
    and the first failure; of Stage-2 updates only the first and every SAMPLE_EVERY-th."""

    def __init__(self) -> None:
        self._taken: set[tuple[Any, ...]] = set()

    def choose(self, record: Mapping[str, Any]) -> TrajectorySample | None:
        phase, update = record.get("phase"), record.get("update")
        if phase == "train" and update != 1 and (update or 0) % SAMPLE_EVERY:
            return None
        outcome = "success" if record.get("success") else "failure"
        key = (phase, update, record.get("task", {}).get("split"), outcome)
        if key in self._taken:
            return None
        self._taken.add(key)
        return trajectory_sample(record, f"samples/{phase}/{outcome}")


def trajectory_sample(record: Mapping[str, Any], tag: str) -> TrajectorySample:
    task = record.get("task", {})
    skill = record.get("skill") or {}
    sample = TrajectorySample(
        tag=tag,
        step=int(record.get("update") or 0),
        title=f"{task.get('type', '')} task {task.get('id', '')}: {task.get('description', '')} "
        f"(reward {record.get('reward')}, {record.get('length')} steps)",
        skill=skill.get("text") if skill else None,
    )
    for step in record.get("steps", []):
        tokens = TokenArrays.decode(step["tokens"]) if "tokens" in step else None
        gates = tokens.gate if tokens is not None else None
        sample.steps.append(
            [
                step.get("t"),
                step.get("observation"),
                step.get("response"),
                step.get("action"),
                step.get("valid"),
                step.get("advantage"),
                sum(gates) / len(gates) if gates else None,
            ]
        )
        if gates is None:
            continue
        for i, text in enumerate(tokens.text):
            if len(sample.tokens) >= MAX_TOKEN_ROWS:
                sample.tokens_cut += 1
                continue
            sample.tokens.append(
                [
                    step.get("t"),
                    i,
                    text,
                    gates[i],
                    tokens.delta[i],
                    tokens.logp[i] if tokens.logp else None,
                    tokens.teacher_logp[i],
                ]
            )
    return sample
