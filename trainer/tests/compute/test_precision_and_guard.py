"""Mixed precision and the non-finite guard (docs/trainer.md): the pieces by hand, then the real loop on the tiny
policy — including the fault that corrupted bf16 runs on a GPU (a finite loss whose backward returns NaN, as
cuDNN's attention backward does for fully masked rows), injected on the CPU."""

from __future__ import annotations

import math
import random

import pytest
import torch
import yaml
from safetensors.torch import load_file

from seed_trainer.algo.losses import k3_kl, masked_mean, ppo_clip_loss, seed_loss
from seed_trainer.compute.batching import plan_micro_batches
from seed_trainer.compute.memory import GIB, sharded_training_bytes, training_bytes
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.precision import (
    NonFiniteError,
    NonFiniteGuard,
    StepOutcome,
    check_finite_weights,
    configure_attention_kernels,
    grad_scaler,
)
from seed_trainer.experiment.config import ModelConfig
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.rl.update import LossSettings, Sample, ppo_update
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.train import assign_advantages, train

# -- pure pieces, by hand -------------------------------------------------------------------------------------------


def test_micro_batches_are_planned_by_length_under_rows_and_a_token_budget():
    lengths = [5, 1, 3, 8, 2]
    # sorted: 1(i=1) 2(i=4) 3(i=2) 5(i=0) 8(i=3)
    assert plan_micro_batches(lengths, max_rows=2) == [[1, 4], [2, 0], [3]]
    # budget 10 padded tokens: 1·1, 2·2, 3·3 fit; 4·5 = 20 does not; 2·8 = 16 does not
    assert plan_micro_batches(lengths, max_rows=10, max_tokens=10) == [[1, 4, 2], [0], [3]]
    assert plan_micro_batches([20, 4], max_rows=4, max_tokens=10) == [[1], [0]]  # too long alone: its own batch
    assert plan_micro_batches([], max_rows=4) == []
    with pytest.raises(ValueError):
        plan_micro_batches([1], max_rows=0)


def test_k3_exponent_is_clamped_so_a_masked_out_overflow_gives_no_nan_gradient():
    # A padded position: ref_logp is padded with 0 while the model gives the pad token −100, so r = 100 and
    # exp(r) overflows in fp32; the mask zeroes the value, and must zero the gradient too (0·inf would be NaN).
    logp = torch.tensor([[-1.0, -100.0]], requires_grad=True)
    ref = torch.tensor([[-1.2, 0.0]])
    mask = torch.tensor([[1.0, 0.0]])
    kl = masked_mean(k3_kl(logp, ref), mask)
    kl.backward()
    assert torch.isfinite(logp.grad).all()
    r = -0.2
    assert float(kl.detach()) == pytest.approx(math.exp(r) - r - 1, rel=1e-6)
    assert logp.grad[0, 1] == 0.0


def test_ppo_log_ratio_is_clamped_before_exp():
    logp = torch.tensor([[0.0, -0.1]], requires_grad=True)
    old = torch.tensor([[-150.0, -0.1]])  # an exp(150) ratio would be inf, and its unselected gradient NaN
    loss = ppo_clip_loss(logp, old, torch.tensor([[1.0, 1.0]]), torch.ones(1, 2)).loss
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(logp.grad).all()
    assert float(loss.detach()) == pytest.approx((-1.2 + -1.0) / 2)  # clipped at 1+ε; ratio 1 at the second token


