"""`opd.estimator` through the trainer: the teacher pass's b(s) and soft targets against a brute-force full softmax of
the tiny policy, the update's OPD gradient against the same numbers, one Stage-2 update per estimator writing a run
that validates, and the settings the config refuses at the field."""

import math

import pytest
import torch
import yaml
from testenv import LOGP_ATOL

from seed_trainer.algo.estimators import vocabulary_gate_weights
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.response_scoring import pack
from seed_trainer.experiment.config import ExperimentError, ModelConfig
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.rl.teacher import teacher_pass, teacher_prompt_ids
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.train import train

BETA = 5.0
SKILL = "add one, then finish"


def _episodes(policy, tasks):
    episodes = play_episodes(
        policy,
        tasks,
        tasks.sample("train", 2, 0),
        group_size=2,
        max_steps=2,
        history_length=1,
        max_prompt_tokens=200,
        max_response_tokens=6,
    )
    steps = [s for e in episodes for s in e.steps]
    for step, logp in zip(steps, policy.score([s.prompt_ids for s in steps], [s.response_ids for s in steps])):
        step.old_logp = logp
    for e in episodes:
        e.skill = type("S", (), {"valid": True, "skill": SKILL})()
    return episodes, steps


def _full_logp(policy, prompt, response):
    """Reference: one unpadded sequence, the full-vocabulary log_softmax at every response position."""
    ids = torch.tensor([prompt + response])
    with torch.no_grad():
        logits = policy.model(input_ids=ids).logits[0, len(prompt) - 1 : -1].double()
    return torch.log_softmax(logits, -1)


@pytest.mark.parametrize("estimator", ["baseline", "expected"])
def test_teacher_pass_baseline_and_targets_equal_a_brute_force_softmax(tiny_policy_dir, counter_tasks, estimator):
    torch.manual_seed(0)
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)))
    episodes, steps = _episodes(policy, counter_tasks)
    plain = {id(s): None for s in steps}
    teacher_pass(policy, episodes, max_prompt_tokens=200, temperature=1.0, micro_batch_size=3)
    for step in steps:  # the sample path's teacher log-probs, to compare with
        plain[id(step)] = step.teacher_logp
    scored = teacher_pass(
        policy,
        episodes,
        max_prompt_tokens=200,
        temperature=1.0,
        micro_batch_size=3,
        estimator=estimator,
        beta=BETA,
        top_k=None,
    )
    assert scored == len(steps)
    for step in steps:
        old = _full_logp(policy, step.prompt_ids, step.response_ids)
        teacher = _full_logp(policy, teacher_prompt_ids(policy, step.prompt, SKILL, 200), step.response_ids)
        weights = vocabulary_gate_weights(old, teacher, BETA)
        assert torch.allclose(step.gate_baseline.double(), weights.sum(-1), atol=1e-5)
        assert torch.allclose(step.teacher_logp, plain[id(step)], atol=LOGP_ATOL["float32"])
        if estimator == "expected":  # the tiny vocabulary: the whole distribution, nothing left out
            assert step.target_ids is None and step.target_weights.shape == weights.shape
            assert torch.allclose(step.target_weights.double(), weights, atol=1e-6)
            assert float(step.target_tail.abs().max()) == 0.0
        else:
            assert step.target_weights is None


def test_teacher_pass_top_k_keeps_the_largest_weights_and_their_tail(tiny_policy_dir, counter_tasks):
    torch.manual_seed(0)
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)))
    episodes, steps = _episodes(policy, counter_tasks)
    teacher_pass(
        policy,
        episodes,
        max_prompt_tokens=200,
        temperature=1.0,
        micro_batch_size=2,
        estimator="expected",
        beta=BETA,
        top_k=5,
    )
    step = steps[0]
    assert step.target_ids.shape == (len(step.response_ids), 5) and step.target_ids.dtype == torch.int32
    old = _full_logp(policy, step.prompt_ids, step.response_ids)
    teacher = _full_logp(policy, teacher_prompt_ids(policy, step.prompt, SKILL, 200), step.response_ids)
    weights = vocabulary_gate_weights(old, teacher, BETA)
    top = torch.topk(weights, 5, -1)
    assert torch.allclose(step.target_weights.double(), top.values, atol=1e-6)
    assert torch.allclose((step.target_weights.sum(-1) + step.target_tail).double(), weights.sum(-1), atol=1e-5)


