"""The policy's real HF code paths on a tiny local model: generation, scoring layout, the teacher pass alignment."""

import torch
from testenv import LOGP_ATOL

from seed_trainer.algo.skills import insert_skill, skill_block
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.response_scoring import pack, response_logprobs
from seed_trainer.experiment.config import LoraConfig, ModelConfig
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.rl.teacher import teacher_pass, teacher_prompt_ids


def _policy(path, **kwargs) -> Policy:
    torch.manual_seed(0)
    return Policy.load(ModelConfig(path=str(path), **kwargs))


def _naive_logprobs(model, prompt, response, policy=None):
    """Reference: one unpadded sequence, full-vocabulary log_softmax, gather (under the policy's autocast)."""
    device = next(model.parameters()).device
    ids = torch.tensor([prompt + response], device=device)
    with torch.no_grad(), policy.autocast() if policy else torch.autocast(device.type, enabled=False):
        logits = model(input_ids=ids).logits[0, len(prompt) - 1 : -1].float()
    picked = torch.log_softmax(logits, -1).gather(-1, torch.tensor(response, device=device).unsqueeze(-1)).squeeze(-1)
    return picked.cpu()


def test_padded_batch_scores_equal_unpadded_naive_reference(tiny_policy_dir, compute_dtype):
    policy = _policy(tiny_policy_dir, dtype=compute_dtype)
    prompts = [policy.encode_chat("Your task is to: set the counter to 3.", 512), policy.encode_chat("hi", 512)]
    generations = policy.generate(prompts, max_new_tokens=12, temperature=1.0)
    responses = [g.response_ids for g in generations]
    batched = policy.score(prompts, responses, micro_batch_size=2)
    for prompt, response, logp in zip(prompts, responses, batched):
        naive = _naive_logprobs(policy.model, prompt, response, policy)
        assert torch.allclose(logp, naive, atol=LOGP_ATOL[compute_dtype]), (logp - naive).abs().max()


def test_scoring_by_length_and_token_budget_keeps_the_order_and_the_values(tiny_policy_dir, compute_dtype):
    """Micro-batches sorted by length under a token budget give each response the log-probs one-by-one scoring
    gives, in the order asked."""
    policy = _policy(tiny_policy_dir, dtype=compute_dtype)
    texts = ["a", "Your task is to: set the counter to 3. The counter shows 0.", "hi there", "count"]
    prompts = [policy.encode_chat(t, 512) for t in texts]
    responses = [g.response_ids for g in policy.generate(prompts, max_new_tokens=8, temperature=1.0)]
    one_by_one = [policy.score([p], [r])[0] for p, r in zip(prompts, responses)]
    budgeted = policy.score(prompts, responses, micro_batch_size=3, max_tokens=2 * max(map(len, prompts)) + 16)
    for single, together, response in zip(one_by_one, budgeted, responses):
        assert together.shape == (len(response),)
        assert torch.allclose(single, together, atol=LOGP_ATOL[compute_dtype])


def test_teacher_without_insertion_reproduces_student_logprobs_even_truncated(tiny_policy_dir, counter_tasks):
    policy = _policy(tiny_policy_dir)
    episodes = play_episodes(
        policy,
        counter_tasks,
        counter_tasks.sample("train", 2, 0),
        group_size=2,
        max_steps=3,
        history_length=2,
        max_prompt_tokens=40,
        max_response_tokens=8,
    )
    steps = [s for e in episodes for s in e.steps]
    assert all(len(s.prompt_ids) == 40 for s in steps), "prompts of this size must be left-truncated to 40"
    student = policy.score([s.prompt_ids for s in steps], [s.response_ids for s in steps])
    for e in episodes:
        e.skill = type("S", (), {"valid": True, "skill": "add one, then finish"})()
    scored = teacher_pass(
        policy, episodes, max_prompt_tokens=40, temperature=1.0, micro_batch_size=3, insert=lambda prompt, skill: prompt
    )
    assert scored == len(steps)
    for step, logp in zip(steps, student):
        assert torch.equal(step.teacher_logp, logp)


def test_long_teacher_prompt_keeps_block_and_prompt_end(tiny_policy_dir):
    policy = _policy(tiny_policy_dir)
    prompt = (
        "Intro line.\nYour task is to: set the counter to 3.\n"
        + "The counter shows 0. " * 60
        + "\n\nNow it's your turn."
    )
    skill = "add one until the counter shows the target"
    ids = teacher_prompt_ids(policy, prompt, skill, max_prompt_tokens=120)
    assert len(ids) == 120
    text = policy.tokenizer.decode(ids)
    assert skill_block(skill) in text and "Your task is to:" in text
    assert text.rstrip().endswith("<|im_start|>assistant")
    full = policy.tokenizer.decode(policy.encode_chat(insert_skill(prompt, skill), 10**9))
    assert len(full) > len(text)