def test_micro_batch_losses_with_the_mini_batch_counts_add_up_to_the_mini_batch_loss():
    torch.manual_seed(0)
    logp = (torch.rand(4, 3) * -2).requires_grad_()
    old = logp.detach() + 0.05 * torch.randn(4, 3)
    ref = logp.detach() - 0.1
    teacher = logp.detach() + 0.2 * torch.randn(4, 3)
    adv = torch.tensor([1.0, -1.0, 0.5, -0.5]).unsqueeze(-1).expand(4, 3)
    mask = torch.tensor([[1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 1, 1]], dtype=torch.float32)
    skill = torch.tensor([1.0, 0.0, 1.0, 1.0])
    kw = dict(kl_coef=0.01, entropy_coef=0.0, opd_lambda=0.5, opd_beta=5.0)
    whole = seed_loss(logp, old, adv * mask, mask, ref_logp=ref, teacher_logp=teacher, has_skill=skill, **kw).loss
    tokens, opd_tokens = float(mask.sum()), float((mask * skill.unsqueeze(-1)).sum())
    parts = sum(
        seed_loss(
            logp[rows],
            old[rows],
            (adv * mask)[rows],
            mask[rows],
            ref_logp=ref[rows],
            teacher_logp=teacher[rows],
            has_skill=skill[rows],
            token_count=tokens,
            opd_token_count=opd_tokens,
            **kw,
        ).loss
        for rows in ([0, 2], [1, 3])
    )
    assert float(parts.detach()) == pytest.approx(float(whole.detach()), abs=1e-7)


def test_guard_fails_after_the_configured_number_of_skips_in_a_row():
    guard = NonFiniteGuard(patience=2)
    guard.record(StepOutcome(float("nan"), True, "loss pg"), "update 1")
    guard.record(StepOutcome(1.0, False, None), "update 2")  # a good step resets the count
    guard.record(StepOutcome(float("nan"), True, "loss kl"), "update 3")
    with pytest.raises(NonFiniteError, match=r"update 4: 2 optimizer steps in a row skipped.*non-finite loss opd"):
        guard.record(StepOutcome(float("nan"), True, "loss opd"), "update 4")


def test_training_memory_per_parameter():
    # full fine-tune in bf16: 16 bytes of fp32 training state + a 2-byte reference per parameter
    assert training_bytes(10, 10, 2, lora=False) == 180
    # LoRA: the 2-byte frozen base (also the reference) + 16 bytes per adapter parameter
    assert training_bytes(1000, 10, 2, lora=True) == 990 * 2 + 160
    assert training_bytes(494_000_000, 494_000_000, 2, lora=False) / GIB == pytest.approx(8.28, abs=0.01)
    # FSDP over 4 processes: 16·1000/4 sharded + 2·2·1000 (reference, inference copy) + 2·100·(2 + 4) gathered layers
    assert sharded_training_bytes(1000, 100, 2, 4) == 4000 + 4000 + 1200
    assert sharded_training_bytes(1001, 100, 2, 4) == 4004 + 4004 + 1200  # the last shard padded up
    # Qwen2.5-0.5B shape (24 layers of 14.9 M parameters) on 8 GPUs: 0.92 + 1.84 + 0.17 GiB, against 8.28 replicated
    assert sharded_training_bytes(494_000_000, 14_912_384, 2, 8) / GIB == pytest.approx(2.93, abs=0.01)


def test_no_checkpoint_from_non_finite_weights(tiny_policy_dir):
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)), with_reference=False)
    check_finite_weights(policy.model, "here")
    with torch.no_grad():
        policy.model.get_input_embeddings().weight[3, 0] = float("nan")
    with pytest.raises(NonFiniteError, match="here: weight .*embed.* is not finite"):
        check_finite_weights(policy.model, "here")


# -- the real update and loop -----------------------------------------------------------------------------------------


