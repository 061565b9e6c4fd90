"""The bootstrap's tokenizer corpus, example encoding and training loop (`bootstrap/tiny_policy.py`): next-token loss on the
response tokens only, in batches of similar length, AdamW with warmup and cosine decay."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from seed_trainer.bootstrap.examples import Example

if TYPE_CHECKING:
    from seed_trainer.bootstrap.recipe import BootstrapConfig


def tokenizer_corpus(examples: Sequence[Example], rng: random.Random, limit: int = 6000) -> list[str]:
    chosen = examples if len(examples) <= limit else rng.sample(list(examples), limit)
    return [text for example in chosen for text in (example.prompt, example.response)]


def encode_example(tokenizer, example: Example, max_length: int) -> tuple[list[int], list[int]]:
    """(prompt ids through the chat template, response ids ending with the end-of-turn token)."""
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": example.prompt}], add_generation_prompt=True, tokenize=True
    )
    if hasattr(prompt, "keys"):
        prompt = prompt["input_ids"]
    response = tokenizer.encode(example.response, add_special_tokens=False) + [
        tokenizer.convert_tokens_to_ids("<|im_end|>")
    ]
    keep = max_length - len(response)
    prompt = list(prompt)[-keep:] if len(prompt) > keep else list(prompt)
    return prompt, response


def _batches(lengths: Sequence[int], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Index batches of similar length (less padding), in random order."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    batches = []
    chunk = batch_size * 32
    for start in range(0, len(order), chunk):
        part = sorted(order[start : start + chunk], key=lambda i: lengths[i])
        batches += [part[i : i + batch_size] for i in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    return batches


def train_model(model, tokenizer, encoded, config: BootstrapConfig, progress=None) -> list[float]:
    """Next-token loss on the response tokens only, AdamW with warmup and cosine decay; returns the loss curve."""
    import torch

    from seed_trainer.compute.response_scoring import pack, response_logprobs

    rng = random.Random(f"bootstrap-train|{config.seed}")
    lengths = [len(p) + len(r) for p, r in encoded]
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay, betas=(0.9, 0.98))
    schedule = []
    for step in range(config.steps):
        if step < config.warmup:
            schedule.append(config.lr * (step + 1) / config.warmup)
        else:
            progress_frac = (step - config.warmup) / max(1, config.steps - config.warmup)
            cosine = 0.5 * (1 + math.cos(math.pi * progress_frac))
            schedule.append(config.lr * (config.min_lr_ratio + (1 - config.min_lr_ratio) * cosine))
    model.train()
    losses: list[float] = []
    pad = tokenizer.pad_token_id
    queue: list[list[int]] = []
    started = time.perf_counter()
    for step in range(config.steps):
        if not queue:
            queue = _batches(lengths, config.batch_size, rng)
        batch_ids = queue.pop()
        batch = pack([encoded[i][0] for i in batch_ids], [encoded[i][1] for i in batch_ids], pad, model.device)
        logp, _ = response_logprobs(model, batch)
        loss = -(logp * batch.response_mask).sum() / batch.response_mask.sum()
        for group in optimizer.param_groups:
            group["lr"] = schedule[step]
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if progress is not None:
            progress(step + 1, config.steps, sum(losses[-50:]) / len(losses[-50:]), time.perf_counter() - started)
    model.eval()
    return losses