def test_lora_reference_is_the_base_model_and_full_finetune_keeps_a_frozen_copy(tiny_policy_dir, compute_dtype):
    policy = _policy(tiny_policy_dir, lora=LoraConfig(r=4, alpha=8), dtype=compute_dtype)
    # Mixed precision: trainable adapters in fp32, the frozen base in the compute dtype.
    assert all(p.dtype == torch.float32 for p in policy.model.parameters() if p.requires_grad)
    assert {p.dtype for p in policy.model.parameters() if not p.requires_grad} == {getattr(torch, compute_dtype)}
    prompt = [policy.encode_chat("Your task is to: count.", 64)]
    response = [policy.generate(prompt, 6)[0].response_ids]
    with torch.no_grad():
        for name, param in policy.model.named_parameters():
            if "lora_B" in name:
                param.add_(0.5)  # make the adapters matter
    trained = policy.score(prompt, response)[0]
    reference = policy.score(prompt, response, reference=True)[0]
    assert not torch.allclose(trained, reference)
    full = _policy(tiny_policy_dir, dtype=compute_dtype)
    naive = _naive_logprobs(full.model, prompt[0], response[0], full)
    assert torch.allclose(reference, naive, atol=LOGP_ATOL[compute_dtype])
    assert all(not p.requires_grad for p in full._reference.parameters())
    assert any(p.requires_grad for p in full.model.parameters())
    # A full fine-tune trains fp32 master weights; its frozen reference is kept in the compute dtype.
    assert {p.dtype for p in full.model.parameters()} == {torch.float32}
    assert {p.dtype for p in full._reference.parameters()} == {getattr(torch, compute_dtype)}


def test_response_logprobs_gradient_flows_to_the_model(tiny_policy_dir, compute_dtype):
    policy = _policy(tiny_policy_dir, dtype=compute_dtype)
    batch = pack([[5, 6, 7], [8]], [[9, 10], [11, 12, 13]], policy.pad_id, policy.device)
    with policy.autocast():
        logp, entropy = response_logprobs(policy.model, batch, with_entropy=True)
    assert logp.shape == entropy.shape == (2, 3)
    assert logp.dtype == torch.float32  # log-probs in fp32 whatever the compute dtype
    (logp * batch.response_mask).sum().backward()
    assert policy.model.get_input_embeddings().weight.grad.abs().sum() > 0


def test_rollout_plays_groups_in_lockstep(tiny_policy_dir, counter_tasks):
    policy = _policy(tiny_policy_dir)
    specs = counter_tasks.sample("train", 3, 1)
    episodes = play_episodes(
        policy,
        counter_tasks,
        specs,
        group_size=4,
        max_steps=5,
        history_length=2,
        max_prompt_tokens=512,
        max_response_tokens=6,
    )
    assert [e.group for e in episodes] == [0] * 4 + [1] * 4 + [2] * 4
    assert all(1 <= len(e.steps) <= 5 for e in episodes)
    step = episodes[0].steps[-1]
    assert "Your task is to: set the counter to" in step.prompt and step.response_ids
    assert step.valid is False and step.invalid_reason  # an untrained model writes no <action> block


def test_sampling_logprobs_equal_the_recomputed_old_logprobs_in_fp32(tiny_policy_dir):
    """What `rl.old_logprobs: rollout` relies on: the log-probs generation sampled with are the π_old log-probs a
    full forward pass gives, up to float rounding (fp32), at the rollout temperature."""
    policy = _policy(tiny_policy_dir, dtype="float32")
    prompts = [policy.encode_chat(t, 512) for t in ("Your task is to: set the counter to 3.", "hi", "count to two")]
    for temperature in (1.0, 0.7):
        generations = policy.generate(prompts, max_new_tokens=10, temperature=temperature, with_logprobs=True)
        recomputed = policy.score(prompts, [g.response_ids for g in generations], temperature)
        for generation, logp in zip(generations, recomputed):
            assert generation.logp.shape == logp.shape == (len(generation.response_ids),)
            assert torch.allclose(generation.logp, logp, atol=1e-5), (generation.logp - logp).abs().max()


def test_a_models_own_sampling_defaults_do_not_change_the_sampling_distribution(tiny_policy_dir):
    """A Qwen2.5-Instruct generation_config carries top_k/top_p/repetition_penalty; rollouts must sample from the
    plain temperature distribution that scoring computes, so those defaults are not applied."""
    policy = _policy(tiny_policy_dir, dtype="float32")
    prompts = [policy.encode_chat("Your task is to: set the counter to 3.", 512)]
    torch.manual_seed(1)
    plain = policy.generate(prompts, max_new_tokens=12)
    policy.model.generation_config.repetition_penalty = 5.0
    policy.model.generation_config.top_k = 1
    torch.manual_seed(1)
    assert policy.generate(prompts, max_new_tokens=12)[0].response_ids == plain[0].response_ids