def _experiment(tmp_path, model_dir, **overrides):
    data = {
        "name": "guard",
        "seed": 5,
        "algorithm": "grpo",
        "updates": 3,
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
        "rl": {"mini_batch_size": 64, "micro_batch_size": 2, "lr": 1e-4},
        "checkpoint": {"every": 1},
    }
    for key, value in overrides.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    path = tmp_path / "guard.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _samples(policy, counter_tasks, config):
    ro = config.rollout
    episodes = play_episodes(
        policy,
        counter_tasks,
        counter_tasks.sample("train", 2, 0),
        group_size=2,
        max_steps=2,
        history_length=1,
        max_prompt_tokens=ro.max_prompt_tokens,
        max_response_tokens=6,
    )
    assign_advantages(episodes, config)
    steps = [s for e in episodes for s in e.steps]
    for step, logp in zip(steps, policy.score([s.prompt_ids for s in steps], [s.response_ids for s in steps])):
        step.old_logp = step.ref_logp = logp
    return [Sample(s, False) for s in steps]


def _weights(policy):
    return {n: p.detach().clone() for n, p in policy.model.named_parameters()}


def _nan_gradient_hook(policy):
    """The GPU fault, on the CPU: the forward is finite, the backward of one attention projection returns NaN."""

    def hook(module, inputs, output):
        if output.requires_grad:
            output.register_hook(lambda grad: torch.full_like(grad, float("nan")))

    return policy.model.model.layers[0].self_attn.q_proj.register_forward_hook(hook)


def test_a_nan_gradient_skips_the_step_instead_of_poisoning_every_weight(
    tmp_path, tiny_policy_dir, counter_tasks, compute_dtype
):
    config = load_experiment(_experiment(tmp_path, tiny_policy_dir, model={"dtype": compute_dtype}))
    policy = Policy.load(config.resolved_model())
    samples = _samples(policy, counter_tasks, config)
    optimizer = torch.optim.AdamW(policy.model.parameters(), lr=1e-3)
    before = _weights(policy)
    handle = _nan_gradient_hook(policy)
    result = ppo_update(policy, optimizer, samples, config, LossSettings.for_algorithm(config), random.Random(0))
    handle.remove()
    assert result.metrics["skipped_steps"] == 1.0 and "grad_norm" not in result.metrics
    assert len(result.skipped) == 1 and "non-finite gradient (model." in result.skipped[0]
    after = _weights(policy)
    assert all(torch.equal(before[n], after[n]) for n in before), "a skipped step must not touch the weights"
    # Without the fault the same update steps and keeps every weight finite.
    result = ppo_update(policy, optimizer, samples, config, LossSettings.for_algorithm(config), random.Random(0))
    assert result.metrics["skipped_steps"] == 0.0 and math.isfinite(result.metrics["grad_norm"])
    assert all(torch.isfinite(p).all() for p in policy.model.parameters())
    assert any(not torch.equal(before[n], p) for n, p in policy.model.named_parameters())


def test_a_non_finite_loss_is_reported_by_its_term_and_not_back_propagated(tmp_path, tiny_policy_dir, counter_tasks):
    config = load_experiment(_experiment(tmp_path, tiny_policy_dir, rl={"kl_coef": 0.01}))
    policy = Policy.load(config.resolved_model())
    samples = _samples(policy, counter_tasks, config)
    samples[0].step.ref_logp = torch.full_like(samples[0].step.ref_logp, float("nan"))  # a broken reference pass
    before = _weights(policy)
    result = ppo_update(
        policy,
        torch.optim.AdamW(policy.model.parameters(), lr=1e-3),
        samples,
        config,
        LossSettings.for_algorithm(config),
        random.Random(0),
    )
    assert result.skipped and "non-finite loss kl" in result.skipped[0] and "total" in result.skipped[0]
    assert all(torch.equal(before[n], p) for n, p in policy.model.named_parameters())


