"""The `static` analyzer: a static skill bank (the SDAR baseline's teacher context, and SEED's "static offline skill
library" ablation) writes every trajectory's skill, the same text for every task of a type.

A folder of markdown files: `general.md` applies to every task, `<task_type>.md` to tasks of that type. The text for
a task is the general part followed by its type's part; the teacher prompt is that text in front of the step prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from seed_trainer.algo.json_repair import SkillParse
from seed_trainer.analyzers.base import Analysis
from seed_trainer.rl.rollout import Episode


@dataclass(frozen=True)
class SkillBank:
    general: str
    by_type: dict[str, str]

    @classmethod
    def load(cls, folder: str | Path) -> SkillBank:
        folder = Path(folder)
        if not folder.is_dir():
            raise FileNotFoundError(f"sdar.skill_bank: {folder} is not a folder of markdown files")
        texts = {path.stem: path.read_text(encoding="utf-8").strip() for path in sorted(folder.glob("*.md"))}
        if not texts:
            raise ValueError(f"sdar.skill_bank: {folder} holds no .md files")
        general = texts.pop("general", "")
        return cls(general, texts)

    def for_task_type(self, task_type: str) -> str:
        return "\n\n".join(part for part in (self.general, self.by_type.get(task_type, "")) if part)

    @staticmethod
    def insert(prompt: str, skills: str) -> str:
        """Privileged context in front of the step prompt (SDAR's teacher prompt)."""
        return f"{skills}\n\n{prompt}" if skills.strip() else prompt


class StaticBankAnalyzer:
    """Each trajectory's skill is its task type's text from the bank, whatever happened in it (no reply: `raw` None).
    The teacher prompt holds it with the bank's `insert`, SDAR's, in place of the default skill insertion."""

    source = "static"
    model = None

    def __init__(self, bank: SkillBank) -> None:
        self.bank = bank
        self.insert = bank.insert

    def analyze(self, episodes: Sequence[Episode]) -> list[Analysis]:
        return [Analysis(None, _static_skill(self.bank.for_task_type(episode.task.type))) for episode in episodes]


def _static_skill(text: str) -> SkillParse:
    """The bank's text shaped like a parsed analysis (for the teacher pass and the trajectory record)."""
    return SkillParse(valid=bool(text.strip()), skill=text, summary="", reason="")
