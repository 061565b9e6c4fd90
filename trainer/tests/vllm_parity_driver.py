"""vLLM against Hugging Face generate on the household tasks, in the interpreter that has vLLM (test_vllm_engine.py).

usage: python vllm_parity_driver.py WORK_DIR OUT_JSON

One engine for everything (one at a time on a shared machine): the committed household policy, widened to head_dim 32
(`widen_heads`), full fine-tune and then LoRA. OUT_JSON holds, per check, the tokens both sides produced (the test
compares them), the log-prob differences and timings:
- greedy: HF and vLLM play the same tasks greedily (same weights, same seed);
- sampled: vLLM samples at temperatures 1.0 and 0.7 with log-probs; the trainer scores the same tokens;
- update: one AdamW step on the policy; the engine's greedy tokens before the push (stale weights), after it, and HF's
  after the step;
- lora: a LoRA policy over the same base, its adapters moved by one step, pushed as merged weights.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from seed_trainer.config import builtin_model_dir, experiment_from_data
from seed_trainer.envs import make_task_source
from seed_trainer.policy import Policy
from seed_trainer.rollout import play_episodes
from seed_trainer.vllm_engine import VllmEngine
from widen_heads import widen_policy

TASKS, MAX_STEPS, RESPONSE_TOKENS = 6, 6, 48


def experiment(policy_dir: Path, lora: bool):
    data = {
        "name": "vllm-parity", "seed": 0, "algorithm": "seed", "updates": 1,
        "model": {"path": str(policy_dir), "dtype": "float32", "device": "cpu",
                  **({"lora": {"r": 4, "alpha": 8}} if lora else {})},
        "environment": {"name": "household"},
        "rollout": {"engine": "vllm", "max_response_tokens": RESPONSE_TOKENS, "max_steps": MAX_STEPS},
    }
    return experiment_from_data(data, policy_dir, "vllm-parity")


def play(policy, source, specs, generator, **settings):
    started = time.perf_counter()
    episodes = play_episodes(
        policy, source, specs, group_size=1, max_steps=MAX_STEPS, history_length=5, max_prompt_tokens=2048,
        max_response_tokens=RESPONSE_TOKENS, generator=generator, **settings,
    )
    seconds = time.perf_counter() - started
    tokens = [[step.response_ids for step in episode.steps] for episode in episodes]
    return episodes, tokens, seconds


def greedy_tokens(policy, source, specs, generator):
    return play(policy, source, specs, generator, greedy=True)[1]


def one_step(policy: Policy, lr: float) -> None:
    """One AdamW step raising the log-prob of a fixed reply to a fixed prompt: the weights move visibly."""
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr)
    prompt = policy.encode_chat("Your task is to: put a clean mug in the cabinet.", 256)
    reply = policy.tokenizer.encode("<action>go to cabinet 1</action>") + policy.stop_ids[:1]
    ids = torch.tensor([prompt + reply])
    policy.model.train()
    logits = policy.model(input_ids=ids).logits[0, len(prompt) - 1 : -1]
    loss = torch.nn.functional.cross_entropy(logits.float(), torch.tensor(reply))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def main(work: str, out: str) -> None:
    work_dir = Path(work)
    policy_dir = widen_policy(builtin_model_dir("builtin:household-tiny"), work_dir / "policy-hd32")
    source = make_task_source("household")
    specs = source.sample("train", TASKS, seed=7)
    report: dict = {}

    config = experiment(policy_dir, lora=False)
    policy = Policy.load(config.resolved_model(), with_reference=False)
    started = time.perf_counter()
    engine = VllmEngine.start(policy, config)
    report["engine_start_s"] = time.perf_counter() - started
    print(f"engine started in {report['engine_start_s']:.1f} s", file=sys.stderr, flush=True)

    # greedy parity, and the wall time of each side on the same work
    torch.manual_seed(0)
    hf_episodes, hf_tokens, hf_seconds = play(policy, source, specs, None, greedy=True)
    torch.manual_seed(0)
    vllm_episodes, vllm_tokens, vllm_seconds = play(policy, source, specs, engine, greedy=True)
    report["greedy"] = {
        "hf": hf_tokens, "vllm": vllm_tokens, "hf_s": hf_seconds, "vllm_s": vllm_seconds,
        "hf_won": [e.won for e in hf_episodes], "vllm_won": [e.won for e in vllm_episodes],
        "hf_valid": sum(s.valid for e in hf_episodes for s in e.steps) / max(1, sum(len(e.steps) for e in hf_episodes)),
    }

    print(f"greedy: HF {hf_seconds:.1f} s, vLLM {vllm_seconds:.1f} s", file=sys.stderr, flush=True)

    # sampled log-probs against the trainer's scoring of the same tokens
    report["sampled"] = {}
    for temperature in (1.0, 0.7):
        torch.manual_seed(1)
        episodes, tokens, _ = play(policy, source, specs, engine, temperature=temperature, with_logprobs=True)
        steps = [s for e in episodes for s in e.steps]
        scored = policy.score([s.prompt_ids for s in steps], [s.response_ids for s in steps], temperature=temperature)
        diffs = torch.cat([(s.sample_logp - logp).abs() for s, logp in zip(steps, scored)])
        report["sampled"][str(temperature)] = {
            "tokens": int(diffs.numel()), "max_abs_diff": float(diffs.max()), "mean_abs_diff": float(diffs.mean()),
            "distinct_replies": len({tuple(s.response_ids) for s in steps}),
        }

    print(f"sampled: {report['sampled']}", file=sys.stderr, flush=True)

    # one update: stale before the push, the updated weights after it
    one_step(policy, lr=3e-3)
    report["update"] = {
        "engine_before_push": greedy_tokens(policy, source, specs, engine),
        "hf_after": greedy_tokens(policy, source, specs, None),
    }
    started = time.perf_counter()
    engine.push_weights()
    report["update"]["push_s"] = time.perf_counter() - started
    report["update"]["engine_after_push"] = greedy_tokens(policy, source, specs, engine)
    report["update"]["hf_before"] = hf_tokens

    # LoRA over the same base: adapters moved by a step, pushed merged into the same engine
    lora_config = experiment(policy_dir, lora=True)
    lora_policy = Policy.load(lora_config.resolved_model(), with_reference=False)
    for name, param in lora_policy.model.named_parameters():
        if "lora_B" in name:  # PEFT starts B at zero (a no-op adapter): give the step something to move
            torch.nn.init.normal_(param, std=0.05)
    one_step(lora_policy, lr=3e-3)
    lora_engine = VllmEngine(engine.llm, lora_policy, sleep=False)
    lora_engine.push_weights()
    report["lora"] = {
        "hf": greedy_tokens(lora_policy, source, specs, None),
        "vllm": greedy_tokens(lora_policy, source, specs, lora_engine),
    }
    Path(out).write_text(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
