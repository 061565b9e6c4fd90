"""What a hindsight skill is about: does it name its own trajectory's task? (docs/run-format.md §6, `skill/…`)

A format-valid skill can describe another task altogether (the tiny policy writes "Clean the pan with the fridge…" for
"cool some lettuce and put it in garbagecan"); then an "own skill" is a placebo, and the parse rate does not show it.
The task's terms are the content words of its description — the object and the receptacle (or lamp) for the household
and ALFWorld phrasings — without the verbs, articles and the transform's adjective, which every task of a type shares:

    summary names the task    every term of the task is in the episode summary
    skill names the target    at least one term (the object or the receptacle) is in the skill

Words are compared whole and lower-cased, so "pan" is not found in "pans" nor "cup" in "cupboard".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Words of a task sentence that name no object or place: ALFWorld's phrasings ("put a hot apple in fridge.",
# "find two pencil and put them in drawer.", "examine the pillow with the desklamp.").
FUNCTION_WORDS = frozenset(
    "a an the some two and it them in on at under with into onto to of put find look examine place take".split()
)
TRANSFORM_WORDS = frozenset("clean cleaned heat heated hot warm cool cooled cold chill chilled".split())


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def task_terms(description: str) -> list[str]:
    """The content words of a task sentence, in order: `put a hot apple in fridge.` → [apple, fridge]."""
    seen: list[str] = []
    for word in re.findall(r"[a-z0-9]+", description.lower()):
        if word not in FUNCTION_WORDS and word not in TRANSFORM_WORDS and word not in seen:
            seen.append(word)
    return seen


def summary_names_task(summary: str, description: str) -> bool:
    """Every term of the task is in the summary (a task without terms is named by any summary)."""
    return set(task_terms(description)) <= words(summary)


def skill_names_target(skill: str, description: str) -> bool:
    """The skill names the task's object or its receptacle (a task without terms: True)."""
    terms = set(task_terms(description))
    return not terms or bool(terms & words(skill))


def relevance_metrics(skills: Sequence[tuple[str, str, str]]) -> dict[str, float | None]:
    """`skill/summary_names_task` and `skill/names_task_target`: the shares of (task description, summary, skill) of
    an update's valid skills; None when there is none."""
    if not skills:
        return {"skill/summary_names_task": None, "skill/names_task_target": None}
    return {
        "skill/summary_names_task": sum(summary_names_task(s, d) for d, s, _ in skills) / len(skills),
        "skill/names_task_target": sum(skill_names_target(k, d) for d, _, k in skills) / len(skills),
    }
