"""The premise check's statistics against hand-computed numbers (algo/premise_stats.py)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from seed_trainer.algo.premise_stats import (
    NEUTRAL_DELTA,
    NEUTRAL_GATE,
    Scored,
    auc,
    cluster_interval,
    gate,
    outside_neutral,
    placebo_donors,
    token_kinds,
    win_rate,
)

BAND = Path(__file__).resolve().parents[3] / "test" / "fixtures" / "premise" / "neutral-band.json"


def test_win_rate_counts_ties_half():
    assert win_rate([(1.0, 0.0), (0.0, 0.0), (0.0, 1.0)]) == pytest.approx(0.5)
    assert win_rate([(0.3, -0.2), (0.1, 0.0)]) == 1.0
    assert math.isnan(win_rate([]))


def test_auc_is_the_mann_whitney_share():
    # pairs (3,2) (3,0) (1,2) (1,0): three of four favour the positive side
    assert auc([3.0, 1.0], [2.0, 0.0]) == pytest.approx(0.75)
    # a tie counts ½: (1 vs 1) ½, (2 vs 1) 1 → 0.75
    assert auc([1.0, 2.0], [1.0]) == pytest.approx(0.75)
    assert auc([0.0, 0.0], [0.0, 0.0]) == pytest.approx(0.5)
    assert math.isnan(auc([], [1.0]))
    # against the O(n·m) definition on a random sample with ties
    rng = random.Random(3)
    xs, ys = [rng.choice((0, 1, 2, 3)) for _ in range(40)], [rng.choice((0, 1, 2)) for _ in range(30)]
    brute = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in xs for y in ys) / (len(xs) * len(ys))
    assert auc(xs, ys) == pytest.approx(brute)


def test_cluster_interval_resamples_whole_tasks_with_its_seed():
    clusters = {"a": [1.0, 1.0, 1.0, 1.0], "b": [0.0]}

    def mean(rows):
        return sum(rows) / len(rows)

    # one resample: the rng draws two cluster indices over the sorted keys (a, b); the pooled mean of those clusters
    rng = random.Random(7)
    drawn = [["a", "b"][rng.randrange(2)] for _ in range(2)]
    pooled = [v for k in drawn for v in clusters[k]]
    assert cluster_interval(clusters, mean, resamples=1, seed=7) == (mean(pooled), mean(pooled))
    # whole clusters only: every pooled mean is 1 (a, a), 0.8 (a, b) or 0 (b, b), so the 95 % ends are 0 and 1
    assert cluster_interval(clusters, mean, resamples=2000, seed=1) == (0.0, 1.0)
    assert cluster_interval({"a": [1.0]}, mean) == (pytest.approx(math.nan, nan_ok=True),) * 2


def test_token_kinds_follow_the_blocks_and_straddling_tokens_go_with_their_text():
    text = "<think>go on</think><action>take apple 1</action>"
    # spans: "<think>" | "go on" | "</think><action>" | "take apple" | " 1</action>" | end of turn (empty)
    offsets = [(0, 7), (7, 12), (12, 28), (28, 38), (38, 49), (49, 49)]
    assert token_kinds(text, offsets) == ["format", "think", "format", "action", "action", "format"]
    # "; ok</think><action>" holds think text: think; a tag inside the action span's neighbour stays format
    text2 = "<think>ok; ok</think><action>look</action>"
    assert token_kinds(text2, [(0, 9), (9, 29), (29, 33), (33, 42)]) == ["think", "think", "action", "format"]
    assert token_kinds("no tags", [(0, 2), (2, 7)]) == ["format", "format"]


@pytest.mark.parametrize("case", json.loads(BAND.read_text(encoding="utf-8"))["cases"], ids=str)
def test_neutral_band_is_the_viewers(case):
    if case["mode"] == "delta":
        assert (abs(case["value"]) < NEUTRAL_DELTA) is case["neutral"]
    else:
        assert (abs(case["value"] - 0.5) < NEUTRAL_GATE) is case["neutral"]


def test_gate_and_the_tokens_outside_the_band():
    assert gate(0.0, 5.0) == 0.5
    assert gate(0.1, 5.0) == pytest.approx(1 / (1 + math.exp(-0.5)))
    assert gate(-40.0, 5.0) == pytest.approx(0.0, abs=1e-12)
    # β = 5: |g − ½| ≥ 0.025 from |Δ| ≈ 0.02 on
    assert outside_neutral([0.0, 0.004, -0.004, 0.03, -0.5], 5.0) == 2


def test_scored_sums_action_tokens_and_the_whole_response():
    scored = Scored((0.5, -0.25, 1.0, 2.0), ("think", "action", "action", "format"))
    assert scored.action_sum == pytest.approx(0.75)
    assert scored.total == pytest.approx(3.25)


def test_placebo_donors_take_the_next_same_outcome_task_of_another_type():
    outcomes = [True, True, False, False, True]
    types = ["a", "b", "a", "a", "a"]
    assert placebo_donors(outcomes, types) == [1, 4, 3, 2, 1]
    assert placebo_donors([True, False], ["a", "b"]) == [None, None]
