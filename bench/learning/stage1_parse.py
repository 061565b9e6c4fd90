"""Does Stage-1 SFT make the tiny policy a better analyzer? Greedy parse rate before and after, by SFT learning rate.

The demo's Stage 2 parsed its own skills far less often (0.17–0.21) than SEED from the bootstrap in the learning
benchmark (0.55–0.69). This measures the analyzer alone: the demo's Stage 1 (`collect` with the oracle analyzer,
then `sft` on the analyses, examples/household-demo.seed.yaml) at each `--lrs`, and then, for the bootstrap and each
SFT model, greedy analyses (the Stage-2 analyzer's settings: 192 tokens, the whole episode in the prompt) of the same
held-back temperature-1.0 train-split episodes played by the bootstrap, through format verification. Reports, per
model: the SFT validation loss, valid analyses (won and lost episodes apart), the reasons of the invalid ones, and a
few replies.

Prints one JSON object (and writes it with --out). Not part of `npm test`; about 15 CPU minutes with the defaults.

    .venv/bin/python bench/learning/stage1_parse.py [--lrs 1e-4 3e-5 1e-5] [--episodes 16 4] [--out FILE]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

from seed_trainer.algo.json_repair import parse_skill_reply  # noqa: E402
from seed_trainer.analyzers import ANALYSIS_PROMPT_TOKENS  # noqa: E402
from seed_trainer.analyzers.self_analysis import analysis_prompt  # noqa: E402
from seed_trainer.compute.policy import Policy  # noqa: E402
from seed_trainer.envs import make_task_source  # noqa: E402
from seed_trainer.experiment.config import ModelConfig  # noqa: E402
from seed_trainer.rl.rollout import play_episodes  # noqa: E402
from seed_trainer.runlog import RunReader  # noqa: E402

DEMO = REPO / "examples" / "household-demo.seed.yaml"
BOOTSTRAP = REPO / "trainer" / "seed_trainer" / "assets" / "household-tiny"


def demo_experiment(tmp: Path, lr: float) -> Path:
    """The demo's Stage-1 experiment with its own SFT learning rate and absolute paths."""
    data = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    data["model"]["path"] = str(BOOTSTRAP)
    data["runs_dir"] = str(tmp)
    data["sft"]["lr"] = lr
    path = tmp / f"stage1-lr{lr:g}.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def trainer(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "seed_trainer", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "TQDM_DISABLE": "1"},
    )
    if done.returncode != 0:
        raise SystemExit(f"python -m seed_trainer {' '.join(args)} failed:\n{done.stderr[-3000:]}")


def load(model: Path) -> Policy:
    return Policy.load(ModelConfig(path=str(model), device="cpu"), with_reference=False, trainable=False)


def parse_rates(policy: Policy, episodes, keep_replies: int = 3) -> dict:
    prompts = [policy.encode_chat(analysis_prompt(e), ANALYSIS_PROMPT_TOKENS) for e in episodes]
    replies = [g.text for g in policy.generate(prompts, 192, greedy=True, batch_size=32)]
    parses = [parse_skill_reply(r) for r in replies]
    won = [p.valid for p, e in zip(parses, episodes) if e.won]
    lost = [p.valid for p, e in zip(parses, episodes) if not e.won]
    return {
        "valid": sum(p.valid for p in parses),
        "of": len(parses),
        "valid_won": [sum(won), len(won)],
        "valid_lost": [sum(lost), len(lost)],
        "invalid_reasons": dict(collections.Counter(p.reason for p in parses if not p.valid).most_common()),
        "replies": [{"valid": p.valid, "text": r[:400]} for p, r in list(zip(parses, replies))[:keep_replies]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lrs", nargs="+", type=float, default=[1e-4, 3e-5, 1e-5])
    parser.add_argument(
        "--episodes",
        nargs=2,
        type=int,
        default=[16, 4],
        metavar=("TASKS", "COPIES"),
        help="held-back episodes to analyse: train-split tasks × copies at temperature 1.0",
    )
    parser.add_argument("--seed", type=int, default=7, help="of the held-back episodes (the demo collects with seed 0)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    source = make_task_source("household", max_steps=20)
    specs = source.sample("train", args.episodes[0], seed=1_000 + args.seed)
    bootstrap = load(BOOTSTRAP)
    episodes = play_episodes(
        bootstrap,
        source,
        specs,
        group_size=args.episodes[1],
        max_steps=20,
        history_length=3,
        max_prompt_tokens=1024,
        max_response_tokens=48,
        temperature=1.0,
    )
    result = {
        "benchmark": "stage1_parse",
        "episodes": len(episodes),
        "won": sum(e.won for e in episodes),
        "models": {"bootstrap": {"sft_lr": None, "sft_val_loss": None, **parse_rates(bootstrap, episodes)}},
    }
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        collect = tmp / "collect"
        trainer("collect", str(demo_experiment(tmp, args.lrs[0])), "--run-dir", str(collect))
        for lr in args.lrs:
            run = tmp / f"sft-{lr:g}"
            trainer("sft", str(demo_experiment(tmp, lr)), "--data", str(collect), "--run-dir", str(run))
            losses = [r["loss/sft_val"] for r in RunReader(run).metrics() if "loss/sft_val" in r]
            result["models"][f"sft lr {lr:g}"] = {
                "sft_lr": lr,
                "sft_val_loss": [losses[0], losses[-1]],
                **parse_rates(load(run / "model"), episodes),
            }
            print(
                f"[bench] sft lr {lr:g}: {result['models'][f'sft lr {lr:g}']['valid']} valid",
                file=sys.stderr,
                flush=True,
            )
    text = json.dumps(result, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
