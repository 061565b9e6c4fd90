"""Metrics, config, evaluations and sample trajectories as TensorBoard event files in `<run>/tensorboard/`."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from seed_trainer.reporting.records import EVAL_COLUMNS, STEP_COLUMNS, TOKEN_COLUMNS, SampleChooser, eval_rows, scalars

LOG_DIR = "tensorboard"
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def inert(value: Any) -> str:
    """A table cell that renders as the text it holds: model output and observations are untrusted, so HTML is escaped
    and every markdown character is backslash-escaped (TensorBoard renders text summaries as markdown)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else f"{value:.4g}" if isinstance(value, float) else str(value)
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=True))
    return "<br>".join(text.splitlines())


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(inert(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _code_block(text: str) -> str:
    # indented, not fenced: no line of the config can end the block early
    return "\n".join("    " + line for line in text.splitlines())


class TensorBoardReporter:
    name = "tensorboard"

    def __init__(self, run_dir: Path, manifest: Mapping[str, Any]) -> None:
        from torch.utils.tensorboard import SummaryWriter  # needs the `tensorboard` package

        # purge_step: after `resume`, TensorBoard hides what the rolled-back update had logged past the checkpoint
        done = int((manifest.get("progress") or {}).get("step") or 0)
        self._writer = SummaryWriter(log_dir=str(Path(run_dir) / LOG_DIR), purge_step=done + 1)
        self._samples = SampleChooser()
        about = {key: manifest.get(key) for key in ("id", "name", "stage", "algorithm", "experiment", "git_commit")}
        self._writer.add_text("run", _code_block(json.dumps(about, indent=2, ensure_ascii=False)), done)
        self._writer.add_text(
            "config", _code_block(json.dumps(manifest.get("config"), indent=2, ensure_ascii=False)), done
        )
        self._writer.flush()

    def metrics(self, row: Mapping[str, Any]) -> None:
        for tag, value in scalars(row):
            self._writer.add_scalar(tag, value, row["step"])
        self._writer.flush()  # one row per update or SFT step: cheap, and TensorBoard shows it at once

    def trajectory(self, record: Mapping[str, Any]) -> None:
        sample = self._samples.choose(record)
        if sample is None:
            return
        parts = [f"**{inert(sample.title)}**"]
        if sample.skill:
            parts.append(f"Skill: {inert(sample.skill)}")
        parts.append(markdown_table(STEP_COLUMNS, sample.steps))
        if sample.tokens:
            parts.append("Per-token gates g = σ(β·Δ):")
            parts.append(markdown_table(TOKEN_COLUMNS, sample.tokens))
        if sample.tokens_cut:
            parts.append(f"({sample.tokens_cut} more tokens not shown)")
        self._writer.add_text(sample.tag, "\n\n".join(parts), sample.step)

    def eval(self, report: Mapping[str, Any]) -> None:
        self._writer.add_text(
            f"eval/{report['split']}/by_task_type",
            markdown_table(EVAL_COLUMNS, eval_rows(report)),
            int(report.get("step") or 0),
        )
        self._writer.flush()

    def close(self, status: str) -> None:
        self._writer.close()