def _opd_gradient(policy, steps, estimator):
    """∇ of λ-free L_opd over `steps` as the update computes it (one micro-batch, fixed token count)."""
    from seed_trainer.algo.losses import opd_loss
    from seed_trainer.compute.response_scoring import response_logprobs, response_logprobs_with_targets
    from seed_trainer.rl.update import _padded, soft_targets

    policy.model.zero_grad(set_to_none=True)
    batch = pack([s.prompt_ids for s in steps], [s.response_ids for s in steps], policy.pad_id, policy.device)
    width = batch.response_length
    extra = {}
    if estimator == "expected":
        ids, extra["target_weights"] = soft_targets(steps, width, policy.device)
        logp, _, extra["target_logp"] = response_logprobs_with_targets(policy.model, batch, ids)
    else:
        logp, _ = response_logprobs(policy.model, batch)
    if estimator == "baseline":
        extra["gate_baseline"] = _padded([s.gate_baseline for s in steps], width, policy.device)
    teacher = _padded([s.teacher_logp for s in steps], width, policy.device)
    loss = opd_loss(
        logp,
        teacher,
        batch.response_mask,
        torch.ones(len(steps)),
        beta=BETA,
        token_count=float(batch.response_mask.sum()),
        estimator=estimator,
        **extra,
    ).loss
    loss.backward()
    return torch.cat([p.grad.flatten() for p in policy.model.parameters() if p.grad is not None]).clone()


def test_the_updates_opd_gradients_relate_as_the_formulas_say(tiny_policy_dir, counter_tasks):
    """At θ = π_old on the same tokens: centred − sample = ½·∇Σℓ_θ/n, baseline − sample = ∇Σ b·ℓ_θ/n, and expected
    equals the gradient of −Σ_positions Σ_v w(v)·log π_θ(v) computed from a brute-force full softmax."""
    torch.manual_seed(0)
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)), with_reference=False)
    episodes, steps = _episodes(policy, counter_tasks)
    teacher_pass(
        policy, episodes, max_prompt_tokens=200, temperature=1.0, micro_batch_size=4, estimator="expected", beta=BETA
    )
    grads = {e: _opd_gradient(policy, steps, e) for e in ("sample", "centred", "baseline", "expected")}
    n = float(sum(len(s.response_ids) for s in steps))

    def gradient_of(weight_of):
        policy.model.zero_grad(set_to_none=True)
        total = 0.0
        for step in steps:
            ids = torch.tensor([step.prompt_ids + step.response_ids])
            logits = policy.model(input_ids=ids).logits[0, len(step.prompt_ids) - 1 : -1]
            total = total + weight_of(step, torch.log_softmax(logits.float(), -1))
        (total / n).backward()
        return torch.cat([p.grad.flatten() for p in policy.model.parameters() if p.grad is not None]).clone()

    picked = lambda step, logp: logp.gather(-1, torch.tensor(step.response_ids).unsqueeze(-1)).squeeze(-1)  # noqa: E731
    likelihood = gradient_of(lambda step, logp: picked(step, logp).sum())
    with_b = gradient_of(lambda step, logp: (step.gate_baseline * picked(step, logp)).sum())
    soft = gradient_of(lambda step, logp: -(step.target_weights * logp).sum())
    scale = float(grads["sample"].norm())
    assert torch.allclose(grads["centred"] - grads["sample"], 0.5 * likelihood, atol=1e-5 * scale)
    assert torch.allclose(grads["baseline"] - grads["sample"], with_b, atol=1e-5 * scale)
    assert torch.allclose(grads["expected"], soft, atol=1e-5 * scale)
    assert not torch.allclose(grads["expected"], grads["sample"], atol=1e-3 * scale)


def _experiment(tmp_path, model_dir, estimator, **extra):
    bank = tmp_path / "bank"
    bank.mkdir(exist_ok=True)
    (bank / "general.md").write_text("Read the admissible actions before acting.", encoding="utf-8")
    data = {
        "name": f"tiny-{estimator}",
        "seed": 3,
        "algorithm": "sdar",
        "updates": 1,
        "model": {"path": str(model_dir)},
        "environment": {"name": "counter"},
        "rollout": {
            "tasks_per_update": 2,
            "group_size": 2,
            "max_steps": 2,
            "history": 1,
            "max_prompt_tokens": 256,
            "max_response_tokens": 6,
        },
        "analyzer": {"max_tokens": 12},
        "rl": {"mini_batch_size": 4, "micro_batch_size": 2, "lr": 1e-4},
        "sdar": {"skill_bank": "bank"},
        "opd": {"estimator": estimator},
        **extra,
    }
    path = tmp_path / f"{estimator}.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("estimator", ["sample", "centred", "baseline", "expected"])
