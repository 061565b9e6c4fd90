"""Each setting vocabulary is written once: the OPD estimators (algo/estimator_table.py) and the skill controls
(algo/skill_controls.py). The experiment schema's enum, description, extension and rules come from the tables; what
is still written by hand elsewhere (the run-record schemas, the docs' tables) must name the same values; no code of
the trainer or the benchmarks spells out a list of them again. The viewer's copy is compared with the schema's
`x-estimators` in test/unit/runs/opdEstimator.test.ts."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import get_args

import pytest

from seed_trainer.algo.estimator_table import (
    ESTIMATORS,
    OPD_ESTIMATORS,
    estimator_row,
    schema_extension,
)
from seed_trainer.algo.skill_controls import SKILL_CONTROL_TABLE, SKILL_CONTROLS, Written, teacher_skills
from seed_trainer.experiment.config import ExperimentError, OpdConfig, experiment_json_schema
from seed_trainer.experiment.loading import experiment_from_data

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = REPO / "schemas"
TRAINER_DOC = (REPO / "docs" / "trainer.md").read_text(encoding="utf-8")


def _opd_field(name: str) -> dict:
    schema = experiment_json_schema()
    return schema["$defs"]["OpdConfig"]["properties"][name]


def _rules(field: str) -> dict[str, dict]:
    """The schema's `allOf` rules whose `if` is `<field> = value` (a dotted path), by value."""
    out = {}
    for rule in experiment_json_schema()["allOf"]:
        condition = rule["if"]
        for part in field.split("."):
            condition = condition.get("properties", {}).get(part, {})
        if "const" in condition:
            out[condition["const"]] = rule
    return out


def _property_descriptions(stem: str, name: str) -> list[str]:
    """The descriptions of every property `name` in schemas/<stem>.schema.json (a hand-written one)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict) and name in node["properties"]:
                found.append(node["properties"][name]["description"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads((SCHEMAS / f"{stem}.schema.json").read_text(encoding="utf-8")))
    return found


def _section(title: str) -> str:
    """The text of docs/trainer.md's `## title` section."""
    start = TRAINER_DOC.index(f"\n## {title}\n")
    end = TRAINER_DOC.find("\n## ", start + 1)
    return TRAINER_DOC[start:end]


@pytest.mark.parametrize(
    ("field", "table"),
    [("estimator", OPD_ESTIMATORS), ("skill_control", SKILL_CONTROL_TABLE)],
    ids=["estimator", "skill_control"],
)
def test_the_table_the_literal_and_the_committed_schema_name_the_same_values(field, table):
    # a name added to the table only, to the config's Literal only or to schemas/experiment.schema.json only fails here
    literal = get_args(OpdConfig.model_fields[field].annotation)
    committed = json.loads((SCHEMAS / "experiment.schema.json").read_text(encoding="utf-8"))
    assert list(table) == list(literal) == committed["$defs"]["OpdConfig"]["properties"][field]["enum"]


# --- the estimators ------------------------------------------------------------------------------------------------


def test_the_estimator_table_rows_hold_together():
    # by hand: which estimators subtract, keep and need what
    assert ESTIMATORS == ("sample", "centred", "baseline", "expected")
    assert [OPD_ESTIMATORS[n].subtracts for n in ESTIMATORS] == ["nothing", "centre", "baseline", "baseline"]
    assert [OPD_ESTIMATORS[n].keeps for n in ESTIMATORS] == ["nothing", "nothing", "baseline", "soft_targets"]
    assert [n for n in ESTIMATORS if estimator_row(n).needs_distributions] == ["baseline", "expected"]
    with pytest.raises(
        ValueError, match="unknown OPD estimator 'median' \\(known: sample, centred, baseline, expected\\)"
    ):
        estimator_row("median")


def test_the_schema_takes_the_estimators_from_the_table():
    field = _opd_field("estimator")
    assert field["enum"] == list(OPD_ESTIMATORS)
    assert field["x-estimators"] == schema_extension()
    assert [row["name"] for row in field["x-estimators"]] == list(OPD_ESTIMATORS)
    for name, row in OPD_ESTIMATORS.items():
        assert f"`{name}`: {row.summary}." in field["description"]
    assert (
        "`baseline` and `expected` have the paper's expectation only for skills fixed before sampling"
        in (field["description"])
    )
    # a name outside the table is refused with the schema's message, which lists the table
    with pytest.raises(
        ExperimentError, match='opd.estimator: must be one of "sample", "centred", "baseline", "expected"'
    ):
        experiment_from_data({"name": "x", "model": {"path": "m"}, "opd": {"estimator": "median"}}, ".", "x.yaml")


