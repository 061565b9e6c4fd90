"""widen_heads (the vLLM tests' policy with a head size vLLM's CPU attention has a kernel for) computes the same function
for both tiny architectures; checked here on CPU, since the vLLM tests run only where vLLM is installed."""

import pytest
import torch
from transformers import AutoModelForCausalLM
from widen_heads import widen_policy

from seed_trainer.models.tiny import build_model, build_tokenizer


@pytest.mark.parametrize("architecture, saved_as", [("qwen2", "llama"), ("qwen3", "qwen3")])
def test_widened_heads_give_the_same_logits(tmp_path, architecture, saved_as):
    tokenizer = build_tokenizer(["go to cabinet 1, open it, then look around the room"] * 20, vocab_size=300)
    model = build_model(
        tokenizer,
        hidden_size=48,
        layers=2,
        heads=4,
        kv_heads=2,
        intermediate_size=64,
        architecture=architecture,
        seed=1,
    )
    with torch.no_grad():  # norms away from 1, so a wrong norm rescaling shows
        for name, parameter in model.named_parameters():
            if "norm" in name:
                parameter.mul_(torch.rand_like(parameter) + 0.5)
    model.save_pretrained(tmp_path / "source")
    tokenizer.save_pretrained(tmp_path / "source")
    wide = AutoModelForCausalLM.from_pretrained(widen_policy(tmp_path / "source", tmp_path / "wide", head_dim=16))
    assert (wide.config.model_type, wide.config.head_dim, model.config.hidden_size // 4) == (saved_as, 16, 12)
    ids = torch.randint(0, len(tokenizer), (2, 30), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        expected, got = model(ids).logits, wide(ids).logits
    assert expected.abs().max() > 0.01
    torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-4)
