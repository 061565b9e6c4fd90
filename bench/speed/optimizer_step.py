"""What one AdamW step costs on the CPU, per implementation, on a model's own parameters (issue 53): torch's default
(a Python loop over the parameters on the CPU: `foreach` and `fused` left unset), `foreach=True` (multi-tensor ops)
and `fused=True` (one kernel per parameter group; TRL's default through transformers' `adamw_torch_fused`). The peer
comparison (peer_trl.py) showed our update slower than it need be; this measures the optimizer's share of it.

    OMP_NUM_THREADS=1 .venv/bin/python bench/speed/optimizer_step.py [--model builtin:smollm2-135m-instruct-q4_1]
        [--steps 6] [--rounds 3] [--out FILE]

Every implementation steps the same parameters with the same gradients (random, seeded) from the same state, in one
process, the implementations alternating over --rounds; per implementation the median step over the steps after the
first (the first allocates the moments), then the minimum over rounds (other processes only add time). Also the
largest difference of the weights from the default's after the same steps: the implementations compute the same
update, not necessarily bit for bit. Prints one JSON object (ratios: default's seconds over each one's).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

IMPLEMENTATIONS = {"default": {}, "foreach": {"foreach": True}, "fused": {"fused": True}}


def parameters_of(model: str) -> list[torch.Tensor]:
    from transformers import AutoModelForCausalLM

    from seed_trainer.experiment.config import ensure_model_dir

    loaded = AutoModelForCausalLM.from_pretrained(ensure_model_dir(model) or model, dtype=torch.float32)
    return [p.detach().clone() for p in loaded.parameters()]


def run(weights: list[torch.Tensor], grads: list[torch.Tensor], options: dict, steps: int) -> tuple[list[float], list]:
    params = [torch.nn.Parameter(w.clone()) for w in weights]
    optimizer = torch.optim.AdamW(params, lr=1e-5, weight_decay=0.01, **options)
    seconds = []
    for _ in range(steps):
        for p, g in zip(params, grads):
            p.grad = g
        started = time.perf_counter()
        optimizer.step()
        seconds.append(time.perf_counter() - started)
    return seconds, [p.detach() for p in params]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="builtin:smollm2-135m-instruct-q4_1")
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out")
    args = p.parse_args(argv)
    torch.manual_seed(0)
    weights = parameters_of(args.model)
    grads = [torch.randn_like(w) * 1e-3 for w in weights]
    best: dict[str, float] = {}
    final: dict[str, list] = {}
    for _ in range(args.rounds):
        for name, options in IMPLEMENTATIONS.items():
            seconds, final[name] = run(weights, grads, options, args.steps)
            median = statistics.median(seconds[1:])
            best[name] = min(best.get(name, median), median)
    reference = final["default"]
    result = {
        "command": " ".join(["bench/speed/optimizer_step.py", *(argv if argv is not None else sys.argv[1:])]),
        "model": args.model,
        "parameters": sum(w.numel() for w in weights),
        "tensors": len(weights),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "load_average": [round(v, 2) for v in os.getloadavg()],
        "statistic": "median step after the first, minimum over rounds (implementations alternating)",
        "seconds_per_step": {k: round(v, 4) for k, v in best.items()},
        "speedup_over_default": {k: round(best["default"] / v, 2) for k, v in best.items()},
        "max_abs_weight_difference_from_default": {
            name: max(float((a - b).abs().max()) for a, b in zip(reference, weights_after))
            for name, weights_after in final.items()
        },
        "steps": args.steps,
        "rounds": args.rounds,
    }
    text = json.dumps(result, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
