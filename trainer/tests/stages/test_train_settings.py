"""The Stage-2 loop's settings (stages/train_settings.py): what each field becomes from a hand-written experiment, and
that every field reaches the function it is named for."""

from __future__ import annotations

import inspect
from dataclasses import asdict, fields
from types import SimpleNamespace

import pytest
import torch

from seed_trainer.algo.skills import insert_skill
from seed_trainer.analyzers import stage2_analyzer
from seed_trainer.analyzers.static_bank import SkillBank
from seed_trainer.compute.policy import Policy
from seed_trainer.experiment.loading import experiment_from_data
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.rl.teacher import teacher_pass
from seed_trainer.rl.update import LossSettings
from seed_trainer.stages import train as train_stage
from seed_trainer.stages import train_settings
from seed_trainer.stages.train_settings import (
    LoopSettings,
    RolloutSettings,
    ScoringSettings,
    TeacherSettings,
    loop_settings,
)

CPU, CUDA = torch.device("cpu"), torch.device("cuda")


def _config(tmp_path, algorithm="seed", **rl):
    (tmp_path / "bank").mkdir(exist_ok=True)
    (tmp_path / "bank" / "general.md").write_text("Look before you act.", encoding="utf-8")
    data = {
        "name": "settings",
        "algorithm": algorithm,
        "model": {"path": "builtin:household-tiny"},
        "environment": {"name": "household"},
        "rollout": {
            "tasks_per_update": 2,
            "group_size": 5,
            "max_steps": 7,
            "history": 2,
            "max_prompt_tokens": 300,
            "max_response_tokens": 40,
            "temperature": 0.7,
            "generation_batch_size": 12,
            "memory": True,
        },
        "rl": {"mini_batch_size": 8, "micro_batch_size": 3, "micro_batch_tokens": 900, **rl},
        "opd": {"beta": 4.0, "estimator": "expected", "expected_top_k": 32},
        "sdar": {"skill_bank": "bank"} if algorithm == "sdar" else {},
    }
    return experiment_from_data(data, tmp_path, "test")


def _resolve(config, *, engine=False, device=CPU, compute_dtype=torch.float32) -> LoopSettings:
    analyzer = stage2_analyzer(config, policy=object(), task_source=None)  # the policy analyzer only keeps the policy
    return loop_settings(
        config,
        LossSettings.for_algorithm(config),
        analyzer,
        engine=engine,
        device=device,
        compute_dtype=compute_dtype,
    )


def test_each_field_of_the_seed_loop(tmp_path):
    loop = _resolve(_config(tmp_path))
    assert loop.rollout == RolloutSettings(
        group_size=5,
        max_steps=7,
        history_length=2,
        max_prompt_tokens=300,
        max_response_tokens=40,
        temperature=0.7,
        generation_batch_size=12,
        with_logprobs=True,  # auto on the CPU in float32 without an engine: π_old's are the sampling ones
        memory=True,
        prompt_format="step",
    )
    assert loop.scoring == ScoringSettings(temperature=0.7, micro_batch_size=3, max_tokens=900)
    assert loop.teacher == TeacherSettings(
        max_prompt_tokens=300,
        temperature=0.7,
        micro_batch_size=3,
        max_tokens=900,
        insert=insert_skill,
        estimator="expected",
        beta=4.0,
        top_k=32,
    )
    assert loop.reuse_sampling_logprobs is True
    assert loop.skill_source == "self"


def test_the_static_bank_inserts_its_own_way_and_grpo_has_no_skills(tmp_path):
    sdar = _resolve(_config(tmp_path, "sdar"))
    assert sdar.teacher.insert is SkillBank.insert and sdar.skill_source == "static"
    assert sdar.teacher.insert("step prompt", "bank text") == "bank text\n\nstep prompt"
    grpo = _resolve(_config(tmp_path, "grpo"))
    assert grpo.skill_source is None and grpo.teacher.insert is insert_skill


def test_the_ungated_baseline_has_beta_zero(tmp_path):
    assert _resolve(_config(tmp_path, "grpo_opsd")).teacher.beta == 0.0
    assert _resolve(_config(tmp_path, "opsd")).teacher.beta == 4.0


@pytest.mark.parametrize(
    ("old_logprobs", "engine", "device", "dtype", "reuse", "with_logprobs"),
    [
        ("auto", False, CPU, torch.float32, True, True),
        ("auto", True, CPU, torch.float32, False, True),  # the engine's, for its agreement with π_old
        ("auto", False, CPU, torch.bfloat16, False, False),
        ("auto", False, CUDA, torch.float32, False, False),
        ("rollout", False, CUDA, torch.bfloat16, True, True),
        ("recompute", False, CPU, torch.float32, False, False),
    ],
)
def test_old_logprobs_are_the_sampling_ones_only_where_they_would_be_equal(
    tmp_path, old_logprobs, engine, device, dtype, reuse, with_logprobs
):
    loop = _resolve(_config(tmp_path, old_logprobs=old_logprobs), engine=engine, device=device, compute_dtype=dtype)
    assert (loop.reuse_sampling_logprobs, loop.rollout.with_logprobs) == (reuse, with_logprobs)


@pytest.mark.parametrize(
    ("settings", "consumer"),
    [(RolloutSettings, play_episodes), (ScoringSettings, Policy.score), (TeacherSettings, teacher_pass)],
)
def test_every_field_is_a_parameter_of_its_consumer(settings, consumer):
    missing = {f.name for f in fields(settings)} - set(inspect.signature(consumer).parameters)
    assert not missing, f"{settings.__name__} fields that {consumer.__qualname__} does not take: {missing}"


def test_the_loop_passes_every_rollout_and_teacher_field(tmp_path, monkeypatch):
    loop = _resolve(_config(tmp_path, "sdar"))
    calls = {}
    monkeypatch.setattr(train_settings, "play_episodes", lambda *args, **kwargs: calls.setdefault("rollout", kwargs))
    monkeypatch.setattr(train_settings, "teacher_pass", lambda *args, **kwargs: calls.setdefault("teacher", kwargs))
    engine, skill_of = object(), lambda episode: None
    train_settings.play_episodes_with(loop.rollout, None, None, [], engine)
    train_settings.teacher_pass_with(loop.teacher, None, [], skill_of)
    assert calls["rollout"] == {**asdict(loop.rollout), "generator": engine}
    assert calls["teacher"] == {**asdict(loop.teacher), "skill_of": skill_of}


def test_pi_old_and_the_reference_are_scored_with_the_scoring_fields(tmp_path):
    loop = _resolve(_config(tmp_path, old_logprobs="recompute"))
    calls = []

    class Scorer:
        def score(self, prompts, responses, **kwargs):
            calls.append(kwargs)
            return [torch.zeros(len(r)) for r in responses]

    step = SimpleNamespace(prompt_ids=[1, 2], response_ids=[3], sample_logp=None)
    agreement = train_stage.old_and_reference_logprobs(
        Scorer(), [SimpleNamespace(steps=[step])], loop, None, reference=True
    )
    assert agreement == {}
    assert calls == [{**asdict(loop.scoring), "reference": False}, {**asdict(loop.scoring), "reference": True}]
    assert step.old_logp.tolist() == [0.0] and step.ref_logp.tolist() == [0.0]