def test_the_run_fails_naming_the_update_after_too_many_skips_and_saves_no_nan(tmp_path, tiny_policy_dir, monkeypatch):
    import seed_trainer.stages.train as stage

    real_load = Policy.load

    def faulty_load(*args, **kwargs):
        policy = real_load(*args, **kwargs)
        _nan_gradient_hook(policy)
        return policy

    monkeypatch.setattr(stage.Policy, "load", faulty_load)
    path = _experiment(tmp_path, tiny_policy_dir, updates=4, rl={"max_skipped_steps": 2})
    with pytest.raises(NonFiniteError, match=r"^update 2, update: 2 optimizer steps in a row skipped.*gradient"):
        train(load_experiment(path), path, runs_dir=tmp_path / "runs", echo=None)
    (run_dir,) = (tmp_path / "runs").iterdir()
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "failed"
    events = reader.events()
    assert [e["step"] for e in events if e.get("code") == "skipped_step"] == [1]  # update 2 failed instead
    assert any(e["type"] == "error" and "update 2, update: 2 optimizer steps" in e["message"] for e in events), events[
        -3:
    ]
    rows = reader.metrics()
    assert [r["optim/skipped_steps"] for r in rows] == [1.0]  # update 1 was recorded; update 2 failed
    # update 1's checkpoint holds the untouched (finite) initial weights
    saved = load_file(run_dir / "checkpoints" / "step-000001" / "model.safetensors")
    initial = load_file(tiny_policy_dir / "model.safetensors")
    assert all(torch.equal(saved[n], initial[n].float()) for n in initial)
    assert check_run(run_dir).ok


def test_nan_logits_while_generating_raise_a_named_error_not_a_sampling_assert(tmp_path, tiny_policy_dir, monkeypatch):
    import seed_trainer.stages.train as stage

    real_load = Policy.load

    def broken_load(*args, **kwargs):
        policy = real_load(*args, **kwargs)
        with torch.no_grad():
            policy.model.lm_head.weight.fill_(float("nan"))
        return policy

    monkeypatch.setattr(stage.Policy, "load", broken_load)
    path = _experiment(tmp_path, tiny_policy_dir, updates=1)
    with pytest.raises(NonFiniteError, match=r"update 1, rollout: non-finite logits while generating"):
        train(load_experiment(path), path, runs_dir=tmp_path / "runs", echo=None)


def test_three_updates_at_lr_1e6_in_bf16_move_the_weights_as_fp32_does(tmp_path, tiny_policy_dir):
    """Pure-bf16 AdamW moved 0.6 % of the weights at lr 1e-6: its steps are below bf16's resolution. With fp32 master
    weights and bf16 autocast the same run moves as many weights as an fp32 run, and all stay finite."""
    initial = {n: t.float() for n, t in load_file(tiny_policy_dir / "model.safetensors").items()}
    moved = {}
    for dtype in ("float32", "bfloat16"):
        folder = tmp_path / dtype
        folder.mkdir()
        path = _experiment(folder, tiny_policy_dir, model={"dtype": dtype}, rl={"lr": 1e-6})
        run_dir = train(load_experiment(path), path, runs_dir=folder / "runs", echo=None)
        saved = load_file(run_dir / "checkpoints" / "step-000003" / "model.safetensors")
        assert all(t.dtype == torch.float32 and torch.isfinite(t).all() for t in saved.values())
        changed = sum(int((saved[n] != initial[n]).sum()) for n in initial)
        moved[dtype] = changed / sum(t.numel() for t in initial.values())
        assert all(r["optim/skipped_steps"] == 0.0 for r in RunReader(run_dir).metrics())
    assert moved["float32"] > 0.5
    assert moved["bfloat16"] > 0.9 * moved["float32"], moved