def test_one_update_per_estimator_records_what_the_update_subtracted(tmp_path, tiny_policy_dir, estimator):
    # sdar: the static bank is a valid skill for every trajectory, so every token is OPD-active
    path = _experiment(tmp_path, tiny_policy_dir, estimator)
    run_dir = train(load_experiment(path), path, echo=None)
    check = check_run(run_dir)
    assert check.ok, [str(e) for e in check.errors]
    reader = RunReader(run_dir)
    (row,) = reader.metrics()
    assert math.isfinite(row["loss/opd"]) and row["optim/skipped_steps"] == 0.0
    step = reader.trajectory(reader.trajectory_index()[0]["id"])["steps"][0]
    tokens = RunReader.tokens(step)
    if estimator == "sample":
        assert tokens.gate_baseline is None and "opd/gate_baseline_mean" not in row
        return
    assert len(tokens.gate_baseline) == tokens.count
    if estimator == "centred":
        assert set(tokens.gate_baseline) == {0.5} and row["opd/gate_baseline_mean"] == 0.5
    else:  # b(s) is a probability-weighted mean of gates
        assert all(0.0 < b < 1.0 for b in tokens.gate_baseline)
        assert 0.0 < row["opd/gate_baseline_mean"] < 1.0
    assert ("opd/tail_mass" in row) == (estimator == "expected")
    if estimator == "expected":
        assert row["opd/tail_mass"] == 0.0  # the tiny vocabulary is kept whole


def _write(tmp_path, data):
    path = tmp_path / "x.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_expected_with_fsdp_is_refused_at_the_estimator(tmp_path):
    path = _write(
        tmp_path,
        {"name": "x", "model": {"path": "m"}, "opd": {"estimator": "expected"}, "distributed": {"strategy": "fsdp"}},
    )
    with pytest.raises(ExperimentError) as error:
        load_experiment(path)
    text = str(error.value)
    # FILE:LINE:COLUMN: field: message, at the line of `estimator: expected`
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "estimator" in t)
    assert f"{path}:{line}:" in text and "opd.estimator: `expected` needs `distributed.strategy: replicate`" in text
    for estimator in ("sample", "centred", "baseline"):
        load_experiment(
            _write(
                tmp_path,
                {
                    "name": "x",
                    "model": {"path": "m"},
                    "opd": {"estimator": estimator},
                    "distributed": {"strategy": "fsdp"},
                },
            )
        )


def test_grpo_opsd_refuses_an_estimator_that_subtracts_its_constant_gate(tmp_path):
    path = _write(
        tmp_path, {"name": "x", "model": {"path": "m"}, "algorithm": "grpo_opsd", "opd": {"estimator": "centred"}}
    )
    with pytest.raises(ExperimentError, match="algorithm: `grpo_opsd` has g = ½ on every token"):
        load_experiment(path)


def test_unknown_estimator_is_a_located_error(tmp_path):
    path = _write(tmp_path, {"name": "x", "model": {"path": "m"}, "opd": {"estimator": "centered"}})
    with pytest.raises(ExperimentError, match="opd.estimator: must be one of"):
        load_experiment(path)


def test_gate_statistics_report_what_each_estimator_subtracts():
    from types import SimpleNamespace

    from seed_trainer.stages.train_records import gate_statistics

    # two scored steps of 2 and 1 tokens, Δ = 0 (g = ½); b = (.4, .6 | .5); tails (.1, .1 | .0)
    a = SimpleNamespace(
        response_ids=[1, 2],
        teacher_logp=torch.tensor([-1.0, -2.0]),
        old_logp=torch.tensor([-1.0, -2.0]),
        gate_baseline=torch.tensor([0.4, 0.6]),
        target_tail=torch.tensor([0.1, 0.1]),
    )
    b = SimpleNamespace(
        response_ids=[3],
        teacher_logp=torch.tensor([-0.5]),
        old_logp=torch.tensor([-0.5]),
        gate_baseline=torch.tensor([0.5]),
        target_tail=torch.tensor([0.0]),
    )
    unscored = SimpleNamespace(response_ids=[4], teacher_logp=None, old_logp=torch.tensor([-0.1]))
    steps = [a, b, unscored]
    assert "opd/gate_baseline_mean" not in gate_statistics(steps, BETA)
    assert gate_statistics(steps, BETA, "centred")["opd/gate_baseline_mean"] == 0.5
    baseline = gate_statistics(steps, BETA, "baseline")
    assert baseline["opd/gate_baseline_mean"] == pytest.approx(0.5) and "opd/tail_mass" not in baseline
    expected = gate_statistics(steps, BETA, "expected")
    assert expected["opd/tail_mass"] == pytest.approx(0.2 / 1.5)  # Σ tail / Σ b over the active tokens
    assert expected["opd/active_ratio"] == pytest.approx(3 / 4)
    empty = gate_statistics([unscored], BETA, "expected")
    assert empty["opd/gate_baseline_mean"] is None and empty["opd/tail_mass"] is None
