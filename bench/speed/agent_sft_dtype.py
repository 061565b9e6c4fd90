"""One agent-SFT step of SmolLM2-135M on the CPU in fp32 against bf16 autocast, alternated in one process: whether
this CPU computes bf16 natively (AVX512-BF16 / AMX) or emulates it, which decides agent_sft's `--dtype auto`.

    OMP_NUM_THREADS=1 python bench/speed/agent_sft_dtype.py [--examples 2] [--rounds 2] [--freeze-layers 15]

Each round times forward + backward of the same `--examples` agent-SFT examples (bootstrap data through the model's
chat template, recipe 2) under each dtype; each dtype reports its minimum over the rounds (other processes on a
shared machine only add time) and fp32's ratio to bf16's. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--freeze-layers", type=int, default=15)
    args = parser.parse_args(argv)

    import torch

    from seed_trainer.bootstrap.agent_sft import AgentSftConfig, freeze_lower_layers, training_examples
    from seed_trainer.compute.policy import Policy
    from seed_trainer.compute.response_scoring import pack, response_logprobs
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    config = AgentSftConfig(episodes=4)
    policy = Policy.load(ModelConfig(path=str(ensure_model_dir(config.base)), device="cpu", dtype="float32"))
    encoded = training_examples(config, policy)[: args.examples]
    freeze_lower_layers(policy.model, args.freeze_layers)
    batch = pack([p for p, _ in encoded], [r for _, r in encoded], policy.pad_id, policy.device)
    seconds: dict[str, list[float]] = {"float32": [], "bfloat16": []}
    for _ in range(args.rounds):
        for name, dtype in (("float32", None), ("bfloat16", torch.bfloat16)):
            policy.model.zero_grad(set_to_none=True)
            started = time.perf_counter()
            with torch.autocast("cpu", dtype=dtype, enabled=dtype is not None):
                logp, _ = response_logprobs(policy.model, batch)
            (-(logp * batch.response_mask).sum()).backward()
            seconds[name].append(round(time.perf_counter() - started, 2))
    best = {name: min(values) for name, values in seconds.items()}
    report = {
        "benchmark": "agent_sft_dtype",
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "mkldnn_bf16_supported": bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()),
        "processor": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "examples": len(encoded),
        "tokens": int(batch.input_ids.numel()),
        "seconds": seconds,
        "best_s": best,
        "bf16_over_fp32": round(best["bfloat16"] / best["float32"], 2),
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
