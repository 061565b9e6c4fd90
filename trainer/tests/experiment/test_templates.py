"""Every "SEED: New Experiment" template validates with the trainer's schema, names a registered environment, and
passes only options that environment's constructor accepts; the benchmark templates carry the paper's settings."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import yaml

from seed_trainer.envs.alfworld import AlfworldTasks
from seed_trainer.envs.env_server import DIALECT_OPTIONS, EnvServerTasks
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.search_qa import SearchQATasks
from seed_trainer.envs.textworld_games import TextWorldTasks
from seed_trainer.envs.webshop import WebshopTasks
from seed_trainer.experiment.loading import experiment_from_data

TEMPLATES = Path(__file__).resolve().parents[3] / "resources" / "templates"
SOURCES = {
    "household": HouseholdTasks,
    "alfworld": AlfworldTasks,
    "webshop": WebshopTasks,
    "search_qa": SearchQATasks,
    "env_server": EnvServerTasks,
    "textworld": TextWorldTasks,
}


def _load(path: Path):
    text = path.read_text(encoding="utf-8").replace("{{name}}", "my-run")
    assert text.startswith("# SEED template: "), f"{path.name}: no header line"
    return experiment_from_data(yaml.safe_load(text), path.parent, str(path))


@pytest.mark.parametrize("path", sorted(TEMPLATES.glob("*.seed.yaml")), ids=lambda p: p.name)
def test_every_template_validates_and_its_environment_options_fit(path):
    config = _load(path)
    source = SOURCES[config.environment.name]
    inspect.signature(source).bind(**config.environment.options)  # TypeError on an option it does not take
    if issubclass(source, EnvServerTasks):  # its **options are the dialect's fields
        known = set(inspect.signature(EnvServerTasks).parameters) | DIALECT_OPTIONS
        assert set(config.environment.options) <= known, set(config.environment.options) - known


@pytest.mark.parametrize(
    "name, max_steps, history, kl",
    [("alfworld-qwen2.5-3b", 30, 5, 0.01), ("webshop-qwen2.5-3b", 15, 2, 0.01), ("search-qwen2.5-3b", 4, 4, 0.001)],
)
def test_benchmark_templates_carry_the_paper_settings(name, max_steps, history, kl):
    config = _load(TEMPLATES / f"{name}.seed.yaml")
    assert (config.rollout.tasks_per_update, config.rollout.group_size, config.updates) == (16, 8, 150)
    assert (config.rl.lr, config.opd.lambda_, config.opd.beta, config.rl.kl_coef) == (1e-6, 0.01, 5.0, kl)
    assert (config.rollout.max_steps, config.rollout.history) == (max_steps, history)
    assert config.analyzer.kind == "external" and config.collect.rollouts_per_task == 8
    types = {"alfworld-qwen2.5-3b": 6, "webshop-qwen2.5-3b": 1, "search-qwen2.5-3b": 2}[name]
    assert config.collect.tasks_per_type * types == 180
    if name == "search-qwen2.5-3b":
        assert config.rl.invalid_penalty == 0.01 and config.environment.options["max_steps"] == 4


def test_the_household_tiny_template_builds_its_environment():
    config = _load(TEMPLATES / "household-tiny.seed.yaml")
    source = HouseholdTasks(**config.environment.options)
    assert len(source.sample("train", 2, seed=0)) == 2
