"""bench/speed/peer_settings.py and peer_task.py (the peer comparison, issue 53), without TRL: the mapped settings give
the two trainers the same work, every TRL default the mapping overrides is named when it is left as it is, and the
sum task gives TRL's dataset the prompts our trainer samples, with the reward worked by hand."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest
from testenv import BENCH

from seed_trainer.experiment.loading import experiment_from_data

sys.path.insert(0, str(BENCH / "speed"))  # the peer scripts import each other by name, as they run

import peer_settings
import peer_task
from peer_settings import PeerSettings, mismatches, ours_experiment, trl_config_kwargs, work_of_ours, work_of_trl

SETTINGS = PeerSettings(prompts=3, group=4, max_new_tokens=24, dtype="bf16", threads=2)

# GRPOConfig's own defaults (TRL 1.16) for the fields the mapping sets, so that "left as TRL has it" can be written.
TRL_DEFAULTS = {
    "beta": 0.0,
    "use_bias_correction_kl": True,
    "activation_checkpointing": True,
    "lr_scheduler_type": "linear",
    "weight_decay": 0.0,
    "num_generations": 8,
}


def _ours(settings=SETTINGS, **changes):
    data = ours_experiment(settings, "builtin:household-tiny", updates=3)
    for section, values in changes.items():
        data[section].update(values)
    return work_of_ours(experiment_from_data(data, BENCH, "test"))


def _trl(settings=SETTINGS, **changes):
    return work_of_trl(SimpleNamespace(**{**trl_config_kwargs(settings, "out", updates=3), **changes}))


def test_the_mapped_settings_are_the_same_work_on_both_sides():
    ours, trl = _ours(), _trl()
    assert mismatches(ours, trl) == []
    assert ours["prompts_per_update"] == 3 and ours["group_size"] == 4 and ours["dtype"] == "bfloat16"
    assert ours["optimizer_steps_per_update"] == 1 and ours["dual_clip"] == "off"


@pytest.mark.parametrize(
    ("field", "named"),
    [
        ("beta", ["kl"]),
        ("use_bias_correction_kl", ["kl"]),
        ("activation_checkpointing", ["gradient_checkpointing"]),
        ("lr_scheduler_type", ["optimizer"]),
        ("weight_decay", ["optimizer"]),
        ("num_generations", ["prompts_per_update", "group_size"]),  # 12 completions: 1 prompt × 8
    ],
)
def test_each_trl_default_the_mapping_sets_is_named_when_left(field, named):
    problems = mismatches(_ours(), _trl(**{field: TRL_DEFAULTS[field]}))
    assert [line.split(":")[0] for line in problems] == named


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"loss_type": "grpo"}, ["loss_aggregation"]),
        ({"epsilon_high": 0.28}, ["clip"]),
        ({"max_completion_length": 25}, ["max_new_tokens"]),
        ({"bf16": False}, ["dtype"]),
        ({"gradient_accumulation_steps": 2}, ["optimizer_steps_per_update"]),
        ({"num_iterations": 2}, ["optimizer_steps_per_update"]),
        ({"scale_rewards": "batch"}, ["advantage"]),
        ({"top_p": 0.9}, ["sampling"]),
        ({"mask_truncated_completions": True}, ["truncated_completions"]),
    ],
)
def test_a_changed_trl_field_is_named(changes, named):
    assert [line.split(":")[0] for line in mismatches(_ours(), _trl(**changes))] == named


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"rl": {"dual_clip": 3.0}}, ["dual_clip"]),
        ({"rl": {"mini_batch_size": 4}}, ["optimizer_steps_per_update"]),  # 12 samples in 3 optimizer steps
        ({"rl": {"reward_scale": 10.0}}, ["reward"]),
        ({"rollout": {"group_size": 8}}, ["group_size", "optimizer_steps_per_update"]),  # 24 samples, mini-batch 12
        ({"model": {"dtype": "float32"}}, ["dtype"]),
    ],
)
def test_a_changed_field_of_ours_is_named(changes, named):
    assert [line.split(":")[0] for line in mismatches(_ours(**changes), _trl())] == named


def test_the_dual_clip_stand_in_never_binds():
    # ours clamps the log-ratio to ±20 before exp, so no ratio exceeds e^20 ≈ 4.85e8 < DUAL_CLIP_OFF
    from seed_trainer.algo.losses import LOG_RATIO_CLAMP

    assert 2.718281828**LOG_RATIO_CLAMP < peer_settings.DUAL_CLIP_OFF


def test_the_reward_is_the_first_integer_against_the_sum():
    assert peer_task.reward("12", 12) == 1.0
    assert peer_task.reward("The answer is 12.", 12) == 1.0
    assert peer_task.reward("7 + 5 = 12", 12) == 0.0  # the first integer is 7
    assert peer_task.reward("-3", -3) == 1.0
    assert peer_task.reward("twelve", 12) == 0.0
    assert peer_task.sum_reward([[{"role": "assistant", "content": "12"}], "11"], [12, 11]) == [1.0, 1.0]


def test_trl_gets_the_prompts_our_trainer_samples_in_each_update():
    source = peer_task.SumTasks()
    rows = peer_task.trl_rows(seed=7, updates=2, prompts_per_update=3)
    ours = [s for u in (1, 2) for s in source.sample("train", 3, seed=7 * 1_000_003 + u)]
    assert [r["prompt"] for r in rows] == [[{"role": "user", "content": s.question}] for s in ours]
    assert [r["answer"] for r in rows] == [s.a + s.b for s in ours]
    assert source.sample("train", 3, seed=1) != source.sample("train", 3, seed=2)


def test_the_environment_is_one_step_and_its_prompt_is_the_question():
    source = peer_task.SumTasks()
    (spec,) = source.sample("train", 1, seed=0)
    task, observation = source.make(spec).reset()
    prompt = source.step_prompt(
        task=task, observation=observation.text, admissible_actions=[], history=[], history_length=0
    )
    assert prompt == f"What is {spec.a} + {spec.b}? Reply with the number only."
    assert source.parse_response("no number") == ("no number", None)  # every reply is valid: the score is the reward
    result = source.make(spec).step(str(spec.a + spec.b))
    assert result.done and result.won
    assert not source.make(spec).step(str(spec.a + spec.b + 1)).won
