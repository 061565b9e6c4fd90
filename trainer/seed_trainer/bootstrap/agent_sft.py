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
  the teacher-forced next-action accuracy at every save: the share of states where every action token of the
  demonstrator's correct response is the model's most likely token, given the prompt and the response before it.
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

RECIPE_VERSION = 2
STATE = "agent_sft_state.pt"  # inside OUT.partial/: optimizer, step, losses
REPORT = "agent_sft.json"


@dataclass
class AgentSftConfig:
    base: str = "builtin:smollm2-135m-instruct-q4_1"
    seed: int = 0
    episodes: int = 300  # demonstration episodes of the train split (each gives ~8 step examples)
    history: int = 2  # H of the step prompts; experiments that start from the result should match it
    memory: bool = False  # rollout.memory of the step prompts (and of the dev states); experiments should match it
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
    dtype: str = "auto"  # autocast dtype on CPU ("float32": none; "auto": see cpu_dtype)
    save_every: int = 25
    train_invalid: bool = False  # see the module docstring (recipe 2)
    freeze_layers: int = 0
    dev_states: int = 200
    recipe: int = field(default=RECIPE_VERSION)


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
    examples = [e for e in make_examples(data, memory=config.memory) if config.train_invalid or e.mistake != "invalid"]
    items, _dropped = tokenize(
        tokenizer_policy, (SftExample(str(i), e.prompt, e.response) for i, e in enumerate(examples)), config.max_length
    )
    return [(item.prompt_ids, item.response_ids) for item in items]


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


def dev_states(config: AgentSftConfig) -> list:
    """`config.dev_states` held-out states: mistake-free demonstrations of `dev` tasks, in order, fixed by the seed."""
    from seed_trainer.envs.household import HouseholdTasks
    from seed_trainer.envs.household.expert_states import expert_states

    source = HouseholdTasks(max_steps=config.max_steps)
    states: list = []
    for index, spec in enumerate(source.sample("dev", config.dev_states, seed=config.seed)):  # ≥ 1 state per task
        rng = random.Random(f"agent-sft-dev|{config.seed}|{index}")
        states += expert_states(source, spec, rng, config.history, memory=config.memory)
        if len(states) >= config.dev_states:
            break
    return states[: config.dev_states]


def next_action_accuracy(policy, states, max_length: int, micro_batch_size: int = 8) -> float:
    """Teacher-forced next-action accuracy: the share of states where every action token of the demonstrator's
    correct response is the model's most likely token given the prompt and the response tokens before it."""
    import torch

    from seed_trainer.algo.premise_stats import response_kinds
    from seed_trainer.compute.response_scoring import pack, response_logits
    from seed_trainer.stages.sft import end_of_turn_id

    tokenizer = policy.tokenizer
    rows = []
    for state in states:
        ids = tokenizer.encode(state.expert.response, add_special_tokens=False) + [end_of_turn_id(policy)]
        kinds = response_kinds(lambda part: tokenizer.decode(part, skip_special_tokens=True), ids)
        action = [kind == "action" for kind in kinds]
        if any(action):
            rows.append((policy.encode_chat(state.prompt, max(1, max_length - len(ids))), ids, action))
    if not rows:
        return float("nan")
    correct = 0
    was_training = policy.model.training
    policy.model.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(rows), micro_batch_size):
                chunk = rows[start : start + micro_batch_size]
                batch = pack([p for p, _, _ in chunk], [r for _, r, _ in chunk], policy.pad_id, policy.device)
                with policy.autocast():
                    predicted = response_logits(policy.model, batch).argmax(-1)
                for j, (_prompt, ids, action) in enumerate(chunk):
                    hits = (predicted[j, : len(ids)] == batch.responses[j, : len(ids)]).tolist()
                    correct += all(hit for hit, wanted in zip(hits, action) if wanted)
    finally:
        policy.model.train(was_training)
    return correct / len(rows)


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
    dtype = cpu_dtype(config.dtype)
    policy = Policy.load(ModelConfig(path=base, device="cpu", dtype=dtype), with_reference=False)
    started = time.perf_counter()
    encoded = training_examples(config, policy)
    echo.write(
        f"agent SFT: {len(encoded)} examples ({time.perf_counter() - started:.0f} s to make), "
        f"{config.steps} steps of {config.batch_size}, {dtype}\n"
    )
    batches = batch_order(len(encoded), config)
    freeze_lower_layers(policy.model, config.freeze_layers)
    held_out = dev_states(config) if config.dev_states > 0 else []
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay)
    losses: list[float] = []
    accuracy: list[dict] = []  # {step, accuracy (teacher-forced, dev states), seconds (of the run so far, all of it)}
    first = 0
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        losses, first, accuracy = state["losses"], state["step"], state.get("accuracy", [])
        echo.write(f"agent SFT: resumed at step {first} from {partial}\n")

    def spent() -> float:
        return time.perf_counter() - started + (state or {}).get("seconds", 0.0)

    def measure(step: int) -> None:
        if held_out:
            value = next_action_accuracy(policy, held_out, config.max_length)
            accuracy.append({"step": step, "accuracy": value, "seconds": round(spent(), 1)})
            echo.write(f"agent SFT step {step}: dev next-action accuracy {value:.3f} ({len(held_out)} states)\n")

    if state is None:
        measure(0)
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
        else:
            parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = vars(parser.parse_args(argv))
    out = args.pop("out")
    agent_sft(out, AgentSftConfig(**args))
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