def test_the_update_raises_positive_advantage_responses_and_lowers_negative_ones(
    tmp_path, tiny_policy_dir, counter_tasks, compute_dtype
):
    """The RL wiring end to end (loss sign, token-mean, optimizer): one PPO update makes the sampled responses with
    A > 0 more likely and those with A < 0 less likely, in fp32 and under bf16 autocast."""
    config = load_experiment(
        _experiment(tmp_path, tiny_policy_dir, model={"dtype": compute_dtype}, rl={"kl_coef": 0.0, "entropy_coef": 0.0})
    )
    policy = Policy.load(config.resolved_model())
    samples = _samples(policy, counter_tasks, config)
    for i, sample in enumerate(samples):
        sample.step.advantage = 1.0 if i % 2 == 0 else -1.0
    steps = [s.step for s in samples]
    before = policy.score([s.prompt_ids for s in steps], [s.response_ids for s in steps])
    result = ppo_update(
        policy,
        torch.optim.AdamW(policy.model.parameters(), lr=3e-3),
        samples,
        config,
        LossSettings.for_algorithm(config),
        random.Random(0),
    )
    assert result.metrics["skipped_steps"] == 0.0
    after = policy.score([s.prompt_ids for s in steps], [s.response_ids for s in steps])
    change = [float(a.sum() - b.sum()) for a, b in zip(after, before)]
    assert all(c > 0 for c in change[0::2]), change
    assert all(c < 0 for c in change[1::2]), change


# -- fp16 with the dynamic loss scaler, on the CPU (CPU autocast computes in float16 too) -----------------------------


def _fp16_update(tmp_path, tiny_policy_dir, counter_tasks, scaler):
    """One real mini-batch update (ppo_update → guarded_step) of the tiny policy under float16 autocast."""
    config = load_experiment(_experiment(tmp_path, tiny_policy_dir, model={"dtype": "float16", "device": "cpu"}))
    policy = Policy.load(config.resolved_model())
    assert policy.compute_dtype == torch.float16
    assert all(p.dtype == torch.float32 for p in policy.model.parameters())  # fp32 master weights
    samples = _samples(policy, counter_tasks, config)
    optimizer = torch.optim.AdamW(policy.model.parameters(), lr=1e-3)
    return (
        policy,
        samples,
        lambda: ppo_update(
            policy, optimizer, samples, config, LossSettings.for_algorithm(config), random.Random(0), scaler=scaler
        ),
    )


def test_fp16_is_computed_under_a_loss_scaler_that_the_trainer_makes(tmp_path, tiny_policy_dir, counter_tasks):
    policy, _, _ = _fp16_update(tmp_path, tiny_policy_dir, counter_tasks, None)
    scaler = grad_scaler(policy.device, policy.compute_dtype)
    assert scaler.is_enabled() and scaler.get_scale() == 2.0**16
    assert not grad_scaler(policy.device, torch.bfloat16).is_enabled()  # bf16 and fp32 need none
    assert not grad_scaler(policy.device, torch.float32).is_enabled()
    with policy.autocast():  # the forward really runs in fp16: the projections' outputs are half precision
        logits = policy.model(torch.tensor([[1, 2, 3]])).logits
    assert logits.dtype == torch.float16


def test_an_fp16_overflow_skips_the_step_lowers_the_scale_and_keeps_the_weights(
    tmp_path, tiny_policy_dir, counter_tasks
):
    """A loss scale of 2^40 makes the fp16 gradients of the backward overflow to infinity (fp16 tops out at 65504):
    GradScaler's unscale_ finds them, guarded_step skips the optimizer step and lowers the scale by its backoff
    factor; no weight changes and all stay finite. At a sane scale the next update steps, and after a good step the
    scale grows again."""
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**40, growth_interval=1)
    policy, samples, update = _fp16_update(tmp_path, tiny_policy_dir, counter_tasks, scaler)
    before = _weights(policy)
    result = update()
    assert result.metrics["skipped_steps"] == 1.0 and "grad_norm" not in result.metrics
    (why,) = result.skipped
    assert "non-finite gradient" in why and "fp16 loss scale lowered" in why, why
    assert scaler.get_scale() == 2.0**39  # backoff 0.5
    assert all(torch.equal(before[n], p) for n, p in policy.model.named_parameters()), "a skipped step moved weights"
    assert all(p.grad is None for p in policy.model.parameters())  # the overflowed gradients were dropped

    scaler.update(2.0**10)  # a scale the fp16 gradients fit under
    result = update()
    assert result.metrics["skipped_steps"] == 0.0 and math.isfinite(result.metrics["grad_norm"])
    # the gradients were unscaled before clipping: the norm is the fp32 update's (same weights, same samples)
    config32 = load_experiment(_experiment(tmp_path, tiny_policy_dir, model={"dtype": "float32", "device": "cpu"}))
    policy32 = Policy.load(config32.resolved_model())
    reference = ppo_update(
        policy32,
        torch.optim.AdamW(policy32.model.parameters(), lr=1e-3),
        samples,
        config32,
        LossSettings.for_algorithm(config32),
        random.Random(0),
    )
    assert result.metrics["grad_norm"] == pytest.approx(reference.metrics["grad_norm"], rel=0.05)
    assert scaler.get_scale() == 2.0**11  # growth factor 2 after growth_interval (1) good steps
    assert all(torch.isfinite(p).all() for p in policy.model.parameters())
    assert any(not torch.equal(before[n], p) for n, p in policy.model.named_parameters()), "the good step moved nothing"


