"""Facts about the trainer process that run.json records: pid, host, versions, device, git commit."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from seed_trainer import __version__


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _git(directory: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), *args], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def detect_device() -> dict[str, Any]:
    """The device torch would use by default: the first CUDA device, else the CPU."""
    try:
        import torch

        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            return {
                "kind": "cuda",
                "name": props.name,
                "count": torch.cuda.device_count(),
                "memory_bytes": int(props.total_memory),
            }
    except Exception:
        pass
    return {"kind": "cpu", "name": _cpu_model() or platform.processor() or platform.machine() or "cpu", "count": 0}


def _cpu_model() -> str | None:
    """The CPU's model name on Linux (/proc/cpuinfo): runs repeat bit for bit on one CPU model, not across models."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip() or None
    except OSError:
        return None
    return None


@dataclass
class RunEnvironment:
    """Facts about the trainer process recorded in run.json; `detect()` fills them in, tests pass fixed ones."""

    pid: int
    host: str
    versions: dict[str, str | None]
    device: dict[str, Any]
    git_commit: str | None = None
    git_dirty: bool | None = None

    @classmethod
    def detect(cls, *, repo_dir: str | Path | None = None, device: Mapping[str, Any] | None = None) -> RunEnvironment:
        commit = dirty = None
        if repo_dir is not None:
            commit = _git(Path(repo_dir), "rev-parse", "HEAD")
            if commit:
                status = _git(Path(repo_dir), "status", "--porcelain", "--untracked-files=no")
                dirty = bool(status) if status is not None else None
        return cls(
            pid=os.getpid(),
            host=socket.gethostname(),
            versions={
                "trainer": __version__,
                "python": platform.python_version(),
                "torch": _package_version("torch"),
                "transformers": _package_version("transformers"),
            },
            device=dict(device) if device is not None else detect_device(),
            git_commit=commit or None,
            git_dirty=dirty,
        )
