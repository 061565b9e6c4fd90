"""bench/speed/agent_sft_layout.py: the best round and the ratios against the step layout, worked by hand, and a
`--quick` run on the tiny policy that measures every configuration and both prompt formats (no timing is asserted)."""

from __future__ import annotations

import json

import pytest
from testenv import bench_module


@pytest.fixture(scope="module")
def layout():
    return bench_module("agent_sft_layout")


def test_the_best_round_and_the_rates_against_the_step_layout(layout):
    rounds = [
        {
            "step": {"cpu_s": 10.0, "decisions": 40, "tokens": 8000},
            "packed": {"cpu_s": 4.0, "decisions": 40, "tokens": 5000},
        },
        {
            "step": {"cpu_s": 8.0, "decisions": 40, "tokens": 8000},
            "packed": {"cpu_s": 5.0, "decisions": 40, "tokens": 5000},
        },
    ]
    summary = layout.summarise(rounds)
    # step: best round 8 s → 5 decisions/s; packed: best round 4 s → 10 decisions/s, twice the step layout's
    assert summary["step"]["cpu_s"] == 8.0 and summary["step"]["decisions_per_cpu_s"] == 5.0
    assert summary["step"]["rate_over_step"] == 1.0 and summary["step"]["tokens_per_cpu_s"] == 1000.0
    assert summary["packed"]["decisions_per_cpu_s"] == 10.0 and summary["packed"]["rate_over_step"] == 2.0
    assert summary["packed"]["tokens_per_cpu_s"] == 1250.0
    assert (
        layout.configuration_name("packed", 15) == "packed+frozen15" and layout.configuration_name("step", 0) == "step"
    )


def test_a_quick_run_measures_every_configuration_and_both_formats(layout, capsys):
    assert layout.main(["--quick"]) == 0
    report = json.loads(capsys.readouterr().out)
    training = report["training"]
    assert list(training) == ["step", "step+frozen1", "packed", "packed+frozen1"]
    # the same demonstrations in every configuration: the same decisions, fewer sequences when packed
    assert len({row["decisions"] for row in training.values()}) == 1
    assert training["packed"]["sequences"] < training["step"]["sequences"]
    assert training["step"]["rate_over_step"] == 1.0
    assert {report["rollout"]["step"]["steps"], report["rollout"]["chat"]["steps"]} == {2}
    assert report["rollout"]["chat"]["prompt_tokens_per_step"] > 0
