"""bench/speed/smollm2_speed.py's arithmetic: configurations parsed with located errors, the minimum per phase over rounds,
ratios to the baseline, and the projection to a target protocol, each checked against numbers worked by hand."""

from __future__ import annotations

import pytest
from testenv import bench_module


@pytest.fixture(scope="module")
def speed():
    return bench_module("smollm2_speed")


def test_a_configuration_reads_its_five_parts(speed):
    config = speed.parse_config("vllm/bf16/lora/h3/self")
    assert (config.engine, config.dtype, config.tuning, config.history, config.skills) == (
        "vllm",
        "bf16",
        "lora",
        3,
        "self",
    )
    assert config.label == "vllm/bf16/lora/h3/self"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hf/bf16/full/h1", "expected ENGINE/DTYPE/TUNING/hHISTORY/SKILLS"),
        ("tgi/bf16/full/h1/oracle", "engine 'tgi' is not one of hf, vllm"),
        ("hf/fp16/full/h1/oracle", "dtype 'fp16' is not one of fp32, bf16"),
        ("hf/bf16/qlora/h1/oracle", "tuning 'qlora' is not one of full, lora"),
        ("hf/bf16/full/1/oracle", "history '1' is not h<number>"),
        ("hf/bf16/full/h1/bank", "skills 'bank' is not one of oracle, self"),
    ],
)
def test_a_wrong_part_is_named(speed, text, message):
    with pytest.raises(ValueError, match=message):
        speed.parse_config(text)


def test_the_command_line_refuses_a_bad_configuration_before_running_anything(speed):
    with pytest.raises(SystemExit, match="--configs: configuration 'hf/bf16/full/h1'"):
        speed.main(["--configs", "hf/bf16/full/h1", "--out", "/dev/null"])


def _round(rollout, teacher, update, eval_s, analysis=0.0):
    phases = {"rollout": rollout, "logprobs": 2.0, "analysis": analysis, "teacher": teacher, "update": update}
    return {
        "phases_s": {**phases, "total": sum(phases.values())},
        "eval_s": eval_s,
        "eval_episode_steps": 10,
        "startup_s": 30.0,
        "samples": 8,
        "trajectories": 4,
    }


def test_each_phase_keeps_its_least_disturbed_round_and_the_ratios_use_the_first_configuration(speed):
    base = speed.summarize(speed.parse_config("hf/bf16/full/h1/oracle"), [_round(8, 4, 6, 20), _round(12, 2, 9, 30)])
    assert base["phases_s"]["rollout"] == 8 and base["phases_s"]["teacher"] == 2 and base["phases_s"]["update"] == 6
    assert base["per_sample_s"]["rollout"] == 1.0  # 8 s over 8 step samples
    assert base["eval_s_per_episode_step"] == 2.0  # 20 s over 10 episode steps
    other = speed.summarize(speed.parse_config("vllm/bf16/full/h1/oracle"), [_round(2, 1, 12, 5)])
    failed = speed.summarize(speed.parse_config("vllm/fp32/full/h1/oracle"), [{"error": "exit 1: boom"}])
    results = [base, other, failed]
    speed.add_ratios(results)
    assert other["ratio_to_baseline"]["rollout"] == 0.25
    assert other["ratio_to_baseline"]["teacher"] == 0.5
    assert other["ratio_to_baseline"]["update"] == 2.0
    assert other["ratio_to_baseline"]["eval"] == 0.25  # 0.5 s against 2 s an episode step
    assert "analysis" not in other["ratio_to_baseline"]  # the baseline has no analysis time to compare with
    assert failed["error"] == "exit 1: boom" and "ratio_to_baseline" not in failed


def test_the_projection_scales_per_sample_and_adds_the_passes_each_algorithm_has(speed):
    config = speed.parse_config("hf/bf16/full/h1/oracle")
    oracle = speed.summarize(config, [_round(8, 4, 6, 20)])  # per sample: 1 + 0.25 + 0.5 (teacher) + 0.75
    own = speed.summarize(speed.parse_config("hf/bf16/full/h1/self"), [_round(8, 0, 6, 20, analysis=12)])
    target = {"tasks": 2, "group": 4, "steps": 10, "updates": 30, "evaluations": 5, "eval_tasks": 100}
    projected = speed.project(oracle, own, target)
    # 80 samples: GRPO (1 + 0.25 + 0.75) × 80 = 160; + teacher 0.5 × 80 = 200; + analysis 3 s × 8 trajectories = 224
    assert projected["seconds_per_update"] == {"grpo": 160, "seed_oracle": 200, "seed": 224}
    assert projected["seconds_per_evaluation"] == 2000  # 2 s × 100 tasks × 10 steps
    # 30 updates and 5 evaluations: (160 × 30 + 2000 × 5) / 3600
    assert projected["hours_per_run"]["grpo"] == pytest.approx(4.1)
    assert "seed" not in speed.project(oracle, None, target)["seconds_per_update"]
