"""The premise report's sections from hand-made scored rows (premise/report.py): win rates per source and kind, the
paired contrast against the placebo, the AUC section and its n/a, the gate band per token kind."""

from __future__ import annotations

import pytest

from seed_trainer.algo.premise_stats import Scored
from seed_trainer.premise.report import PairRow, StepRow, expert_section, gate_band, outcome_section


def action(value: float) -> Scored:
    return Scored((value,), ("action",))


def pair(task, state, kind, source, expert, mistake):
    return PairRow(task, state, kind, source, action(expert), action(mistake))


ROWS = [
    # task t1: the oracle skill prefers a* twice; its placebo once of two
    pair("t1", 0, "invalid", "oracle", 0.4, -0.1),
    pair("t1", 1, "revisit", "oracle", 0.2, 0.0),
    pair("t1", 0, "invalid", "placebo_oracle", 0.1, 0.3),
    pair("t1", 1, "revisit", "placebo_oracle", 0.0, -0.2),
    # task t2: the oracle skill ties once, loses once; the placebo loses both
    pair("t2", 0, "invalid", "oracle", 0.0, 0.0),
    pair("t2", 2, "invalid", "oracle", -0.3, 0.1),
    pair("t2", 0, "invalid", "placebo_oracle", -0.1, 0.0),
    pair("t2", 2, "invalid", "placebo_oracle", -0.2, 0.5),
]


def test_expert_section_by_hand():
    section = expert_section(ROWS, {"own": "the model wrote no parseable skill"}, states=4, resamples=200, seed=0)
    oracle = section["sources"]["oracle"]
    assert oracle["win_rate"] == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    assert oracle["by_kind"]["invalid"]["win_rate"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert oracle["by_kind"]["revisit"] == {"pairs": 1, "tasks": 1, "win_rate": 1.0, "interval": [None, None]}
    assert oracle["mean_delta_expert"] == pytest.approx((0.4 + 0.2 + 0.0 - 0.3) / 4)
    assert oracle["mean_delta_mistake"] == pytest.approx((-0.1 + 0.0 + 0.0 + 0.1) / 4)
    assert section["sources"]["placebo_oracle"]["win_rate"] == pytest.approx(0.25)
    assert section["sources"]["own"] == {"status": "n/a", "reason": "the model wrote no parseable skill"}
    (contrast,) = section["contrasts"]
    assert contrast["source"] == "oracle" and contrast["placebo"] == "placebo_oracle" and contrast["tasks"] == 2
    assert contrast["difference"] == pytest.approx(0.625 - 0.25)
    low, high = contrast["interval"]
    # resampling two tasks: t1 twice gives 1 − 0.5, t2 twice 0.25 − 0, both once the full difference
    assert low == pytest.approx(0.25) and high == pytest.approx(0.5)


def step(task, success, source, value):
    return StepRow(task, task + "-traj", 0, success, source, action(value))


def test_outcome_section_auc_and_its_placebo():
    rows = [
        step("t1", True, "own", 1.0),
        step("t2", False, "own", 0.0),
        step("t3", True, "own", 0.5),
        step("t1", True, "placebo_own", 0.0),
        step("t2", False, "placebo_own", 0.0),
        step("t3", True, "placebo_own", 1.0),
    ]
    section = outcome_section(rows, {}, resamples=200, seed=0)
    assert section["sources"]["own"]["auc"] == 1.0
    assert section["sources"]["placebo_own"]["auc"] == pytest.approx((0.5 + 1.0) / 2)
    (contrast,) = section["contrasts"]
    assert contrast["difference"] == pytest.approx(0.25)
    only_wins = outcome_section(
        [step("t1", True, "own", 1.0), step("t3", True, "own", 0.0)], {"recorded": "none"}, resamples=10, seed=0
    )
    assert only_wins["sources"]["own"] == {"status": "n/a", "reason": "2 steps of successful and 0 of failed episodes"}
    assert only_wins["sources"]["recorded"] == {"status": "n/a", "reason": "none"}
    assert only_wins["contrasts"] == []


def test_gate_band_counts_per_source_and_kind():
    scored = [("own", Scored((0.0, 0.3, -0.3, 0.001), ("think", "action", "format", "action")))]
    band = gate_band(scored, beta=5.0)
    assert band["neutral_band"] == {"gate": 0.025, "delta": 0.1}
    own = band["sources"]["own"]
    assert own["action"] == {"tokens": 2, "outside": 1, "share_outside": 0.5, "mean_abs_delta": pytest.approx(0.1505)}
    assert own["think"]["outside"] == 0 and own["format"]["outside"] == 1
