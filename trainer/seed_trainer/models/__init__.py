"""Models the trainer loads: the built-in ones (`builtin:NAME`), and what makes a folder a model at all."""

from __future__ import annotations

from pathlib import Path

# What `from_pretrained` needs in a folder: a Hugging Face model's config, or a PEFT adapter's.
MODEL_FILES = ("config.json", "adapter_config.json")


def holds_model(folder: Path) -> bool:
    """Whether `folder` holds a Hugging Face model or a PEFT adapter (one of MODEL_FILES)."""
    return any((folder / name).is_file() for name in MODEL_FILES)