def test_the_estimator_rules_are_derived_from_the_table():
    rules = _rules("opd.estimator")
    assert set(rules) == {"expected"}  # the estimators that keep soft targets need `replicate`
    assert rules["expected"]["then"] == {
        "properties": {"distributed": {"properties": {"strategy": {"const": "replicate"}}}}
    }
    grpo_opsd = _rules("algorithm")["grpo_opsd"]
    assert grpo_opsd["then"]["properties"]["opd"]["properties"]["estimator"]["enum"] == ["sample", "expected"]
    assert grpo_opsd["description"].startswith(
        "`grpo_opsd` has g = ½ on every token: `centred` and `baseline` subtract all of it"
    )


def test_the_run_record_schemas_and_the_docs_name_every_estimator_that_subtracts():
    # trajectory.schema.json and whatif.schema.json are written by hand: their `gate_baseline` says what each
    # estimator that subtracts from g subtracts
    for stem in ("trajectory", "whatif"):
        (description,) = _property_descriptions(stem, "gate_baseline")
        for name, row in OPD_ESTIMATORS.items():
            if row.subtracts != "nothing":
                assert re.search(rf"\b{name}\b", description), f"{stem}.schema.json gate_baseline: {name}"
    # docs/trainer.md's table has one row per estimator, in the table's order
    rows = re.findall(r"^\| `(\w+)`", _section("OPD estimator"), flags=re.MULTILINE)
    assert rows == list(OPD_ESTIMATORS)


# --- the skill controls --------------------------------------------------------------------------------------------


def test_the_schema_takes_the_skill_controls_from_the_table():
    field = _opd_field("skill_control")
    assert field["enum"] == list(SKILL_CONTROL_TABLE) == ["none", "other_task", "unrelated"]
    for name, control in SKILL_CONTROL_TABLE.items():
        assert f"`{name}` ({control.summary})" in field["description"]
    assert "(a control, not SEED; seed, grpo_opsd, opsd only)" in field["description"]
    # one rule per control proper: it needs an algorithm that writes its own skills
    rules = _rules("opd.skill_control")
    assert set(rules) == {"other_task", "unrelated"}
    for rule in rules.values():
        assert rule["then"]["properties"]["algorithm"]["enum"] == ["seed", "grpo_opsd", "opsd"]


@pytest.mark.parametrize("control", SKILL_CONTROLS)
def test_every_skill_control_of_the_table_has_a_teacher(control):
    written = [Written(0, 0, True, "use the key"), Written(1, 0, True, "open the box")]
    skills = teacher_skills(written, control)
    assert len(skills) == 2 and all(s is not None and s.text for s in skills)


def test_the_event_schema_and_the_docs_name_every_control():
    # event.schema.json is written by hand: the `skill_control` event's `control` lists the controls proper
    (control,) = _property_descriptions("event", "control")
    listed = re.search(r"\(([^)]*)\)\.$", control).group(1).split(", ")
    assert listed == [name for name, c in SKILL_CONTROL_TABLE.items() if c.replaces_own_skill]
    bullets = re.findall(r"^- `(\w+)`:", _section("Skill controls"), flags=re.MULTILINE)
    assert bullets == listed


# --- no second list -------------------------------------------------------------------------------------------------


def _literal_lists(path: Path):
    """(line, names) of every tuple, list or set display of two or more string constants in a Python file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(names) >= 2:
                yield node.lineno, names


@pytest.mark.parametrize("vocabulary", [ESTIMATORS, SKILL_CONTROLS], ids=["estimators", "skill_controls"])
def test_no_code_writes_a_vocabulary_out_again(vocabulary):
    # a list of two or more of the names outside the table is a second list to keep in step: read the table instead
    tables = {"estimator_table.py", "skill_controls.py"}
    found = []
    for root in (REPO / "trainer" / "seed_trainer", REPO / "bench"):
        for path in sorted(root.rglob("*.py")):
            if path.name in tables:
                continue
            for line, names in _literal_lists(path):
                if len(set(names) & set(vocabulary)) >= 2:
                    found.append(f"{path.relative_to(REPO)}:{line}: {names}")
    assert not found, found
