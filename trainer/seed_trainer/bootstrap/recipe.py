"""The bootstrap recipe's settings (`BootstrapConfig`, whose defaults build the committed household checkpoint) and the
summary of an evaluation, shared by the household and TextWorld recipes (tiny_policy.py, textworld.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

RECIPE_VERSION = 1


@dataclass
class BootstrapConfig:
    """The recipe. Defaults build the committed checkpoint (`trainer/seed_trainer/assets/household-tiny`)."""

    seed: int = 0
    episodes: int = 2400  # demonstration episodes (train split)
    history: int = 3  # H of the step prompts; experiments that use the checkpoint should match it
    max_steps: int = 24  # episode cut-off of the demonstrations
    skill_share: float = 0.35  # episodes whose prompts carry an analyzer skill (insert_skill format)
    bank_share: float = 0.10  # episodes whose prompts carry the static bank (SDAR prefix format)
    analysis_share: float = 0.5  # analysis examples per demonstration episode
    # Per-episode mistake rates, drawn per mistake kind (placing before transforming: its own, higher levels), and
    # the chance of repeating an invalid command. The plain demos make the strategic mistakes often, while a
    # skill-conditioned demo avoids those its skill warns against: so the policy follows a good skill better than it
    # acts alone, SEED's premise (13-14 points on dev, docs/research/tiny-policy.md). At the earlier, lower levels the
    # teacher was no better than the student. Repeats stay rare: a policy that loops on "Nothing happens." learns little.
    noise: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.4)
    transform_noise: tuple[float, ...] = (0.2, 0.4, 0.6)
    repeat_noise: tuple[float, ...] = (0.0, 0.0, 0.0, 0.2)
    # The tokenizer: "lines" splits only at line breaks, so BPE merges the environment's recurring phrases and each
    # token is up to `max_token_length` characters (0: no cap); "words" is Qwen2's split (never across words or
    # digits). Lines at 4 096 makes step prompts ~4.7x fewer tokens than words at 1 024 did, and the Stage-2 update
    # ~5x cheaper (bench/results/tokenizer_compression.json, stage2-household-lines.json). "lines" needs architecture
    # "qwen3" (see models.tiny.LINE_SPLIT).
    vocab_size: int = 4096
    tokenizer_split: str = "lines"
    max_token_length: int = 32
    architecture: str = "qwen3"
    hidden_size: int = 96
    layers: int = 4
    heads: int = 4
    kv_heads: int = 2
    intermediate_size: int = 256
    steps: int = 5200
    batch_size: int = 16
    lr: float = 2e-3
    min_lr_ratio: float = 0.05
    warmup: int = 60
    weight_decay: float = 0.01
    max_length: int = 1536  # analysis prompts are left-truncated to this
    eval_episodes: int = 60  # per validation split at the end (0: none)
    eval_temperature: float = 0.4
    threads: int = 0  # torch threads (0: torch's default)
    recipe: int = field(default=RECIPE_VERSION)


def evaluation_summary(split: str, skill: str | None, played) -> dict:
    """Success overall and per task type, valid and admissible action shares, mean length of evaluated episodes."""
    by_type: dict[str, list[bool]] = {}
    for episode in played:
        by_type.setdefault(episode.task.type, []).append(episode.won)
    steps = [s for e in played for s in e.steps]
    return {
        "split": split,
        "skill": skill,
        "episodes": len(played),
        "success": sum(e.won for e in played) / max(len(played), 1),
        "by_task_type": {k: sum(v) / len(v) for k, v in sorted(by_type.items())},
        "valid_action_ratio": sum(s.valid for s in steps) / max(len(steps), 1),
        "admissible_ratio": sum(s.action in s.admissible_actions for s in steps) / max(len(steps), 1),
        "mean_length": len(steps) / max(len(played), 1),
    }
