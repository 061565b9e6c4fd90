"""Stage-1 SFT (DESIGN §2): teach the policy to write hindsight skills — analysis prompt → the JSON string
{"episode_summary", "episode_skill"} — with the loss on the reply tokens only.

The data is a `collect` run's skills.jsonl with its review decisions (docs/run-format.md §8): a record is trained on
when it passed format verification and was not rejected (with `sft.require_review`: only accepted or edited ones); an
edited record's reviewer text replaces the skill. The prompt is rebuilt from the analyzed trajectory exactly as the
analyzer saw it. A 90/10 train/validation split fixed by `seed`; AdamW at a constant learning rate; token-mean loss
over a batch's reply tokens (gradients accumulate over micro-batches). The result is `<run>/model/`, an ordinary HF
model directory (LoRA adapters merged in) that Stage 2 takes as `model.path`: actor, analyzer and KL reference.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import torch

from seed_trainer.analyzers.self_analysis import analysis_prompt_from_record
from seed_trainer.compute.conversation import end_of_turn_id as conversation_end_of_turn_id
from seed_trainer.compute.optimizer import adamw
from seed_trainer.compute.policy import Policy
from seed_trainer.compute.precision import NonFiniteGuard, check_finite_weights, grad_scaler, guarded_step
from seed_trainer.compute.response_scoring import pack, response_logprobs
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.runlog import RunReader, RunWriter, layout
from seed_trainer.stages.common import StopFlag, create_run, progress_bar, run_stage, runs_dir_for, seed_everything

MODEL_DIR = "model"  # the SFT run's output, inside its run directory


@dataclass(frozen=True)
class SftExample:
    id: str
    prompt: str  # the analysis prompt (before the chat template)
    target: str  # the JSON string the policy learns to write


def sft_target(summary: str | None, skill: str) -> str:
    """The reply the policy learns: the analyzer's output format, compact JSON."""
    return json.dumps({"episode_summary": summary or "", "episode_skill": skill}, ensure_ascii=False)


def trained_skill(record: Mapping[str, Any], *, require_review: bool) -> str | None:
    """The skill text a skills.jsonl record contributes to SFT, or None when it is left out.

    Valid ∧ not rejected (with `require_review`: accepted or edited); an edit replaces the analyzer's text.
    """
    state = (record.get("review") or {}).get("state", "pending")
    if not record.get("valid") or state == "rejected":
        return None
    if require_review and state not in ("accepted", "edited"):
        return None
    if state == "edited":
        return str(record["review"]["text"]).strip()
    return record.get("skill")


def skills_source(data: str | Path) -> Path:
    """The collect run directory given it or its skills.jsonl."""
    path = Path(data)
    run_dir = path.parent if path.name == layout.SKILLS else path
    if not (run_dir / layout.SKILLS).exists():
        raise FileNotFoundError(f"{path}: no {layout.SKILLS} here (sft.data names a collect run directory)")
    return run_dir


def load_sft_examples(data: str | Path, *, require_review: bool) -> tuple[list[SftExample], dict[str, int]]:
    """The SFT examples of a collect run, and counts of what was left out and why."""
    reader = RunReader(skills_source(data))
    index = {row["id"]: row for row in reader.trajectory_index()}
    counts = {"records": 0, "invalid": 0, "rejected": 0, "unreviewed": 0, "no_trajectory": 0, "used": 0}
    examples = []
    for record in reader.skills():
        counts["records"] += 1
        skill = trained_skill(record, require_review=require_review)
        if skill is None:
            state = (record.get("review") or {}).get("state", "pending")
            counts["invalid" if not record.get("valid") else "rejected" if state == "rejected" else "unreviewed"] += 1
            continue
        row = index.get((record.get("trajectory") or {}).get("id"))
        if row is None:
            counts["no_trajectory"] += 1
            continue
        trajectory = reader.trajectory(row)
        examples.append(
            SftExample(record["id"], analysis_prompt_from_record(trajectory), sft_target(record.get("summary"), skill))
        )
        counts["used"] += 1
    return examples, counts


def split_examples(
    examples: Sequence[SftExample], val_fraction: float, seed: int
) -> tuple[list[SftExample], list[SftExample]]:
    """A seeded shuffle; the first ⌈val_fraction·n⌉ are validation (none when that would leave no training data)."""
    order = list(examples)
    random.Random(seed).shuffle(order)
    n_val = math.ceil(val_fraction * len(order)) if val_fraction > 0 else 0
    if n_val >= len(order):
        n_val = 0
    return order[n_val:], order[:n_val]


