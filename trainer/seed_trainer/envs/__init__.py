"""Environments the trainer can drive. `make_task_source(name)` resolves the experiment's `environment.name`: a
registered name (`household`, `env_server` for an AgentGym-style environment server, `alfworld`, `webshop`,
`search_qa`, `textworld`), or `package.module:Factory` for an environment of your own (any callable returning a
TaskSource, called with `environment.options`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from seed_trainer.envs.base import Environment, EnvironmentFailure, Observation, StepResult, Task, TaskSource
from seed_trainer.envs.catalog import ENVIRONMENTS

_REGISTRY: dict[str, Callable[..., TaskSource]] = {}


def register(name: str, factory: Callable[..., TaskSource]) -> None:
    _REGISTRY[name] = factory


def _lazy(source: str) -> Callable[..., TaskSource]:
    """A factory that imports `module:Class` on its first call: the package stays light."""

    def factory(**options) -> TaskSource:
        module_name, _, attribute = source.partition(":")
        return getattr(importlib.import_module(module_name), attribute)(**options)

    return factory


for _entry in ENVIRONMENTS:  # the built-in environments, from the catalog the editor also reads
    register(_entry.name, _lazy(_entry.source))


def task_source_factory(name: str) -> Callable[..., TaskSource]:
    """The factory `environment.name` names (imported, not called); ValueError saying why when there is none."""
    if ":" in name:
        module_name, _, attribute = name.partition(":")
        try:
            return getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"environment.name: cannot load {name!r}: {exc}") from exc
    if name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise ValueError(f"environment.name: unknown environment {name!r} (known: {known})")
    return _REGISTRY[name]


def make_task_source(name: str, **options) -> TaskSource:
    return task_source_factory(name)(**options)


__all__ = [
    "Environment",
    "EnvironmentFailure",
    "Observation",
    "StepResult",
    "Task",
    "TaskSource",
    "make_task_source",
    "register",
    "task_source_factory",
]
