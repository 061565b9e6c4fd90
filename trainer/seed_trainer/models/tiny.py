"""A tiny Hugging Face policy built locally: a byte-level BPE tokenizer trained with `tokenizers` and a small
Qwen2- or Qwen3-architecture model created from a config.

Tests use it to run the real code paths (chat template, generation, LoRA, log-probs) without a model hub; the embedded
default trains one of these. The result is an ordinary HF model directory, loaded like any Qwen checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
from transformers import (
    PreTrainedModel,
    PreTrainedTokenizerFast,
    Qwen2Config,
    Qwen2ForCausalLM,
    Qwen3Config,
    Qwen3ForCausalLM,
)

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

# Qwen2's pre-tokenization (digits one by one, spaces not glued to digits) and NFC normalizer. A saved directory whose
# config says `qwen2` is loaded by AutoTokenizer as a Qwen2Tokenizer, which rebuilds exactly these from the vocabulary
# and merges; training with the same ones keeps the tokens of a text identical before and after save/load.
QWEN2_SPLIT = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""

# A split at line breaks only: BPE may then merge an environment's recurring phrases ("go to cabinet 1</action>")
# into one token, so the same text is several times fewer tokens. AutoTokenizer rebuilds Qwen2's pre-tokenizer for a
# `qwen2` directory whatever tokenizer.json says, so a tokenizer with this split must be saved with another
# architecture (`build_model(architecture="qwen3")`, whose directories load tokenizer.json as saved).
LINE_SPLIT = r"\n"

# The bootstrap's names for the two splits, and the architectures `build_model` makes
TOKENIZER_SPLITS = {"words": QWEN2_SPLIT, "lines": LINE_SPLIT}
ARCHITECTURES = {"qwen2": (Qwen2Config, Qwen2ForCausalLM), "qwen3": (Qwen3Config, Qwen3ForCausalLM)}

# The Qwen2.5 chat template's shape (system/user/assistant turns between <|im_start|> and <|im_end|>), so prompts of
# the tiny policy are laid out exactly like those of a real Qwen model.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def build_tokenizer(
    corpus: Iterable[str], vocab_size: int = 1024, split: str = QWEN2_SPLIT, max_token_length: int | None = None
) -> PreTrainedTokenizerFast:
    """Trains a byte-level BPE (lossless round trip of any NFC text) on `corpus` and wraps it as an HF tokenizer.

    `split` is the pre-tokenizer's regex: BPE never merges across its pieces (Qwen2's, the default, splits at every
    word and digit; a split at line breaks lets merges span phrases, `max_token_length` then caps them)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(split), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        max_token_length=max_token_length,
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer=trainer)
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def build_model(
    tokenizer: PreTrainedTokenizerFast,
    hidden_size: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    intermediate_size: int = 128,
    max_positions: int = 4096,
    seed: int = 0,
    model_vocab_size: int | None = None,
    architecture: str = "qwen2",
) -> PreTrainedModel:
    """A randomly initialised Qwen2 (or Qwen3: the same decoder plus per-head q/k norms) for `tokenizer`.
    `model_vocab_size` pads the embedding and output layer to a real model's vocabulary (151 936 for Qwen2.5), so
    benchmarks pay the real output-layer cost with a small tokenizer."""
    import torch

    if architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {sorted(ARCHITECTURES)}, not {architecture!r}")
    config_class, model_class = ARCHITECTURES[architecture]
    torch.manual_seed(seed)
    config = config_class(
        vocab_size=max(len(tokenizer), model_vocab_size or 0),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        # Qwen3's config defaults head_dim to 128 whatever the width; Qwen2 derives it from the width
        **({"head_dim": hidden_size // heads} if architecture == "qwen3" else {}),
        intermediate_size=intermediate_size,
        max_position_embeddings=max_positions,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return model_class(config)


def check_saved_tokenizer(directory: str | Path, trained: PreTrainedTokenizerFast, texts: Iterable[str]) -> None:
    """Raises ValueError when the tokenizer AutoTokenizer loads from `directory` encodes any of `texts` otherwise
    than `trained` did: a policy trained on one tokenization and run on another would be silently broken."""
    from transformers import AutoTokenizer

    loaded = AutoTokenizer.from_pretrained(directory)
    for n, text in enumerate(texts):
        if loaded.encode(text, add_special_tokens=False) != trained.encode(text, add_special_tokens=False):
            raise ValueError(
                f"{directory}: AutoTokenizer loads {type(loaded).__name__}, which encodes text {n} ({text[:60]!r}...) "
                "otherwise than the trained tokenizer (a `qwen2` directory always gets Qwen2's pre-tokenizer: save a "
                "tokenizer with another split with architecture 'qwen3')"
            )


def save_tiny_policy(directory: str | Path, corpus: Iterable[str], vocab_size: int = 1024, **model_kwargs) -> Path:
    directory = Path(directory)
    tokenizer = build_tokenizer(corpus, vocab_size)
    model = build_model(tokenizer, **model_kwargs)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
