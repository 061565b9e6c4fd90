"""What one process holds of a full fine-tune: sharded (`distributed.strategy: fsdp`) against replicated.

Prints one JSON object. For each strategy and each rank, the bytes it holds — measured from the tensors themselves
(a sharded tensor counts its local shard) after one real optimizer step, so AdamW's moments exist:
  params, grads, optimizer (the fp32 training state), reference (the frozen KL copy), inference (the unsharded copy
  that generates and scores under fsdp; none when replicating).
and the ratios fsdp / replicate of the training state (params + grads + optimizer; goal ≈ 1/N) and of everything
held, with `expected`: the same ratios from compute/memory.py's formulas (training_bytes, sharded_training_bytes without the
transient gathered layers). Runs N processes on the CPU with gloo, like torchrun would on N GPUs.

    .venv/bin/python bench/speed/fsdp_memory.py [--processes 2] [--layers 8] [--hidden 256]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
from pathlib import Path

import torch
import torch.distributed as torch_dist
import torch.multiprocessing as mp

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "trainer"))

from seed_trainer.compute import sharding
from seed_trainer.compute.memory import MASTER_BYTES
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.response_scoring import pack, response_logprobs
from seed_trainer.experiment.config import ModelConfig


def _model_dir(root: Path, layers: int, hidden: int) -> Path:
    """A Qwen2-shaped policy with the tokenizer of the committed tiny one (random weights: memory only)."""
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    tiny = Path(__file__).resolve().parents[2] / "trainer" / "seed_trainer" / "assets" / "household-tiny"
    tokenizer = AutoTokenizer.from_pretrained(tiny)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=4 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=8,
        num_key_value_heads=2,
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(root)
    tokenizer.save_pretrained(root)
    return root


def _held(policy: Policy, optimizer: torch.optim.Optimizer) -> dict[str, int]:
    params = list(policy.model.parameters())
    moments = [v for state in optimizer.state.values() for v in state.values() if torch.is_tensor(v)]
    reference = list(policy._reference.parameters()) if policy._reference is not None else []
    inference = list(policy.inference_model.parameters()) if policy.inference_model is not None else []
    return {
        "params": sharding.local_bytes(params),
        "grads": sharding.local_bytes(p.grad for p in params if p.grad is not None),
        "optimizer": sharding.local_bytes(m for m in moments if m.dim() > 0),  # not the step counters
        "reference": sharding.local_bytes(reference),
        "inference": sharding.local_bytes(inference),
    }


def _worker(rank: int, world: int, port: int, model_dir: str, strategy: str, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    torch_dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.set_num_threads(1)
    policy = Policy.load(ModelConfig(path=model_dir, device="cpu", dtype="float32"))
    if strategy == "fsdp":
        sharding.shard_policy(policy)
    optimizer = torch.optim.AdamW([p for p in policy.model.parameters() if p.requires_grad], lr=1e-4)
    batch = pack([[1, 2, 3, 4]], [[5, 6, 7]], policy.pad_id, policy.device)
    logp, _ = response_logprobs(policy.model, batch)
    (-logp.sum()).backward()
    optimizer.step()  # AdamW's moments now exist; the gradients are kept for the count
    held = _held(policy, optimizer)
    parts = [None] * world
    torch_dist.all_gather_object(parts, held)
    if rank == 0:
        total = sum(p.numel() for p in policy.model.parameters())
        Path(out).write_text(json.dumps({"ranks": parts, "parameters": total}), encoding="utf-8")
    torch_dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=256)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = str(_model_dir(Path(tmp) / "model", args.layers, args.hidden))
        measured = {}
        for strategy in ("replicate", "fsdp"):
            out = Path(tmp) / f"{strategy}.json"
            mp.spawn(_worker, args=(args.processes, _free_port(), model_dir, strategy, str(out)), nprocs=args.processes)
            measured[strategy] = json.loads(out.read_text())
    total = measured["fsdp"]["parameters"]

    def training_state(part: dict[str, int]) -> int:
        return part["params"] + part["grads"] + part["optimizer"]

    per_rank = {
        s: [{**p, "training_state": training_state(p), "all": sum(p.values())} for p in m["ranks"]]
        for s, m in measured.items()
    }
    largest = max(per_rank["fsdp"], key=lambda p: p["all"])
    replica = per_rank["replicate"][0]
    # compute/memory.py without the transient gathered layers; the copies are fp32 here (the CPU computes in fp32)
    expected_state = (total * MASTER_BYTES / args.processes) / (total * MASTER_BYTES)
    expected_all = (total * MASTER_BYTES / args.processes + 2 * total * 4) / (total * (MASTER_BYTES + 4))
    print(
        json.dumps(
            {
                "processes": args.processes,
                "parameters": total,
                "bytes_per_rank": per_rank,
                "fsdp_over_replicate": {
                    "training_state": largest["training_state"] / replica["training_state"],
                    "all": largest["all"] / replica["all"],
                },
                "expected": {"training_state": expected_state, "all": expected_all},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
