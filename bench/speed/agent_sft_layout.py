"""Agent SFT's layouts measured against each other in one process: decisions trained per CPU-second of the step layout
(one sequence per step) and the packed one (an episode as one conversation, logits only at the trained replies), each
with all layers trained and with the lower ones frozen; and the rollout's seconds per step in each prompt format.

    OMP_NUM_THREADS=1 python bench/speed/agent_sft_layout.py [--episodes 4] [--rounds 2] [--freeze-layers 15]
    python bench/speed/agent_sft_layout.py --quick     # the committed tiny policy, tiny sizes: a smoke run

Training: the same demonstration episodes (recipe 2: no loss on the injected inadmissible commands; no analyses, which
are the same one-turn sequences in both layouts) go through each configuration once per round, in batches of
`--batch-size` in one seeded order: forward, backward and an AdamW step, from the same starting weights. A decision
is a trained reply. Each configuration keeps its best round (other processes on a shared machine only add time); the
ratios divide by the step layout's rate of the same run. Rollout: `--rollout-tasks` valid_seen tasks played for
`--rollout-steps` steps in each format at temperature 0.4 (evaluation runs the same loop), CPU seconds per step and
the prompt tokens per step. CPU seconds are this process's (`time.process_time`) on one torch thread. Prints one JSON
object.
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

CONFIGURATIONS = (("step", 0), ("step", None), ("packed", 0), ("packed", None))  # None: --freeze-layers


def configuration_name(layout: str, frozen: int) -> str:
    return f"{layout}+frozen{frozen}" if frozen else layout


def summarise(rounds: list[dict[str, dict]]) -> dict[str, dict]:
    """Per configuration: its best round (the fewest CPU seconds; decisions and tokens are the same every round),
    decisions and tokens per CPU-second, and the ratio of its rate to the step layout's (the first configuration)."""
    names = list(rounds[0])
    best = {name: min((r[name] for r in rounds), key=lambda row: row["cpu_s"]) for name in names}
    baseline = best[names[0]]["decisions"] / best[names[0]]["cpu_s"]
    out = {}
    for name, row in best.items():
        rate = row["decisions"] / row["cpu_s"]
        out[name] = {
            **row,
            "decisions_per_cpu_s": round(rate, 4),
            "tokens_per_cpu_s": round(row["tokens"] / row["cpu_s"], 1),
            "rate_over_step": round(rate / baseline, 3),
        }
    return out


def _train_once(policy, sequences, layout: str, frozen: int, batch_size: int, lr: float) -> dict:
    import torch

    from seed_trainer.bootstrap.agent_sft import freeze_lower_layers
    from seed_trainer.bootstrap.packed_episodes import packed_logprobs
    from seed_trainer.compute.response_scoring import pack, response_logprobs

    policy.model.requires_grad_(True)
    freeze_lower_layers(policy.model, frozen)
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr)
    policy.model.train()
    started = time.process_time()
    for start in range(0, len(sequences), batch_size):
        items = sequences[start : start + batch_size]
        with policy.autocast():
            if layout == "packed":
                loss = -packed_logprobs(policy.model, items, policy.pad_id, policy.device).mean()
            else:
                batch = pack([p for p, _ in items], [r for _, r in items], policy.pad_id, policy.device)
                logp, _ = response_logprobs(policy.model, batch)
                loss = -(logp * batch.response_mask).sum() / batch.response_mask.sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    seconds = time.process_time() - started
    if layout == "packed":
        decisions, tokens = sum(s.decisions for s in sequences), sum(len(s.ids) for s in sequences)
    else:
        decisions, tokens = len(sequences), sum(len(p) + len(r) for p, r in sequences)
    return {"cpu_s": round(seconds, 3), "decisions": decisions, "tokens": tokens, "sequences": len(sequences)}


