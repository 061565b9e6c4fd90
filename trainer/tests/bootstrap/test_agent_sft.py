"""Agent SFT (seed_trainer.bootstrap.agent_sft): a pretrained model fine-tuned on the household's demonstrations and analyses
through its own chat template, resumable. Run here on the shipped tiny policy (the recipe is the same for SmolLM2)."""

from __future__ import annotations

import json
import math

import pytest
import torch
from safetensors.torch import load_file

import seed_trainer.bootstrap.agent_sft as agent_sft_module
import seed_trainer.bootstrap.agent_sft_dev as agent_sft_dev
from seed_trainer.bootstrap.agent_sft import AgentSftConfig, agent_sft, batch_order, learning_rate


def _config(**changes) -> AgentSftConfig:
    settings = dict(
        base="builtin:household-tiny",
        episodes=4,
        steps=4,
        batch_size=2,
        save_every=2,
        dtype="float32",
        max_length=512,
        lr=1e-4,
        warmup=1,
    )
    return AgentSftConfig(**{**settings, **changes})


def test_the_schedule_and_the_batches_are_fixed_by_the_settings():
    config = _config(steps=10, warmup=2, lr=1.0, min_lr_ratio=0.1)
    # warmup 0.5, 1.0; then cosine from 1.0 down towards 0.1 over the 8 remaining steps
    assert learning_rate(config, 0) == 0.5 and learning_rate(config, 1) == 1.0 and learning_rate(config, 2) == 1.0
    assert learning_rate(config, 9) == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 7 / 8)))
    batches = batch_order(5, config)
    assert len(batches) == 10 and all(len(b) == 2 for b in batches)
    assert sorted(i for b in batches[:2] for i in b) == sorted(set(i for b in batches[:2] for i in b))  # an epoch first
    assert batches == batch_order(5, config)  # the same order again: what a resumed run relies on


