"""Fine-tune a pretrained LLM into an agent of the built-in household environment, before SEED.

A pretrained instruct model does not yet answer a household step prompt with `<action>…</action>`, nor write the
analysis JSON: SmolLM2-135M-Instruct answers "I'm here to help you with your kitchen tasks." The paper's policy
(Qwen2.5-3B-Instruct) acts from the start, and SEED's Stage 1 only teaches it to write skills. So a small model needs
one supervised step first, on text the environment produces — the same data the tiny policy's bootstrap trains on
(bootstrap.make_examples: demonstrations with injected mistakes and recoveries, and analysis prompts answered with the
oracle analyzer's JSON) — but starting from the model's pretrained weights, tokenizer and chat template.

`skill_share` is 0 by default: no demonstration carries a skill in its prompt, so whether a skill in the prompt helps
afterwards is the pretrained model's own reading, which is what SEED's premise asks of a pretrained policy (the tiny
policy learned to heed skills only because its demonstrations showed it). A positive share trains that in, as the
bootstrap does; reports say which was used.

    python -m seed_trainer.bootstrap.agent_sft OUT --base builtin:smollm2-135m-instruct-q4_1 [--steps 300] [--lr 3e-5]

The run resumes: every `--save-every` steps it keeps the weights, the optimizer and the data order under
`OUT.partial/`; a later call with the same settings continues from there. The result is an ordinary Hugging Face
model directory (full fine-tune in fp32 master weights, forward and backward under autocast) with `agent_sft.json`,
the recipe and the loss curve.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

RECIPE_VERSION = 1
STATE = "agent_sft_state.pt"  # inside OUT.partial/: optimizer, step, losses
REPORT = "agent_sft.json"


@dataclass
class AgentSftConfig:
    base: str = "builtin:smollm2-135m-instruct-q4_1"
    seed: int = 0
    episodes: int = 300  # demonstration episodes of the train split (each gives ~8 step examples)
    history: int = 2  # H of the step prompts; experiments that start from the result should match it
    max_steps: int = 20
    skill_share: float = 0.0  # see the module docstring
    analysis_share: float = 0.5
    steps: int = 300
    batch_size: int = 8
    lr: float = 3e-5
    warmup: int = 20
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.0
    max_length: int = 1024
    dtype: str = "bfloat16"  # autocast dtype on CPU ("float32": none)
    save_every: int = 25
    recipe: int = field(default=RECIPE_VERSION)


def learning_rate(config: AgentSftConfig, step: int) -> float:
    """Linear warmup, then cosine decay to min_lr_ratio·lr (step counts from 0)."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    done = (step - config.warmup) / max(1, config.steps - config.warmup)
    return config.lr * (config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * done)))


def training_examples(config: AgentSftConfig, tokenizer_policy) -> list[tuple[list[int], list[int]]]:
    """The bootstrap's examples through the base model's chat template: (prompt ids, reply ids + end of turn)."""
    from seed_trainer.bootstrap.examples import make_examples
    from seed_trainer.bootstrap.recipe import BootstrapConfig
    from seed_trainer.stages.sft import SftExample, tokenize

    data = BootstrapConfig(
        seed=config.seed,
        episodes=config.episodes,
        history=config.history,
        max_steps=config.max_steps,
        skill_share=config.skill_share,
        bank_share=0.0,
        analysis_share=config.analysis_share,
    )
    examples = make_examples(data)
    items, _dropped = tokenize(
        tokenizer_policy, (SftExample(str(i), e.prompt, e.response) for i, e in enumerate(examples)), config.max_length
    )
    return [(item.prompt_ids, item.response_ids) for item in items]


def batch_order(n_examples: int, config: AgentSftConfig) -> list[list[int]]:
    """Every step's example indices, fixed by the seed (so a resumed run takes the batches it would have)."""
    rng = random.Random(f"agent-sft|{config.seed}")
    order: list[int] = []
    while len(order) < config.steps * config.batch_size:
        epoch = list(range(n_examples))
        rng.shuffle(epoch)
        order += epoch
    return [order[i * config.batch_size : (i + 1) * config.batch_size] for i in range(config.steps)]


