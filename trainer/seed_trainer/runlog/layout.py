"""Names and places inside a run directory, and the format version this code reads and writes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: The integer major version of the run-directory format (run.json `format_version`). Additive changes (a new optional
#: field, a new metric name, a new event type) keep it; anything a reader of this version could misread bumps it.
FORMAT_VERSION = 1

MANIFEST = "run.json"
EVENTS = "events.jsonl"
METRICS = "metrics.jsonl"
SKILLS = "skills.jsonl"
CONTROL = "control"
TAGS = "tags.json"  # the user's labels of a run, written by the extension (never by the trainer)
LOCK = "lock"  # the owner lock (runlog/ownership.py)
# Space the writer holds while a run is live and frees when it ends, so that the last run.json and events can be
# written on a disk that filled up (runlog/writer.py).
SPACE_RESERVE = ".space-reserve"
SPACE_RESERVE_BYTES = 48 * 1024
TRAJECTORIES_DIR = "trajectories"
TRAJECTORY_INDEX = "trajectories/index.jsonl"
EVAL_DIR = "eval"
CHECKPOINTS_DIR = "checkpoints"

STAGES = ("collect", "sft", "train", "eval")
STATUSES = ("running", "stopping", "stopped", "failed", "completed")
FINAL_STATUSES = ("stopped", "failed", "completed")
PHASES = ("collect", "train", "eval")

CHECKPOINT_NAME = re.compile(r"^step-(\d{6,})$")
UPDATE_TRAJECTORY_FILE = re.compile(r"^it-(\d{6,})\.jsonl$")
CHECKPOINT_MANIFEST = "manifest.json"  # written last into a checkpoint: its files and their sizes
#: Leftovers of an interrupted write: `.<name>.tmp-<pid>` beside a whole-file document, `checkpoints/.tmp-*`/`.old-*`.
STALE_DOCUMENT_TEMP = re.compile(r"^\..+\.tmp-\d+$")
STALE_CHECKPOINT_TEMP = re.compile(r"^\.(tmp|old)-step-\d{6,}$")
SPLIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def trajectory_file_name(phase: str, number: int | str) -> str:
    """`it-000001.jsonl` for update 1 of training, `collect-000003.jsonl`, `eval-<split>.jsonl`."""
    if phase == "train":
        return f"it-{int(number):06d}.jsonl"
    if phase == "collect":
        return f"collect-{int(number):06d}.jsonl"
    if phase == "eval":
        if not SPLIT_NAME.match(str(number)):
            raise ValueError(f"eval split name {number!r} must match {SPLIT_NAME.pattern}")
        return f"eval-{number}.jsonl"
    raise ValueError(f"unknown trajectory phase {phase!r}; expected one of {PHASES}")


def checkpoint_name(step: int) -> str:
    return f"step-{step:06d}"


@dataclass(frozen=True)
class RunPaths:
    """Absolute paths of the files of one run directory."""

    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    @property
    def events(self) -> Path:
        return self.root / EVENTS

    @property
    def metrics(self) -> Path:
        return self.root / METRICS

    @property
    def skills(self) -> Path:
        return self.root / SKILLS

    @property
    def control(self) -> Path:
        return self.root / CONTROL

    @property
    def tags(self) -> Path:
        return self.root / TAGS

    @property
    def lock(self) -> Path:
        return self.root / LOCK

    @property
    def trajectories(self) -> Path:
        return self.root / TRAJECTORIES_DIR

    @property
    def trajectory_index(self) -> Path:
        return self.root / TRAJECTORY_INDEX

    @property
    def eval_dir(self) -> Path:
        return self.root / EVAL_DIR

    @property
    def checkpoints(self) -> Path:
        return self.root / CHECKPOINTS_DIR

    def trajectory_file(self, name: str) -> Path:
        return self.trajectories / name

    def eval_file(self, split: str) -> Path:
        if not SPLIT_NAME.match(split):
            raise ValueError(f"eval split name {split!r} must match {SPLIT_NAME.pattern}")
        return self.eval_dir / f"{split}.json"

    def checkpoint(self, step: int) -> Path:
        return self.checkpoints / checkpoint_name(step)

    def relative(self, path: Path) -> str:
        """The POSIX path of `path` relative to the run directory (how errors and records name files)."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def nearest_kept(kept: Iterable[int], wanted: int) -> int | None:
    """Of the kept steps (0: the starting model), the one nearest to `wanted` in updates, the earlier of two as near;
    None when none is kept. The extension applies the same rule (src/whatIf/shared/weights.ts `nearestKept`; the
    cases both check: test/fixtures/whatif/weights-rule.json)."""
    return min(kept, key=lambda step: (abs(step - wanted), step), default=None)
