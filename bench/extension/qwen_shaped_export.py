"""Writes the ONNX export of a Qwen2.5-0.5B-shaped model with random weights (24 layers, hidden 896, 14 heads / 2 KV
heads, MLP 4864, vocabulary 151 936, tied embeddings) for bench/extension/whatif.mjs: what-if latency at the size the
extension's default threshold is meant for, without a model hub. The tokenizer is the tiny household one (its ids
are valid in the larger vocabulary); latency does not depend on which tokens are scored.

    .venv/bin/python bench/extension/qwen_shaped_export.py OUT_DIR
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import torch
from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

from seed_trainer.export.model_export import export

ASSET = Path(__file__).resolve().parents[2] / "trainer" / "seed_trainer" / "assets" / "household-tiny"


def main(out: Path) -> None:
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=151936,
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=24,
        num_attention_heads=14,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        rope_theta=1000000.0,
        tie_word_embeddings=True,
        rms_norm_eps=1e-6,
        pad_token_id=0,
        eos_token_id=2,
    )
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "qwen-shaped"
        Qwen2ForCausalLM(config).save_pretrained(model_dir)
        AutoTokenizer.from_pretrained(ASSET).save_pretrained(model_dir)
        shutil.copy(ASSET / "chat_template.jinja", model_dir / "chat_template.jinja")
        export(model_dir, "onnx", out)
    print(out)


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("out", type=Path, help="the export's directory (about 2.5 GB: weights as external data)")
    main(cli.parse_args().out)