def _rollout(policy, prompt_format: str, args) -> dict:
    import torch

    from seed_trainer.envs.household import HouseholdTasks
    from seed_trainer.rl.rollout import play_episodes

    source = HouseholdTasks(max_steps=args.rollout_steps)
    specs = source.sample("valid_seen", args.rollout_tasks, seed=0)
    torch.manual_seed(0)
    policy.model.eval()
    started = time.process_time()
    episodes = play_episodes(
        policy,
        source,
        specs,
        group_size=1,
        max_steps=args.rollout_steps,
        history_length=args.history,
        max_prompt_tokens=args.max_prompt_tokens,
        max_response_tokens=args.max_response_tokens,
        temperature=0.4,
        prompt_format=prompt_format,
    )
    seconds = time.process_time() - started
    steps = [s for e in episodes for s in e.steps]
    return {
        "steps": len(steps),
        "cpu_s": round(seconds, 3),
        "cpu_s_per_step": round(seconds / max(1, len(steps)), 3),
        "prompt_tokens_per_step": round(sum(len(s.prompt_ids) for s in steps) / max(1, len(steps)), 1),
    }


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="builtin:smollm2-135m-instruct-q4_1")
    parser.add_argument("--episodes", type=int, default=4, help="demonstration episodes (the same in every layout)")
    parser.add_argument("--batch-size", type=int, default=8, help="sequences per optimizer step")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--freeze-layers", type=int, default=15)
    parser.add_argument("--dtype", default="auto", help="agent_sft's --dtype (auto: bf16 only with bf16 instructions)")
    parser.add_argument("--history", type=int, default=2, help="H of the step layout's prompts")
    parser.add_argument("--max-length", type=int, default=1024, help="the step layout's sequence limit")
    parser.add_argument("--max-prompt-tokens", type=int, default=1024, help="the chat format's prompt limit")
    parser.add_argument("--rollout-tasks", type=int, default=2)
    parser.add_argument("--rollout-steps", type=int, default=8)
    parser.add_argument("--max-response-tokens", type=int, default=48)
    parser.add_argument("--quick", action="store_true", help="the tiny policy and tiny sizes: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.model, args.episodes, args.batch_size, args.rounds, args.freeze_layers = (
            "builtin:household-tiny",
            2,
            4,
            1,
            1,
        )
        args.max_prompt_tokens, args.rollout_tasks, args.rollout_steps, args.max_response_tokens = 300, 1, 2, 16
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    import random

    import torch

    from seed_trainer.bootstrap.agent_sft import AgentSftConfig, cpu_dtype, packed_training_examples, training_examples
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    torch.set_num_threads(1)
    dtype = cpu_dtype(args.dtype)
    model = ModelConfig(path=str(ensure_model_dir(args.model)), device="cpu", dtype=dtype)
    policy = Policy.load(model, with_reference=False)
    config = AgentSftConfig(
        base=args.model, episodes=args.episodes, history=args.history, analysis_share=0.0, max_length=args.max_length,
        max_prompt_tokens=args.max_prompt_tokens,
    )  # fmt: skip
    data = {"step": training_examples(config, policy), "packed": packed_training_examples(config, policy)}
    for sequences in data.values():
        random.Random(0).shuffle(sequences)
    start = {k: v.detach().clone() for k, v in policy.model.state_dict().items()}
    rounds = []
    for _ in range(args.rounds):
        row = {}
        for layout, frozen in CONFIGURATIONS:
            frozen = args.freeze_layers if frozen is None else frozen
            policy.model.load_state_dict(start)
            row[configuration_name(layout, frozen)] = _train_once(
                policy, data[layout], layout, frozen, args.batch_size, config.lr
            )
        rounds.append(row)
    policy.model.load_state_dict(start)
    policy.model.requires_grad_(True)
    rollout = {fmt: _rollout(policy, fmt, args) for fmt in ("step", "chat")}
    report = {
        "benchmark": "agent_sft_layout",
        "command": "bench/speed/agent_sft_layout.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "model": args.model,
        "dtype": dtype,
        "threads": torch.get_num_threads(),
        "processor": platform.processor() or platform.machine(),
        "episodes": args.episodes,
        "batch_size": args.batch_size,
        "training": summarise(rounds),
        "rounds": rounds,
        "rollout": {
            **rollout,
            "chat_over_step_s_per_step": round(
                rollout["chat"]["cpu_s_per_step"] / rollout["step"]["cpu_s_per_step"], 3
            ),
        },
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