@dataclass(frozen=True)
class Tokenized:
    prompt_ids: list[int]
    response_ids: list[int]


def end_of_turn_id(policy: Policy) -> int:
    """The token that ends an assistant turn (ChatML `<|im_end|>`, else end of sequence): SFT replies end with it."""
    return conversation_end_of_turn_id(policy.tokenizer)


def tokenize(policy: Policy, examples: Iterable[SftExample], max_length: int) -> tuple[list[Tokenized], int]:
    """(prompt through the chat template, reply + end-of-turn token); prompts are left-truncated to fit `max_length`.
    Returns the tokenized examples and how many were dropped because the reply alone does not fit."""
    end = end_of_turn_id(policy)
    out, dropped = [], 0
    for example in examples:
        response = policy.tokenizer.encode(example.target, add_special_tokens=False) + [end]
        room = max_length - len(response)
        if room < 1:
            dropped += 1
            continue
        out.append(Tokenized(policy.encode_chat(example.prompt, room), response))
    return out, dropped


def _batch_nll(policy: Policy, items: Sequence[Tokenized]) -> tuple[torch.Tensor, int]:
    """Summed negative log-likelihood of the reply tokens of `items`, and their number."""
    batch = pack([i.prompt_ids for i in items], [i.response_ids for i in items], policy.pad_id, policy.device)
    with policy.autocast():
        logp, _ = response_logprobs(policy.model, batch)
    return -torch.where(batch.response_mask > 0, logp, 0.0).sum(), int(batch.response_mask.sum())


@torch.no_grad()
def validation_loss(policy: Policy, items: Sequence[Tokenized], micro_batch_size: int) -> float | None:
    """Token-mean NLL of the replies (nats/token); None without validation data."""
    if not items:
        return None
    was_training = policy.model.training
    policy.model.eval()
    total, tokens = 0.0, 0
    try:
        for start in range(0, len(items), micro_batch_size):
            nll, count = _batch_nll(policy, items[start : start + micro_batch_size])
            total, tokens = total + float(nll), tokens + count
    finally:
        policy.model.train(was_training)
    return total / max(tokens, 1)


def save_merged_model(policy: Policy, directory: Path) -> Path:
    """An HF model directory Stage 2 can load: LoRA adapters merged into the weights, tokenizer and chat template.
    Written beside the target and renamed into place."""
    tmp = directory.with_name(f".tmp-{directory.name}")
    shutil.rmtree(tmp, ignore_errors=True)
    model = policy.model
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
        policy.model = model
    model.save_pretrained(tmp)
    policy.tokenizer.save_pretrained(tmp)
    shutil.rmtree(directory, ignore_errors=True)
    tmp.rename(directory)
    return directory


def sft(
    config: ExperimentConfig,
    experiment_path: str | Path,
    *,
    data: str | Path | None = None,
    runs_dir: str | Path | None = None,
    run_id: str | None = None,
    echo: TextIO | None = sys.stdout,
    progress: bool = False,
) -> Path:
    """Runs Stage-1 SFT in a new run directory (stage `sft`) and returns it; the trained model is `<run>/model/`.
    `data` (a collect run directory or its skills.jsonl) overrides `sft.data`."""
    if data is None:
        if not config.sft.data:
            raise ValueError("sft: no data — set `sft.data` to a collect run directory or pass --data")
        data = config.resolve_path(config.sft.data)
    source = skills_source(data)
    writer = create_run(
        config,
        experiment_path,
        runs_dir_for(config, runs_dir),
        stage="sft",
        run_id=run_id,
        echo=echo,
        parent={"run": source.name},
        progress_unit="sft_step",
    )
    run_stage(writer, lambda stop: _sft(config, writer, source, stop, progress))
    return writer.run_dir


