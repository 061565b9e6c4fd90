"""Environments the trainer can drive. `make_task_source(name)` resolves the experiment's `environment.name`: a
registered name (`household`, `env_server` for an AgentGym-style environment server, `alfworld`, `webshop`,
`search_qa`, `textworld`), or `package.module:Factory` for an environment of your own (any callable returning a
TaskSource, called with `environment.options`)."""

from __future__ import annotations

import importlib
from typing import Callable

from seed_trainer.envs.base import Environment, EnvironmentFailure, Observation, StepResult, Task, TaskSource

_REGISTRY: dict[str, Callable[..., TaskSource]] = {}


def register(name: str, factory: Callable[..., TaskSource]) -> None:
    _REGISTRY[name] = factory


def _household(**options) -> TaskSource:
    from seed_trainer.envs.household import HouseholdTasks  # imported on use: the package stays light

    return HouseholdTasks(**options)


def _env_server(**options) -> TaskSource:
    from seed_trainer.envs.env_server import EnvServerTasks

    return EnvServerTasks(**options)


def _alfworld(**options) -> TaskSource:
    from seed_trainer.envs.alfworld import AlfworldTasks

    return AlfworldTasks(**options)


def _webshop(**options) -> TaskSource:
    from seed_trainer.envs.webshop import WebshopTasks

    return WebshopTasks(**options)


def _search_qa(**options) -> TaskSource:
    from seed_trainer.envs.search_qa import SearchQATasks

    return SearchQATasks(**options)


def _textworld(**options) -> TaskSource:
    from seed_trainer.envs.textworld_games import TextWorldTasks

    return TextWorldTasks(**options)


register("household", _household)
register("env_server", _env_server)
register("alfworld", _alfworld)
register("webshop", _webshop)
register("search_qa", _search_qa)
register("textworld", _textworld)


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
    "Environment", "EnvironmentFailure", "Observation", "StepResult", "Task", "TaskSource", "make_task_source",
    "register", "task_source_factory",
]
