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
`OUT.partial/` (beside OUT, so it lives as long as OUT's folder does); a later call with the same settings continues
from there. The result is an ordinary Hugging Face model directory (full fine-tune in fp32 master weights, forward and
backward under autocast) with `agent_sft.json`, the recipe, the loss curve and the dev accuracy at every save.

Recipe 2 (issue: an SFT that makes SmolLM2 act):
- no loss on the injected *inadmissible* commands (`train_invalid` false): the demonstrations keep them in the
  context (the history of later steps shows them and the recovery), but the model is not taught to write them; the
  strategic mistakes a skill can fix (going back, passing a closed container, skipping the transformation, the wrong
  object) stay trained on, as the data a weak policy's rollouts look like;
- `freeze_layers` N > 0 freezes the input embeddings (tied to the output layer in SmolLM2) and the first N decoder
  layers: a step costs less backward work (measured 1.9x for 15 of SmolLM2's 30 layers);
- `dev_states` held-out states of the `dev` split (mistake-free demonstrations, envs/household/expert_states.py) give
  the dev accuracy at every save: the share of states where the model's own greedy reply names the demonstrator's
  correct action, beside the teacher-forced accuracy (bootstrap/agent_sft_dev.py says why that one is no gate).

Layouts (`--layout`): `step` (the default) trains one sequence per step, its step prompt and reply, for a policy that
acts with `rollout.prompt_format: step`; `packed` trains each demonstration as one multi-turn conversation with the loss
only at the assistant tokens (bootstrap/packed_episodes.py), for a policy that acts with `rollout.prompt_format: chat`;
each step's prompt is then truncated to `max_prompt_tokens` as that rollout truncates it (the oldest turns go).

The experiment's `sft.mode: agent` runs the same recipe as a Stage-1 run (bootstrap/agent_sft_stage.py).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from seed_trainer.experiment.config import AgentSftSettings, ModelConfig

RECIPE_VERSION = 2
STATE = "agent_sft_state.pt"  # inside OUT.partial/: optimizer, step, losses
REPORT = "agent_sft.json"
_AGENT = AgentSftSettings()  # the recipe's defaults are the experiment's `sft.agent` defaults (one source)


@dataclass
class AgentSftConfig:
    base: str = "builtin:smollm2-135m-instruct-q4_1"
    seed: int = 0
    episodes: int = _AGENT.episodes  # demonstration episodes of the train split (each gives ~8 step examples)
    history: int = 2  # H of the step prompts; experiments that start from the result should match it
    memory: bool = False  # rollout.memory of the step prompts (and of the dev states); experiments should match it
    max_steps: int = 20
    skill_share: float = _AGENT.skill_share  # see the module docstring
    analysis_share: float = _AGENT.analysis_share
    steps: int = _AGENT.steps
    batch_size: int = _AGENT.batch_size
    lr: float = _AGENT.lr
    warmup: int = _AGENT.warmup
    min_lr_ratio: float = 0.1
    weight_decay: float = _AGENT.weight_decay
    max_length: int = _AGENT.max_length
    dtype: str = "auto"  # autocast dtype on CPU ("float32": none; "auto": see cpu_dtype)
    save_every: int = _AGENT.eval_every
    train_invalid: bool = _AGENT.train_invalid  # see the module docstring (recipe 2)
    freeze_layers: int = _AGENT.freeze_layers
    dev_states: int = _AGENT.dev_states
    layout: str = "step"  # step | packed (module docstring)
    max_prompt_tokens: int = 1024  # packed: each step's prompt, as the chat rollout's rollout.max_prompt_tokens
    recipe: int = field(default=RECIPE_VERSION)


LAYOUTS = ("step", "packed")
# Settings added after recipe 2's first runs: left out of a run's settings at the values the runs made before them
# had, so that such a partial run still resumes. Literals on purpose: those values stay if a default ever changes.
_LATER_SETTINGS = {"layout": "step", "max_prompt_tokens": 1024}


def run_settings(config: AgentSftConfig) -> dict:
    """What a partial run must have been made with to be continued (everything but how often it saves)."""
    return {
        k: v
        for k, v in asdict(config).items()
        if k != "save_every" and not (k in _LATER_SETTINGS and v == _LATER_SETTINGS[k])
    }


@dataclass
class Hooks:
    """What a caller (the Stage-1 run) hears of the training and how it stops it; nothing by default."""

    step: Callable[[int, float, float, float], None] = lambda step, loss, lr, seconds: None  # seconds: of this step
    accuracy: Callable[[int, float, int], None] = lambda step, accuracy, states: None
    stop: Callable[[], bool] = lambda: False


def cpu_dtype(requested: str) -> str:
    """`auto`: bfloat16 where the CPU has bf16 instructions (AVX512-BF16 or AMX), else float32. Emulated bf16 autocast
    is slower than fp32: one step took 11x fp32's time on an AVX2 EPYC (bench/results/agent_sft_dtype-avx2.json) and
    3.6x on an AVX-512 Xeon without AVX512-BF16 (agent_sft_dtype-avx512.json), where oneDNN's own check
    (`torch.ops.mkldnn._is_mkldnn_bf16_supported`) says yes; a bf16-capable CPU ran the Stage-2 update 1.7x faster in
    bf16 (smollm2-speed.json)."""
    if requested != "auto":
        return requested
    import torch

    has = lambda name: bool(getattr(torch.cpu, name, lambda: False)())  # noqa: E731 (private torch checks)
    return "bfloat16" if has("_is_avx512_bf16_supported") or has("_is_amx_tile_supported") else "float32"


def learning_rate(config: AgentSftConfig, step: int) -> float:
    """Linear warmup, then cosine decay to min_lr_ratio·lr (step counts from 0)."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    done = (step - config.warmup) / max(1, config.steps - config.warmup)
    return config.lr * (config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * done)))


def _bootstrap_data(config: AgentSftConfig):
    from seed_trainer.bootstrap.recipe import BootstrapConfig

    return BootstrapConfig(
        seed=config.seed,
        episodes=config.episodes,
        history=config.history,
        max_steps=config.max_steps,
        skill_share=config.skill_share,
        bank_share=0.0,
        analysis_share=config.analysis_share,
    )


def training_examples(config: AgentSftConfig, tokenizer_policy) -> list[tuple[list[int], list[int]]]:
    """The step layout: the bootstrap's examples through the base model's chat template, (prompt ids, reply ids + end
    of turn)."""
    from seed_trainer.bootstrap.examples import make_examples
    from seed_trainer.stages.sft import SftExample, tokenize

    data = _bootstrap_data(config)
    examples = [e for e in make_examples(data, memory=config.memory) if config.train_invalid or e.mistake != "invalid"]
    items, _dropped = tokenize(
        tokenizer_policy, (SftExample(str(i), e.prompt, e.response) for i, e in enumerate(examples)), config.max_length
    )
    return [(item.prompt_ids, item.response_ids) for item in items]


def packed_training_examples(config: AgentSftConfig, policy) -> list:
    """The packed layout: the same demonstrations and analyses as `training_examples`, each episode as its
    conversation's sequences (bootstrap/packed_episodes.py)."""
    from seed_trainer.bootstrap.examples import demonstrations
    from seed_trainer.bootstrap.packed_episodes import packed_examples

    demos = list(demonstrations(_bootstrap_data(config)))
    return packed_examples(
        policy,
        demos,
        [d.analysis for d in demos if d.analysis is not None],
        memory=config.memory,
        train_invalid=config.train_invalid,
        max_prompt_tokens=config.max_prompt_tokens,
        max_length=config.max_length,
    )


def freeze_lower_layers(model, layers: int) -> None:
    """Freezes the input embeddings and the first `layers` decoder layers (nothing for 0). A model whose decoder layers
    are not at `model.model.layers` (Llama, Qwen, SmolLM2) is refused."""
    if layers <= 0:
        return
    stack = getattr(getattr(model, "model", None), "layers", None)
    if stack is None or layers > len(stack):
        found = "no decoder layers at model.model.layers" if stack is None else f"{len(stack)} decoder layers"
        raise ValueError(f"freeze_layers {layers}: the model has {found}")
    for module in (model.get_input_embeddings(), *stack[:layers]):
        module.requires_grad_(False)


def batch_order(n_examples: int, config: AgentSftConfig) -> list[list[int]]:
    """Every step's example indices, fixed by the seed (so a resumed run takes the batches it would have)."""
    rng = random.Random(f"agent-sft|{config.seed}")
    order: list[int] = []
    while len(order) < config.steps * config.batch_size:
        epoch = list(range(n_examples))
        rng.shuffle(epoch)
        order += epoch
    return [order[i * config.batch_size : (i + 1) * config.batch_size] for i in range(config.steps)]


def agent_sft(
    out_dir: str | Path,
    config: AgentSftConfig,
    *,
    echo=sys.stderr,
    model: ModelConfig | None = None,
    hooks: Hooks | None = None,
) -> Path | None:
    """Trains and writes OUT (module docstring). `model`: where and in what dtype to train (an experiment's `model`;
    default the CPU in `config.dtype`), its path replaced by the base or the partial run. Returns OUT, or None when
    `hooks.stop` asked to stop: the state is then in OUT.partial/, and a later call continues it."""
    import torch

    from seed_trainer.bootstrap.agent_sft_dev import chat_dev_prompts, dev_accuracy, dev_states
    from seed_trainer.compute.optimizer import adamw
    from seed_trainer.stages.sft import save_merged_model

    if config.layout not in LAYOUTS:
        raise ValueError(f"layout {config.layout!r}: one of {', '.join(LAYOUTS)}")
    hooks = hooks or Hooks()
    say = echo.write if echo is not None else (lambda text: None)
    out_dir = Path(out_dir)
    partial = out_dir.with_name(out_dir.name + ".partial")
    settings = run_settings(config)
    torch.manual_seed(config.seed)
    policy, state = _load(config, model, partial, settings)
    dtype = str(policy.compute_dtype).removeprefix("torch.")
    packed = config.layout == "packed"
    started = time.perf_counter()
    encoded = packed_training_examples(config, policy) if packed else training_examples(config, policy)
    say(
        f"agent SFT: {len(encoded)} {'sequences' if packed else 'examples'} ({time.perf_counter() - started:.0f} s "
        f"to make), {config.steps} steps of {config.batch_size}, {dtype}\n"
    )
    batches = batch_order(len(encoded), config)
    freeze_lower_layers(policy.model, config.freeze_layers)
    held_out = dev_states(config) if config.dev_states > 0 else []
    dev_prompts = (
        chat_dev_prompts(policy, held_out, memory=config.memory, max_prompt_tokens=config.max_prompt_tokens)
        if packed and held_out
        else None
    )
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = adamw(params, lr=config.lr, weight_decay=config.weight_decay)
    losses: list[float] = []
    # {step, accuracy (greedy action), admissible, valid, teacher_forced, seconds (all so far)} at every measurement
    accuracy: list[dict] = []
    first = 0
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        losses, first, accuracy = state["losses"], state["step"], state.get("accuracy", [])
        say(f"agent SFT: resumed at step {first} from {partial}\n")

    def spent() -> float:
        return time.perf_counter() - started + (state or {}).get("seconds", 0.0)

    def measure(step: int) -> None:
        if held_out:
            scores = dev_accuracy(policy, held_out, config.max_length, prompts=dev_prompts)
            accuracy.append(
                {"step": step, "accuracy": scores.pop("greedy_action"), **scores, "seconds": round(spent())}
            )
            hooks.accuracy(step, accuracy[-1]["accuracy"], len(held_out))
            say(f"agent SFT step {step}: dev accuracy {json.dumps(accuracy[-1])} ({len(held_out)} states)\n")

    if state is None:
        measure(0)
    policy.model.train()
    step_started = time.perf_counter()
    for step in range(first, config.steps):
        if hooks.stop():
            _save_partial(policy, optimizer, partial, settings, step, losses, accuracy, spent())
            say(f"agent SFT: stopped after step {step}; its state is in {partial}\n")
            return None
        lr, step_began = learning_rate(config, step), time.perf_counter()
        losses.append(_train_step(policy, optimizer, params, [encoded[i] for i in batches[step]], packed, lr))
        done = step + 1
        hooks.step(done, losses[-1], lr, time.perf_counter() - step_began)
        if done % 5 == 0 or done == config.steps:
            rate = (time.perf_counter() - step_started) / (done - first)
            say(
                f"agent SFT step {done}/{config.steps}: loss {sum(losses[-10:]) / len(losses[-10:]):.4f}, "
                f"{rate:.1f} s/step\n"
            )
        if done % config.save_every == 0 and done < config.steps:
            measure(done)
            _save_partial(policy, optimizer, partial, settings, done, losses, accuracy, spent())
    measure(config.steps)
    policy.model.eval()
    save_merged_model(policy, out_dir)
    report = {
        "recipe": settings,
        "dtype": dtype,
        "examples": len(encoded),
        "losses": losses,
        "dev_accuracy": accuracy,
        "seconds": spent(),
    }
    (out_dir / REPORT).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(partial, ignore_errors=True)
    return out_dir


def _load(config: AgentSftConfig, model: ModelConfig | None, partial: Path, settings: dict):
    """The policy to train — the base model's weights, or the partial run's — and the partial run's state (None when
    it starts afresh)."""
    import torch

    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    state = None
    if (partial / STATE).exists():
        state = torch.load(partial / STATE, weights_only=False)
        if state["settings"] != settings:
            raise SystemExit(f"{partial}: made with other settings ({state['settings']}); delete it to start over")
    base = str(partial) if state is not None else str(ensure_model_dir(config.base) or config.base)
    if model is None:
        model = ModelConfig(path=base, device="cpu", dtype=cpu_dtype(config.dtype))
    return Policy.load(model.model_copy(update={"path": base}), with_reference=False), state


def _train_step(policy, optimizer, params, items: list, packed: bool, lr: float) -> float:
    """One optimizer step on a batch of examples (packed sequences, or step layout (prompt, reply) pairs): a token
    mean of the NLL over the trained tokens, the gradient clipped to norm 1. Returns the loss."""
    import torch

    from seed_trainer.bootstrap.packed_episodes import packed_logprobs
    from seed_trainer.compute.response_scoring import pack, response_logprobs

    if packed:
        with policy.autocast():
            logp = packed_logprobs(policy.model, items, policy.pad_id, policy.device)
        loss = -logp.mean()
    else:
        batch = pack([p for p, _ in items], [r for _, r in items], policy.pad_id, policy.device)
        with policy.autocast():
            logp, _ = response_logprobs(policy.model, batch)
        loss = -(logp * batch.response_mask).sum() / batch.response_mask.sum()
    for group in optimizer.param_groups:
        group["lr"] = lr
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
    return float(loss.detach())


def _save_partial(
    policy,
    optimizer,
    partial: Path,
    settings: dict,
    step: int,
    losses: list[float],
    accuracy: list[dict],
    seconds: float,
) -> None:
    """Weights (a model directory), optimizer and progress, written beside `partial` and renamed into place."""
    import torch

    from seed_trainer.stages.sft import save_merged_model

    tmp = partial.with_name(partial.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_merged_model(policy, tmp)
    progress = {"step": step, "losses": losses, "accuracy": accuracy, "seconds": seconds}
    torch.save({"settings": settings, "optimizer": optimizer.state_dict(), **progress}, tmp / STATE)
    shutil.rmtree(partial, ignore_errors=True)
    tmp.rename(partial)


def main(argv: list[str] | None = None) -> int:
    defaults = AgentSftConfig()
    parser = argparse.ArgumentParser(
        prog="python -m seed_trainer.bootstrap.agent_sft", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("out", help="the model directory to write")
    for name, value in asdict(defaults).items():
        if name == "recipe":
            continue
        if isinstance(value, bool):  # --train-invalid / --no-train-invalid: bool("False") would be True
            parser.add_argument(f"--{name.replace('_', '-')}", action=argparse.BooleanOptionalAction, default=value)
        elif name == "layout":
            parser.add_argument("--layout", choices=LAYOUTS, default=value)
        else:
            parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = vars(parser.parse_args(argv))
    out = args.pop("out")
    agent_sft(out, AgentSftConfig(**args))
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
