"""Tokens per household prompt and response for the tiny policy's tokenizer recipe against larger vocabularies.

The lever weighed for a faster CPU loop: fewer tokens for the same text. Qwen2's pre-tokenizer (the earlier recipe)
splits at every word and digit, so BPE cannot merge across words and a larger vocabulary barely helps; a byte-level BPE
split only at line breaks can merge the environment's recurring phrases. Trains each tokenizer on the bootstrap's own
corpus (400 demonstration episodes) and counts tokens on held-out examples (another seed). Prints JSON.

    python bench/learning/tokenizer_compression.py > bench/results/tokenizer_compression.json
"""

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "trainer"))

from seed_trainer.bootstrap.examples import make_examples
from seed_trainer.bootstrap.recipe import BootstrapConfig
from seed_trainer.bootstrap.training import tokenizer_corpus
from seed_trainer.models.tiny import TOKENIZER_SPLITS, build_tokenizer


def counts(encode, examples) -> dict:
    out = {}
    for kind in ("step", "analysis"):
        chosen = [e for e in examples if e.kind == kind]
        out[kind] = {
            "prompt": round(statistics.mean(len(encode(e.prompt)) for e in chosen), 1),
            "response": round(statistics.mean(len(encode(e.response)) for e in chosen), 1),
            "examples": len(chosen),
        }
    return out


def main() -> None:
    corpus = tokenizer_corpus(make_examples(BootstrapConfig(episodes=400)), random.Random(0))
    held_out = make_examples(BootstrapConfig(episodes=60, seed=7))
    report = {"benchmark": "tokenizer_compression", "corpus_episodes": 400, "held_out_episodes": 60, "tokenizers": {}}
    for name, split, vocabs, cap in (
        ("qwen2_split", TOKENIZER_SPLITS["words"], (1024, 4096), None),
        ("line_split", TOKENIZER_SPLITS["lines"], (1024, 2048, 4096, 8192), 32),
    ):
        for vocab in vocabs:
            tokenizer = build_tokenizer(corpus, vocab_size=vocab, split=split, max_token_length=cap)
            report["tokenizers"][f"{name}_v{vocab}"] = counts(
                lambda s, t=tokenizer: t.encode(s, add_special_tokens=False), held_out
            )
    base = report["tokenizers"]["qwen2_split_v1024"]
    report["ratio_to_qwen2_split_v1024"] = {
        name: {kind: round(base[kind]["prompt"] / c[kind]["prompt"], 2) for kind in c}
        for name, c in report["tokenizers"].items()
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    # No options; parsed so that --help prints this description instead of starting the measurement.
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
