"""The environment catalog (envs/catalog.py) the editor's completion and hover read through the experiment schema
agrees with the environments themselves: the registry, each TaskSource's constructor (option names and defaults),
the extras of pyproject.toml, and the exported schema."""

import importlib
import inspect
import sys

import jsonschema
import pytest

from seed_trainer.doctor import EXTRAS
from seed_trainer.envs import _REGISTRY, make_task_source
from seed_trainer.envs.catalog import ENVIRONMENTS
from seed_trainer.envs.env_server import DIALECT_OPTIONS, EnvServerTasks
from seed_trainer.experiment.config import experiment_json_schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the CI runs 3.11+
    tomllib = None

# Constructor parameters that are hooks for tests, not experiment options; WebShop fixes the dialect and the agent
# format of the env_server client it extends.
NOT_OPTIONS = {"game_factory"}
FIXED = {"webshop": {"preset", "agent"}}


def _source_class(entry):
    module, _, name = entry.source.partition(":")
    return getattr(importlib.import_module(module), name)


def _parameters(cls) -> dict[str, inspect.Parameter]:
    """Named parameters an experiment can pass, following `**options` handed on to EnvServerTasks."""
    found = {}
    for klass in [cls, *(base for base in cls.__mro__[1:] if base is EnvServerTasks)]:
        for name, parameter in inspect.signature(klass.__init__).parameters.items():
            if name != "self" and parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
                found.setdefault(name, parameter)
    return found


def test_every_catalog_entry_is_registered_and_nothing_else():
    catalog = {entry.name for entry in ENVIRONMENTS}
    assert catalog <= set(_REGISTRY)
    for name in set(_REGISTRY) - catalog:  # environments the tests register for themselves (conftest.py, …)
        assert not _REGISTRY[name].__module__.startswith("seed_trainer"), name


@pytest.mark.parametrize("entry", ENVIRONMENTS, ids=lambda e: e.name)
def test_options_are_the_constructors_parameters_with_their_defaults(entry):
    cls = _source_class(entry)
    parameters = _parameters(cls)
    accepted = set(parameters) | (DIALECT_OPTIONS if issubclass(cls, EnvServerTasks) else set())
    named = set(parameters) - NOT_OPTIONS - FIXED.get(entry.name, set())
    assert set(entry.options) <= accepted - FIXED.get(entry.name, set()), (
        f"{entry.name}: options the constructor does not take"
    )
    assert named <= set(entry.options), f"{entry.name}: constructor parameters missing from the catalog"
    for name, fragment in entry.options.items():
        jsonschema.Draft202012Validator.check_schema(fragment)
        assert fragment.get("description"), f"{entry.name}.{name} has no description (it is the hover text)"
        parameter = parameters.get(name)
        if (
            parameter is not None
            and parameter.default not in (inspect.Parameter.empty, None)
            and not isinstance(parameter.default, dict)
        ):
            assert fragment.get("default") == parameter.default, (
                f"{entry.name}.{name}: default differs from the constructor's"
            )


@pytest.mark.parametrize("entry", [e for e in ENVIRONMENTS if e.extra], ids=lambda e: e.name)
def test_an_extra_named_by_an_environment_provides_its_module(entry):
    assert entry.extra in EXTRAS
    assert entry.module in EXTRAS[entry.extra][1]
    assert entry.install_command() == f"pip install 'seed-trainer[{entry.extra}]'"


def test_the_experiment_schema_carries_the_catalog():
    name = experiment_json_schema()["$defs"]["EnvironmentConfig"]["properties"]["name"]
    catalog = name["x-environments"]
    assert [item["name"] for item in catalog] == [entry.name for entry in ENVIRONMENTS]  # a list: the order is kept
    catalog = {item["name"]: item for item in catalog}
    assert catalog["textworld"]["install"] == "pip install 'seed-trainer[textworld]'"
    assert catalog["alfworld"]["data"]["variable"] == "ALFWORLD_DATA"
    assert "extra" not in catalog["household"]
    for env in catalog:  # the description lists every built-in environment
        assert f"`{env}`" in name["description"]


def test_the_household_is_built_from_the_catalogs_source():
    source = make_task_source(
        "household", max_steps=next(e for e in ENVIRONMENTS if e.name == "household").options["max_steps"]["default"]
    )
    assert type(source).__name__ == "HouseholdTasks"
    with pytest.raises(ValueError, match="unknown option"):
        make_task_source("household", max_step=3)