def _sft(config: ExperimentConfig, writer: RunWriter, data: Path, stop: StopFlag, progress: bool) -> None:
    settings = config.sft
    rng = seed_everything(config.seed)

    # 1. the SFT set: valid, not rejected (or reviewed), edits applied; a seeded 90/10 split
    examples, counts = load_sft_examples(data, require_review=settings.require_review)
    if not examples:
        raise ValueError(
            f"no analyses to train on in {data / layout.SKILLS}: {counts['records']} records, {counts['invalid']} "
            f"invalid, {counts['rejected']} rejected, {counts['unreviewed']} not reviewed (sft.require_review)"
        )
    train_set, val_set = split_examples(examples, settings.val_fraction, config.seed)
    policy = Policy.load(config.resolved_model(), with_reference=False)
    train_items, dropped_train = tokenize(policy, train_set, settings.max_length)
    val_items, dropped_val = tokenize(policy, val_set, settings.max_length)
    if not train_items:
        raise ValueError(f"every training reply is longer than sft.max_length ({settings.max_length} tokens)")
    writer.event(
        "info",
        f"SFT set from {data.name}: {counts['used']} of {counts['records']} analyses ({counts['invalid']} invalid, "
        f"{counts['rejected']} rejected, {counts['unreviewed']} not reviewed, {counts['no_trajectory']} without a "
        f"trajectory); {len(train_items)} train / {len(val_items)} validation"
        + (
            f"; {dropped_train + dropped_val} dropped, reply longer than sft.max_length"
            if dropped_train + dropped_val
            else ""
        ),
    )

    # 2. the loop: batches of `batch_size` sequences, micro-batches with gradient accumulation
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = adamw(params, lr=settings.lr, weight_decay=settings.weight_decay)
    scaler = grad_scaler(policy.device, policy.compute_dtype)
    guard = NonFiniteGuard(config.rl.max_skipped_steps)
    steps_per_epoch = math.ceil(len(train_items) / settings.batch_size)
    total = settings.epochs * steps_per_epoch
    writer.set_progress(0, total=total, unit="sft_step")
    initial = validation_loss(policy, val_items, settings.micro_batch_size)
    writer.metrics(0, "sft", {"loss/sft_val": initial}, epoch=0.0)
    step = 0
    policy.model.train()
    for epoch in range(settings.epochs):
        order = list(range(len(train_items)))
        rng.shuffle(order)
        for start in range(0, len(order), settings.batch_size):
            if stop.signal or writer.stop_requested():
                writer.begin_stop("signal" if stop.signal else "control", signal=stop.signal)
                _save(policy, writer, step)
                writer.finish("stopped", f"stopped after SFT step {step} of {total}; model saved")
                return
            started = time.perf_counter()
            batch = [train_items[i] for i in order[start : start + settings.batch_size]]
            batch_tokens = sum(len(item.response_ids) for item in batch)
            optimizer.zero_grad(set_to_none=True)
            loss_sum = 0.0
            bad = []
            for micro in range(0, len(batch), settings.micro_batch_size):
                nll, _ = _batch_nll(policy, batch[micro : micro + settings.micro_batch_size])
                if not math.isfinite(float(nll)):
                    bad = ["sft"]  # not back-propagated: the step is skipped
                    continue
                scaler.scale(nll / batch_tokens).backward()  # token-mean over the whole batch
                loss_sum += float(nll.detach())
            outcome = guarded_step(optimizer, policy.model, settings.grad_clip, scaler, bad)
            step += 1
            if outcome.skipped:
                writer.event(
                    "warning", f"SFT step {step}: skipped, non-finite {outcome.reason}", step=step, code="skipped_step"
                )
            guard.record(outcome, f"SFT step {step}")
            values = {
                "loss/sft": loss_sum / batch_tokens if not bad else None,
                "optim/lr": settings.lr,
                "optim/grad_norm": outcome.grad_norm if not outcome.skipped else None,
                "optim/skipped_steps": float(outcome.skipped),
                "tokens/total": batch_tokens,
                "time/step": time.perf_counter() - started,
            }
            end_of_epoch = start + settings.batch_size >= len(order)
            if end_of_epoch:
                values["loss/sft_val"] = validation_loss(policy, val_items, settings.micro_batch_size)
            writer.metrics(step, "sft", values, epoch=epoch + min(start + settings.batch_size, len(order)) / len(order))
            writer.set_progress(step)
            if end_of_epoch:
                val = values["loss/sft_val"]
                writer.event(
                    "iteration",
                    f"SFT epoch {epoch + 1}/{settings.epochs}: train loss {values['loss/sft']:.4f}"
                    + (f", validation loss {val:.4f}" if val is not None else ""),
                    step=step,
                    total=total,
                )
            if progress:
                progress_bar(step, total, f"loss {values['loss/sft']:.4f}")
    _save(policy, writer, step)
    writer.finish("completed", f"SFT completed: {total} steps; model in {MODEL_DIR}/")


def _save(policy: Policy, writer: RunWriter, step: int) -> None:
    check_finite_weights(policy.model, f"model after SFT step {step}")
    writer.sync()
    path = save_merged_model(policy, writer.run_dir / MODEL_DIR)
    writer.event(
        "model",
        f"model after SFT step {step} saved to {MODEL_DIR}/ (use it as model.path)",
        step=step,
        path=writer.paths.relative(path),
    )