def test_agent_sft_writes_a_model_and_resumes_to_the_same_weights(tmp_path, monkeypatch):
    whole = agent_sft(tmp_path / "whole", _config())
    report = json.loads((whole / "agent_sft.json").read_text())
    assert len(report["losses"]) == 4 and all(loss > 0 for loss in report["losses"])
    assert report["recipe"]["skill_share"] == 0.0 and report["examples"] > 8
    assert not (tmp_path / "whole.partial").exists()

    # The same run stopped right after its step-2 save, then started again: it continues from step 2.
    real_save = agent_sft_module._save_partial

    def save_then_stop(*args, **kwargs):
        real_save(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(agent_sft_module, "_save_partial", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        agent_sft(tmp_path / "resumed", _config())
    assert (tmp_path / "resumed.partial" / agent_sft_module.STATE).exists()
    monkeypatch.setattr(agent_sft_module, "_save_partial", real_save)
    resumed = agent_sft(tmp_path / "resumed", _config())
    assert json.loads((resumed / "agent_sft.json").read_text())["losses"] == report["losses"]
    a, b = load_file(whole / "model.safetensors"), load_file(resumed / "model.safetensors")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    # other settings never continue a partial run made with these
    monkeypatch.setattr(agent_sft_module, "_save_partial", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        agent_sft(tmp_path / "other", _config())
    monkeypatch.setattr(agent_sft_module, "_save_partial", real_save)
    with pytest.raises(SystemExit, match="made with other settings"):
        agent_sft(tmp_path / "other", _config(lr=2e-4))


def test_no_loss_on_injected_inadmissible_commands_but_they_stay_in_the_context():
    from seed_trainer.bootstrap.examples import make_examples
    from seed_trainer.bootstrap.recipe import BootstrapConfig
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    config = _config(episodes=30)
    data = BootstrapConfig(seed=0, episodes=30, history=2, max_steps=20, skill_share=0.0, bank_share=0.0)
    examples = make_examples(data)
    invalid = [e for e in examples if e.mistake == "invalid"]
    assert invalid, "the demonstrations inject inadmissible commands"
    policy = Policy.load(ModelConfig(path=str(ensure_model_dir(config.base)), device="cpu"), with_reference=False)
    kept = agent_sft_module.training_examples(config, policy)
    everything = agent_sft_module.training_examples(_config(episodes=30, train_invalid=True), policy)
    end = kept[0][1][-1]
    targets = [tuple(reply) for _, reply in kept]
    assert len(everything) - len(kept) == len(invalid)
    # token by token: no reply of an inadmissible step is a training target; every kept reply is the response + end
    for example in invalid:
        assert tuple(policy.tokenizer.encode(example.response, add_special_tokens=False) + [end]) not in targets
    # the mistake is still in the context: a later step's history shows the command and the recovery says so
    command = invalid[0].response.split("<action>")[1].split("</action>")[0]
    assert any("Action" in e.prompt and f"'{command}'" in e.prompt for e in examples if e.mistake is None)
    assert any(e.response.startswith("<think>That did nothing.") for e in examples if e.mistake is None)


def test_freezing_the_lower_layers():
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    policy = Policy.load(
        ModelConfig(path=str(ensure_model_dir("builtin:household-tiny")), device="cpu"), with_reference=False
    )
    model = policy.model
    layers = model.model.layers
    agent_sft_module.freeze_lower_layers(model, 1)
    assert not any(p.requires_grad for p in model.get_input_embeddings().parameters())
    assert not any(p.requires_grad for p in layers[0].parameters())
    assert all(p.requires_grad for layer in layers[1:] for p in layer.parameters())
    with pytest.raises(ValueError, match=f"the model has {len(layers)} decoder layers"):
        agent_sft_module.freeze_lower_layers(model, len(layers) + 1)


def test_next_action_accuracy_is_teacher_forced_on_the_action_tokens():
    from seed_trainer.compute.policy import Policy
    from seed_trainer.envs.household.demonstrator import Decision
    from seed_trainer.envs.household.expert_states import ExpertState
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    policy = Policy.load(
        ModelConfig(path=str(ensure_model_dir("builtin:household-tiny")), device="cpu"), with_reference=False
    )
    states = agent_sft_dev.dev_states(_config(dev_states=12))
    assert len(states) == 12 and states == agent_sft_dev.dev_states(_config(dev_states=12))
    # the model's own greedy responses are, teacher-forced, its most likely tokens at every position: accuracy 1
    prompts = [policy.encode_chat(s.prompt, 1024) for s in states[:4]]
    greedy = [g.text for g in policy.generate(prompts, 48, greedy=True)]

    def state_answered(state, text: str) -> ExpertState:
        think, action = text.split("<think>")[1].split("</think>")[0], text.split("<action>")[1].split("</action>")[0]
        assert Decision("own", think, action).response == text
        return ExpertState(state.step, state.prompt, Decision("own", think, action), ())

    own = [state_answered(s, text) for s, text in zip(states[:4], greedy)]
    assert agent_sft_dev.next_action_accuracy(policy, own, 1024) == 1.0
    # an action no household command looks like is never the most likely continuation
    nonsense = [ExpertState(s.step, s.prompt, Decision("x", "go", "zq zq zq qz"), ()) for s in states[:4]]
    assert agent_sft_dev.next_action_accuracy(policy, nonsense, 1024) == 0.0
    assert 0.0 < agent_sft_dev.next_action_accuracy(policy, states, 1024) <= 1.0


def test_greedy_scores_count_the_right_the_admissible_and_the_valid_replies():
    from types import SimpleNamespace

    from seed_trainer.envs.household.demonstrator import Decision

    def state(action: str, admissible: list[str]):
        return SimpleNamespace(
            expert=Decision("x", "t", action), observation=SimpleNamespace(admissible_actions=admissible)
        )

    states = [state("go to cabinet 1", ["go to cabinet 1", "go to fridge 1"])] * 4
    replies = [
        "<think>a</think><action>Go to cabinet 1</action>",  # right (case is not part of a command), valid
        "<think>a</think><action>go to fridge 1</action>",  # admissible, not the demonstrator's
        "<action>go to cabinet 1</action>",  # right action, but no <think>: not a valid step
        "<think>a</think><action>fly away</action>",  # neither
    ]
    scores = agent_sft_dev.greedy_scores(replies, states)
    assert scores == {"greedy_action": 2 / 4, "admissible": 3 / 4, "valid": 3 / 4}
    assert all(math.isnan(v) for v in agent_sft_dev.greedy_scores([], []).values())


def test_dev_accuracy_scores_the_models_own_greedy_replies():
    from seed_trainer.compute.policy import Policy
    from seed_trainer.envs.household.demonstrator import Decision
    from seed_trainer.envs.household.expert_states import ExpertState
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    policy = Policy.load(
        ModelConfig(path=str(ensure_model_dir("builtin:household-tiny")), device="cpu"), with_reference=False
    )
    states = agent_sft_dev.dev_states(_config(dev_states=8))
    scores = agent_sft_dev.dev_accuracy(policy, states, 1024)
    assert set(scores) == {"greedy_action", "admissible", "valid", "teacher_forced"}
    assert scores["teacher_forced"] == agent_sft_dev.next_action_accuracy(policy, states, 1024)
    # states whose correct action is the one the model names greedily: all right; a command it never names: none
    # (its whole reply as the correct response, so that the replies may be as long as the model's)
    replies = policy.generate([policy.encode_chat(s.prompt, 1024) for s in states], 64, greedy=True)
    own = []
    for s, reply in zip(states, replies):
        think, action = (
            reply.text.split("<think>")[1].split("</think>")[0],
            reply.text.split("<action>")[1].split("</action>")[0],
        )
        own.append(ExpertState(s.step, s.prompt, Decision("own", think, action), (), s.task, s.observation))
    assert agent_sft_dev.dev_accuracy(policy, own, 1024)["greedy_action"] == 1.0
    never = [ExpertState(s.step, s.prompt, Decision("x", "t", "zq zq"), (), s.task, s.observation) for s in states]
    assert agent_sft_dev.dev_accuracy(policy, never, 1024)["greedy_action"] == 0.0


def test_auto_dtype_is_bf16_only_with_bf16_instructions(monkeypatch):
    # an AVX-512 Xeon without AVX512-BF16: oneDNN calls bf16 supported, and bf16 autocast ran 3.6x slower than fp32
    import torch

    from seed_trainer.bootstrap.agent_sft import cpu_dtype

    for avx512_bf16, amx, wanted in ((False, False, "float32"), (True, False, "bfloat16"), (False, True, "bfloat16")):
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda v=avx512_bf16: v, raising=False)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda v=amx: v, raising=False)
        monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: True, raising=False)
        assert cpu_dtype("auto") == wanted
    assert cpu_dtype("float32") == "float32" and cpu_dtype("bfloat16") == "bfloat16"
