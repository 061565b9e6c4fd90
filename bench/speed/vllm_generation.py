"""Generation throughput of the two rollout engines, Hugging Face generate vs vLLM, on the same prompts and weights.

Prints one JSON object: for each batch size, tokens/s of each engine (median of `--repeats` alternating rounds) and
vllm_over_hf. The prompts are household first-step prompts; every reply is exactly `--tokens` long (min = max new
tokens), sampled at temperature 1, so both engines do the same amount of work. The model is the committed household
policy widened to head_dim 32 (vLLM's CPU attention has no kernel for its 24; tests/support/widen_heads.py). Runs in the venv
that has vLLM (`npm run setup:vllm`):

    VLLM_CPU_KVCACHE_SPACE=1 TORCHDYNAMO_DISABLE=1 .venv-vllm/bin/python bench/speed/vllm_generation.py [--batches 8 64] > bench/results/vllm_generation.json

(vLLM logs to stdout too: keep the JSON object at the end.) Measured here (2 shared cores, load ~19, 1 thread, 2
repeats): 8 prompts HF 27.9 vs vLLM 34.6 tokens/s (×1.24), 64 prompts 54.2 vs 134.4 (×2.48).
On the CPU the figures say what the CPU path costs, not what vLLM gains on a GPU (there it batches and pages the KV
cache across the whole rollout).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer" / "tests" / "support"))  # widen_heads

from widen_heads import widen_policy  # noqa: E402

from seed_trainer.algo.prompts import build_step_prompt  # noqa: E402
from seed_trainer.compute.policy import Policy  # noqa: E402
from seed_trainer.compute.vllm_engine import VllmEngine  # noqa: E402
from seed_trainer.envs import make_task_source  # noqa: E402
from seed_trainer.experiment.config import builtin_model_dir  # noqa: E402
from seed_trainer.experiment.loading import experiment_from_data  # noqa: E402


def first_step_prompts(policy: Policy, count: int) -> list[list[int]]:
    source = make_task_source("household")
    prompts = []
    for spec in source.sample("train", count, seed=3):
        task, observation = source.make(spec).reset()
        text = build_step_prompt(
            task=task.description,
            observation=observation.text,
            admissible_actions=observation.admissible_actions,
            history=[],
            history_length=5,
        )
        prompts.append(policy.encode_chat(text, 2048))
    return prompts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--tokens", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vllm-bench-"))
    policy_dir = widen_policy(builtin_model_dir("builtin:household-tiny"), work / "policy")
    config = experiment_from_data(
        {
            "name": "bench",
            "model": {"path": str(policy_dir), "dtype": "float32", "device": "cpu"},
            "rollout": {"engine": "vllm"},
        },
        work,
        "bench",
    )
    policy = Policy.load(config.resolved_model(), with_reference=False, trainable=False)
    engine = VllmEngine.start(policy, config)
    engines = {"hf": policy, "vllm": engine}
    result = {
        "model": "household-tiny widened to head_dim 32 (fp32, CPU)",
        "tokens_per_reply": args.tokens,
        "threads": torch.get_num_threads(),
        "batches": {},
    }
    for batch in args.batches:
        prompts = first_step_prompts(policy, batch)
        seconds = {name: [] for name in engines}
        for generator in engines.values():  # warm-up
            generator.generate(prompts[:2], 4, temperature=1.0, batch_size=batch)
        for _ in range(args.repeats):
            for name, generator in engines.items():
                started = time.perf_counter()
                out = generator.generate(
                    prompts, args.tokens, temperature=1.0, batch_size=batch, min_new_tokens=args.tokens
                )
                seconds[name].append(time.perf_counter() - started)
                assert all(len(g.response_ids) == args.tokens for g in out), name
        rate = {name: batch * args.tokens / statistics.median(s) for name, s in seconds.items()}
        result["batches"][str(batch)] = {
            "hf_tokens_per_s": round(rate["hf"], 1),
            "vllm_tokens_per_s": round(rate["vllm"], 1),
            "vllm_over_hf": round(rate["vllm"] / rate["hf"], 3),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