def test_an_fp16_training_run_on_the_cpu_completes_with_finite_checkpoints(tmp_path, tiny_policy_dir):
    """The whole Stage-2 loop with `model.dtype: float16` (the trainer's own scaler, its default scale 2^16)."""
    path = _experiment(tmp_path, tiny_policy_dir, updates=2, model={"dtype": "float16", "device": "cpu"})
    run_dir = train(load_experiment(path), path, runs_dir=tmp_path / "runs", echo=None)
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed"
    rows = reader.metrics()
    assert len(rows) == 2 and all(math.isfinite(r["optim/grad_norm"]) for r in rows if "optim/grad_norm" in r)
    assert sum(r["optim/skipped_steps"] for r in rows) < 2  # at most the first step may overflow and back off
    saved = load_file(run_dir / "checkpoints" / "step-000002" / "model.safetensors")
    initial = load_file(tiny_policy_dir / "model.safetensors")
    assert all(t.dtype == torch.float32 and torch.isfinite(t).all() for t in saved.values())
    assert any(not torch.equal(saved[n], initial[n].float()) for n in initial)
    assert check_run(run_dir).ok


# -- the cuDNN attention switch (precision.configure_attention_kernels) --------------------------------------------


@pytest.fixture
def cudnn_sdp_flag():
    """The process-wide SDPA cuDNN switch, restored after the test (the CPU build keeps the flag too)."""
    saved = torch.backends.cuda.cudnn_sdp_enabled()
    torch.backends.cuda.enable_cudnn_sdp(True)
    yield
    torch.backends.cuda.enable_cudnn_sdp(saved)


@pytest.mark.parametrize(
    "device,dtype,env,enabled_after",
    [
        ("cuda", torch.bfloat16, None, False),  # half precision on CUDA: the NaN-prone backward is turned off
        ("cuda", torch.float16, None, False),
        ("cuda:1", torch.bfloat16, None, False),
        ("cuda", torch.float32, None, True),  # fp32 never picks cuDNN attention: left alone
        ("cpu", torch.bfloat16, None, True),  # not a CUDA device: left alone
        ("cuda", torch.bfloat16, "1", True),  # SEED_CUDNN_ATTENTION=1 keeps it
        ("cuda", torch.bfloat16, "0", False),  # only "1" keeps it
    ],
)
def test_the_cudnn_attention_switch(cudnn_sdp_flag, monkeypatch, device, dtype, env, enabled_after):
    if env is None:
        monkeypatch.delenv("SEED_CUDNN_ATTENTION", raising=False)
    else:
        monkeypatch.setenv("SEED_CUDNN_ATTENTION", env)
    configure_attention_kernels(torch.device(device), dtype)
    assert torch.backends.cuda.cudnn_sdp_enabled() is enabled_after
    # the other SDPA backends are never touched
    assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.mem_efficient_sdp_enabled()
