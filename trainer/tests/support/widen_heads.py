"""The committed household policy with wider attention heads, computing the same function — for engines that refuse
its head size (vLLM's CPU attention has no kernel for head_dim 24; 32 it has).

Each head's query/key/value gets zero dimensions appended to both rotary halves (dims 0..11 stay 0..11, 12..23 move to
16..27), the rotary base is raised so that the kept dimensions rotate at their old frequencies (θ' = θ^(new/old)), the
queries are scaled by sqrt(new/old) so that q·k/sqrt(head_dim) is unchanged, and the output projection reads zeros
from the new value dimensions. A Qwen2 policy is saved as a Llama model (Qwen2's layers with a zero output-projection
bias): vLLM's Qwen2 derives the head size from hidden_size / heads and ignores `head_dim`, its Llama reads it. A Qwen3
policy stays Qwen3 (vLLM's reads `head_dim`); its per-head RMS norms see the zero dimensions, which shrink the root mean
square by sqrt(old/new), so the query norm's weights are kept as they are (that factor is the query scaling) and the
key norm's are multiplied by sqrt(old/new). Same logits up to float rounding; `python widen_heads.py OUT [HEAD_DIM]`
writes it.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from seed_trainer.experiment.config import builtin_model_dir


def _widen_rows(weight: torch.Tensor, heads: int, old: int, new: int) -> torch.Tensor:
    """[heads·old, ...] → [heads·new, ...]: each head's two rotary halves padded with zeros at their ends."""
    rest = weight.shape[1:]
    per_head = weight.reshape(heads, 2, old // 2, *rest)
    out = weight.new_zeros(heads, 2, new // 2, *rest)
    out[:, :, : old // 2] = per_head
    return out.reshape(heads * new, *rest)


def widen_policy(source: Path, out: Path, head_dim: int = 32) -> Path:
    config = json.loads((source / "config.json").read_text())
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    old = config.get("head_dim") or config["hidden_size"] // heads
    if head_dim <= old or head_dim % 2:
        raise ValueError(f"head_dim {head_dim} must be even and above the current {old}")
    out.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.name not in ("config.json", "model.safetensors") and item.is_file():
            shutil.copy2(item, out / item.name)
    weights = load_file(str(source / "model.safetensors"))
    qwen3 = config["model_type"] == "qwen3"
    # Qwen3 normalises q and k after the projections: the scaling goes into the norms (see above), not q_proj
    q_scale = 1.0 if qwen3 else math.sqrt(head_dim / old)
    for name in list(weights):
        tensor = weights[name]
        if ".q_norm." in name:
            weights[name] = _widen_rows(tensor, 1, old, head_dim)
        elif ".k_norm." in name:
            weights[name] = _widen_rows(tensor, 1, old, head_dim) * math.sqrt(old / head_dim)
        elif ".q_proj." in name:
            weights[name] = _widen_rows(tensor, heads, old, head_dim) * q_scale
        elif ".k_proj." in name or ".v_proj." in name:
            weights[name] = _widen_rows(tensor, kv_heads, old, head_dim)
        elif ".o_proj.weight" in name:
            weights[name] = _widen_rows(tensor.t().contiguous(), heads, old, head_dim).t().contiguous()
            if not qwen3:
                weights[name.replace(".weight", ".bias")] = tensor.new_zeros(tensor.shape[0])  # Llama's: all or none
    save_file(weights, str(out / "model.safetensors"), metadata={"format": "pt"})
    rope = config.get("rope_parameters") or {"rope_type": "default", "rope_theta": config.get("rope_theta", 10000.0)}
    rope = {**rope, "rope_theta": float(rope["rope_theta"]) ** (head_dim / old)}
    config.update(head_dim=head_dim, rope_parameters=rope)
    if not qwen3:
        config.update(architectures=["LlamaForCausalLM"], model_type="llama", attention_bias=True, mlp_bias=False)
    for key in ("rope_theta", "layer_types", "sliding_window", "use_sliding_window", "max_window_layers"):
        config.pop(key, None)
    (out / "config.json").write_text(json.dumps(config, indent=2))
    return out


if __name__ == "__main__":
    widen_policy(
        builtin_model_dir("builtin:household-tiny"), Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 32
    )
