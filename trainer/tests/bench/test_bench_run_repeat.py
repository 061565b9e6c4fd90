"""bench/learning/run_repeat.py on hand-made report entries."""

from __future__ import annotations

from run_repeat import compare, first_curve_difference, outcome_differences


def entry(last10: float, seen: str, curve_60: float) -> dict:
    return {
        "train_success_first10": 0.475,
        "train_success_last10": last10,
        "train_success_last5": 0.5,
        "final": {"valid_seen": [seen.count("1") / len(seen), len(seen)]},
        "curve": {"valid_seen": [[0, 0.5], [20, 0.6], [60, curve_60]]},
        "final_outcomes": {"valid_seen": {"tasks": "abc", "success": seen}},
    }


def report(e: dict) -> dict:
    return {"algorithms": {"grpo": {"1": e}}}


def test_compare_names_where_each_report_leaves_the_reference():
    stored, same, other = entry(0.56, "1100", 0.7), entry(0.56, "1100", 0.7), entry(0.52, "1001", 0.6)
    result = compare([("stored", report(stored)), ("a", report(same)), ("b", report(other))], "grpo", 1)
    assert result["reports"]["a"]["same_summary_as_reference"] is True
    assert result["reports"]["a"]["final_tasks_differing"] == {"valid_seen": 0}
    assert result["reports"]["a"]["first_eval_difference"] == {"valid_seen": None}
    assert result["reports"]["b"]["same_summary_as_reference"] is False
    assert result["reports"]["b"]["final_tasks_differing"] == {"valid_seen": 2}
    assert result["reports"]["b"]["first_eval_difference"] == {"valid_seen": 60}


def test_other_tasks_do_not_pair():
    a, b = entry(0.5, "11", 0.5), entry(0.5, "11", 0.5)
    b["final_outcomes"]["valid_seen"]["tasks"] = "xyz"
    assert outcome_differences(a, b) == {"valid_seen": None}
    assert first_curve_difference(a, {"curve": {}}) == {"valid_seen": None}
