"""Per-update quantiles of g and Δ (docs/run-format.md §6): the trainer's function against numbers worked out by hand,
and the readers' summary and order rule."""

import math

import pytest
import torch

from seed_trainer.algo.token_quantiles import token_quantiles
from seed_trainer.runlog.quantiles import QUANTILE_LEVELS, quantile_order_error, quantile_summary


def test_quantiles_interpolate_between_ranks_by_hand():
    # sorted: 0.1 0.3 0.5 0.7 0.9 (n = 5, positions q·4)
    out = token_quantiles(torch.tensor([0.9, 0.1, 0.5, 0.3, 0.7], dtype=torch.float64), "gate", QUANTILE_LEVELS)
    expected = {
        "gate/count": 5,
        "gate/min": 0.1,
        "gate/p05": 0.14,  # position 0.2: 0.1 + 0.2·(0.3 − 0.1)
        "gate/p25": 0.3,  # position 1
        "gate/p50": 0.5,
        "gate/p75": 0.7,
        "gate/p95": 0.86,  # position 3.8: 0.7 + 0.8·(0.9 − 0.7)
        "gate/max": 0.9,
    }
    assert out.keys() == expected.keys()
    for key, value in expected.items():
        assert out[key] == pytest.approx(value, abs=1e-12), key
    assert isinstance(out["gate/count"], int)


def test_even_count_and_two_dimensional_input():
    # sorted: −2 −1 0 4 (n = 4, positions q·3): p25 at 0.75 → −1.25; p50 at 1.5 → −0.5; p75 at 2.25 → 1
    out = token_quantiles(torch.tensor([[0.0, -2.0], [4.0, -1.0]]), "delta", QUANTILE_LEVELS)
    assert (out["delta/p25"], out["delta/p50"], out["delta/p75"]) == pytest.approx((-1.25, -0.5, 1.0))
    assert (out["delta/min"], out["delta/max"], out["delta/count"]) == (-2.0, 4.0, 4)


def test_non_finite_values_are_left_out_and_counted_out():
    out = token_quantiles(torch.tensor([1.0, math.nan, math.inf, 3.0, -math.inf]), "delta", QUANTILE_LEVELS)
    assert out["delta/count"] == 2
    assert (out["delta/min"], out["delta/p05"], out["delta/p50"], out["delta/p95"]) == pytest.approx((1, 1.1, 2, 2.9))


def test_no_value_gives_nulls_and_count_zero():
    out = token_quantiles(torch.empty(0), "gate", QUANTILE_LEVELS)
    assert out["gate/count"] == 0
    assert all(out[f"gate/{key}"] is None for key in ("min", "p05", "p25", "p50", "p75", "p95", "max"))


def test_one_value_is_every_quantile():
    out = token_quantiles(torch.tensor([0.25]), "gate", QUANTILE_LEVELS)
    assert {out[f"gate/{k}"] for k in ("min", "p05", "p25", "p50", "p75", "p95", "max")} == {0.25}


def test_agrees_with_torch_quantile():
    values = torch.randn(1001, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    out = token_quantiles(values, "delta", QUANTILE_LEVELS)
    levels = torch.tensor([0.05, 0.25, 0.5, 0.75, 0.95], dtype=torch.float64)
    reference = torch.quantile(values, levels).tolist()
    assert [out[f"delta/{k}"] for k in ("p05", "p25", "p50", "p75", "p95")] == pytest.approx(reference, abs=1e-12)


def _row(**values):
    return {"step": 1, "time": "2026-03-01T12:00:00Z", "kind": "update", **values}


def test_summary_of_a_row():
    row = _row(**token_quantiles(torch.tensor([0.2, 0.4]), "gate", QUANTILE_LEVELS))
    summary = quantile_summary(row, "gate")
    assert summary is not None and summary["count"] == 2 and summary["p50"] == pytest.approx(0.3)
    assert quantile_summary(row, "delta") is None  # not in the row
    assert (
        quantile_summary(_row(**token_quantiles(torch.empty(0), "gate", QUANTILE_LEVELS)), "gate") is None
    )  # no token distilled


def test_order_rule_names_the_line_and_the_field():
    good = _row(**token_quantiles(torch.tensor([0.1, 0.2, 0.9]), "gate", QUANTILE_LEVELS))
    bad = {**good, "gate/p75": 0.05}
    assert quantile_order_error([(1, good)]) is None
    assert quantile_order_error([(1, {**good, "gate/p25": None})]) is None  # nulls are skipped
    error = quantile_order_error([(1, good), (2, bad)])
    assert error is not None and (error.kind, error.line, error.field) == ("consistency", 2, "gate/p75")
    assert str(error).startswith("metrics.jsonl:2: gate/p75: 0.05 is below gate/p50 0.2 (quantiles never decrease")
