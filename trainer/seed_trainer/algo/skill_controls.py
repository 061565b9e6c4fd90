"""Skill controls (`opd.skill_control`): what the teacher reads in place of a trajectory's own hindsight skill, to
tell a gain that comes from *this trajectory's* skill from one any skill-shaped text would give (docs/research/).

    none        the trajectory's own skill (SEED)
    other_task  the skill written for a trajectory with the same outcome in another task group of the same update:
                group A takes its donors from σ(A), a fixed derangement of the update's groups (each group to the next
                one, the last to the first); within the donor group the trajectory at the nearest copy index, and when
                that one's skill is invalid the next valid one (cyclically); when the donor group has no valid skill of
                that outcome, the group after it
    unrelated   a fixed task-free text from UNRELATED_TEXTS, the one nearest the own skill in length

The receiver keeps its own has-skill flag: a trajectory whose own analysis failed format verification gets no
distillation under any control, so every control distils on the same trajectories as SEED.

The names and their wording are the rows of SKILL_CONTROL_TABLE, which the experiment schema (its enum, description and
rules) and the benchmark's control runs read; `teacher_skills` is what each does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from seed_trainer.algo.variants import ALGORITHM_VARIANTS


@dataclass(frozen=True)
class SkillControl:
    summary: str  # what the teacher reads under it, one line (the schema's description)
    replaces_own_skill: bool  # a control proper (needs an algorithm whose policy writes its own skills), not SEED


SKILL_CONTROL_TABLE: dict[str, SkillControl] = {
    "none": SkillControl("the trajectory's own skill", replaces_own_skill=False),
    "other_task": SkillControl(
        "the skill of a trajectory with the same outcome in another task group of the update", replaces_own_skill=True
    ),
    "unrelated": SkillControl("a fixed task-free text of about the skill's length", replaces_own_skill=True),
}

# The names `opd.skill_control` accepts, in the table's order (the schema's enum).
SKILL_CONTROLS: tuple[str, ...] = tuple(SKILL_CONTROL_TABLE)

# The algorithms whose teacher reads skills the policy wrote about its own trajectories: the ones a control can
# replace them in (experiment/rules.py refuses the others).
SELF_SKILL_ALGORITHMS: list[str] = [name for name, variant in ALGORITHM_VARIANTS.items() if variant.skills == "self"]

# Task-free advice of the lengths a skill has (26–196 characters): none names an object, a place or an action of the
# built-in environments (a test checks the household's). Fixed: a run with `unrelated` is reproducible from its config.
UNRELATED_TEXTS: tuple[str, ...] = (
    "Read slowly and stay calm.",
    "Keep your sentences short and your words plain.",
    "Before you reply, read what you wrote once more and remove any word you do not need.",
    "A short rest after each hour of work keeps the mind clear, and a glass of water helps as much as a coffee.",
    "Write one idea per sentence; when a sentence runs long, split it in two so that each half says one thing clearly.",
    "Numbers read more easily with their digits grouped in threes and their units beside them, and a list reads more "
    "easily when each of its items starts with the same kind of word.",
    "A reply is easiest to follow when it starts with its main point, gives its reasons after that in the order they "
    "matter, and closes with one short sentence that says the point again in other words.",
)


def skill_control_description() -> str:
    """The description of `opd.skill_control` in the experiment schema."""
    named = [f"`{name}` ({control.summary})" for name, control in SKILL_CONTROL_TABLE.items()]
    return (
        f"A placebo for the teacher's skill (a control, not SEED; {', '.join(SELF_SKILL_ALGORITHMS)} only): "
        f"{', '.join(named[:-1])}, or {named[-1]}. A trajectory without a valid own skill is not distilled under any "
        "of them. docs/trainer.md, 'Skill controls'."
    )


@dataclass(frozen=True)
class Written:
    """What a control reads of one trajectory of the update."""

    group: int  # its task group (GRPO group)
    index: int  # its copy within the group
    won: bool
    skill: str | None  # its own skill when valid, else None


@dataclass(frozen=True)
class TeacherSkill:
    """The skill text the teacher reads for one trajectory, and whose it was (None for `unrelated`)."""

    text: str
    group: int | None = None
    index: int | None = None


def derangement(groups: Sequence[int]) -> dict[int, int]:
    """σ over the distinct groups: each to the next in sorted order, the last to the first. No group maps to itself."""
    ordered = sorted(set(groups))
    if len(ordered) < 2:
        raise ValueError(f"`other_task` needs at least two task groups in an update, got {len(ordered)}")
    return {g: ordered[(i + 1) % len(ordered)] for i, g in enumerate(ordered)}


def _donor_in(group: list[Written], receiver: Written) -> Written | None:
    """The same-outcome trajectory of `group` at the nearest copy index (ties: the lower), or the next valid one."""
    same = sorted((w for w in group if w.won == receiver.won), key=lambda w: w.index)
    if not same:
        return None
    start = min(range(len(same)), key=lambda i: (abs(same[i].index - receiver.index), same[i].index))
    for step in range(len(same)):
        candidate = same[(start + step) % len(same)]
        if candidate.skill is not None:
            return candidate
    return None


def other_task_skills(written: Sequence[Written]) -> list[TeacherSkill | None]:
    """Per trajectory, the donor skill of `other_task` (None: no own valid skill, or no donor in any other group)."""
    sigma = derangement([w.group for w in written])
    by_group: dict[int, list[Written]] = {}
    for w in written:
        by_group.setdefault(w.group, []).append(w)
    out: list[TeacherSkill | None] = []
    for receiver in written:
        found = None
        donor_group = sigma[receiver.group]
        while receiver.skill is not None and found is None and donor_group != receiver.group:
            donor = _donor_in(by_group[donor_group], receiver)
            if donor is not None:
                found = TeacherSkill(donor.skill or "", donor.group, donor.index)
            donor_group = sigma[donor_group]
        out.append(found)
    return out


def unrelated_text(length: int) -> str:
    """The text of UNRELATED_TEXTS nearest `length` characters (ties: the shorter)."""
    return min(UNRELATED_TEXTS, key=lambda text: (abs(len(text) - length), len(text)))


def teacher_skills(written: Sequence[Written], control: str) -> list[TeacherSkill | None]:
    """What the teacher reads for each trajectory under `control` (None: no distillation for it)."""
    if control == "none":
        return [TeacherSkill(w.skill, w.group, w.index) if w.skill is not None else None for w in written]
    if control == "other_task":
        return other_task_skills(written)
    if control == "unrelated":
        return [TeacherSkill(unrelated_text(len(w.skill))) if w.skill is not None else None for w in written]
    raise ValueError(f"unknown skill control {control!r} (known: {', '.join(SKILL_CONTROLS)})")
