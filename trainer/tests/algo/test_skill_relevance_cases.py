"""The skill-relevance rule against the cases the extension's viewer (src/runs/shared/skillRelevance.ts) checks too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seed_trainer.algo.skill_relevance import skill_names_target, summary_names_task, task_terms

CASES = Path(__file__).resolve().parents[3] / "test" / "fixtures" / "skills" / "relevance-cases.json"


@pytest.mark.parametrize("case", json.loads(CASES.read_text(encoding="utf-8"))["cases"], ids=lambda c: c["skill"][:30])
def test_what_a_skill_is_about(case):
    assert task_terms(case["task"]) == case["terms"]
    assert summary_names_task(case["summary"], case["task"]) is case["summary_names_task"]
    assert skill_names_target(case["skill"], case["task"]) is case["skill_names_target"]