def agent_sft(out_dir: str | Path, config: AgentSftConfig, *, echo=sys.stderr) -> Path:
    import torch

    from seed_trainer.compute.policy import Policy
    from seed_trainer.compute.response_scoring import pack, response_logprobs
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir
    from seed_trainer.stages.sft import save_merged_model

    out_dir = Path(out_dir)
    partial = out_dir.with_name(out_dir.name + ".partial")
    settings = {k: v for k, v in asdict(config).items() if k not in ("save_every",)}
    torch.manual_seed(config.seed)
    state = None
    if (partial / STATE).exists():
        state = torch.load(partial / STATE, weights_only=False)
        if state["settings"] != settings:
            raise SystemExit(f"{partial}: made with other settings ({state['settings']}); delete it to start over")
    base = str(partial) if state is not None else str(ensure_model_dir(config.base) or config.base)
    policy = Policy.load(ModelConfig(path=base, device="cpu", dtype=config.dtype), with_reference=False)
    started = time.perf_counter()
    encoded = training_examples(config, policy)
    echo.write(
        f"agent SFT: {len(encoded)} examples ({time.perf_counter() - started:.0f} s to make), "
        f"{config.steps} steps of {config.batch_size}\n"
    )
    batches = batch_order(len(encoded), config)
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay)
    losses: list[float] = []
    first = 0
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        losses, first = state["losses"], state["step"]
        echo.write(f"agent SFT: resumed at step {first} from {partial}\n")
    policy.model.train()
    step_started = time.perf_counter()
    for step in range(first, config.steps):
        items = [encoded[i] for i in batches[step]]
        batch = pack([p for p, _ in items], [r for _, r in items], policy.pad_id, policy.device)
        with policy.autocast():
            logp, _ = response_logprobs(policy.model, batch)
        loss = -(logp * batch.response_mask).sum() / batch.response_mask.sum()
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(config, step)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
        done = step + 1
        if done % 5 == 0 or done == config.steps:
            rate = (time.perf_counter() - step_started) / (done - first)
            echo.write(
                f"agent SFT step {done}/{config.steps}: loss {sum(losses[-10:]) / len(losses[-10:]):.4f}, "
                f"{rate:.1f} s/step\n"
            )
        if done % config.save_every == 0 and done < config.steps:
            _save_partial(policy, optimizer, partial, settings, done, losses)
    policy.model.eval()
    save_merged_model(policy, out_dir)
    report = {
        "recipe": settings,
        "examples": len(encoded),
        "losses": losses,
        "seconds": time.perf_counter() - started + (state or {}).get("seconds", 0.0),
    }
    (out_dir / REPORT).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(partial, ignore_errors=True)
    return out_dir


def _save_partial(policy, optimizer, partial: Path, settings: dict, step: int, losses: list[float]) -> None:
    """Weights (a model directory), optimizer and progress, written beside `partial` and renamed into place."""
    import torch

    from seed_trainer.stages.sft import save_merged_model

    tmp = partial.with_name(partial.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_merged_model(policy, tmp)
    torch.save({"settings": settings, "optimizer": optimizer.state_dict(), "step": step, "losses": losses}, tmp / STATE)
    shutil.rmtree(partial, ignore_errors=True)
    tmp.rename(partial)


def main(argv: list[str] | None = None) -> int:
    defaults = AgentSftConfig()
    parser = argparse.ArgumentParser(
        prog="python -m seed_trainer.bootstrap.agent_sft", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("out", help="the model directory to write")
    for name, value in asdict(defaults).items():
        if name != "recipe":
            parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = vars(parser.parse_args(argv))
    out = args.pop("out")
    agent_sft(out, AgentSftConfig(**args))
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
