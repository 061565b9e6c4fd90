"""The metric names are written once, in schemas/metric.schema.json (docs/run-format.md §6): the trainer writes only
names it lists, every name it lists (but those kept for older runs) is one the trainer writes; readers read a name it
does not list and checkers warn of it, while older names still read."""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import pytest

import seed_trainer
from seed_trainer.runlog import (
    MetricNames,
    RunEnvironment,
    RunFormatError,
    RunReader,
    RunWriter,
    SchemaSet,
    check_run,
    known_metric_names,
)
from seed_trainer.runlog.metric_names import UNKNOWN_METRIC, unknown_metrics
from seed_trainer.runlog.quantiles import QUANTILE_LEVELS
from seed_trainer.stages.train_records import LOSS_NAMES

SCHEMAS = SchemaSet()
NAMES = MetricNames.load()
PACKAGE = Path(seed_trainer.__file__).resolve().parent
FIXTURES = PACKAGE.parents[1] / "test" / "fixtures" / "runs"
_NAME = re.compile(r"^([a-z_]+)/([a-z0-9_]+)$")


def _calls(tree: ast.AST, function: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == function
    ]


def _constant(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _written_by_the_trainer() -> tuple[dict[str, str], set[str]]:
    """What the trainer's sources write, read from their syntax: metric names as string constants of a listed group
    (name → a module holding it); `time/<phase>` for each constant phase of train.py's `_phase`; `<family>/<level>`
    and `/count` for each constant family given to `token_quantiles`. Also the groups given to `metric_name(group,
    …)` (families of names, such as success/<task_type>)."""
    groups = {name.split("/")[0] for name in NAMES.names}
    names: dict[str, str] = {}
    families: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            text = _constant(node) if isinstance(node, ast.expr) else None
            match = _NAME.match(text or "")
            if match and match.group(1) in groups:
                names.setdefault(match.group(0), where)
        for call in _calls(tree, "_phase"):
            phase = _constant(call.args[2]) if len(call.args) > 2 else None
            if phase is not None:
                names.setdefault(f"time/{phase}", where)
        for call in _calls(tree, "token_quantiles"):
            family = _constant(call.args[1]) if len(call.args) > 1 else None
            if family is not None:
                for level in (*QUANTILE_LEVELS, "count"):
                    names.setdefault(f"{family}/{level}", where)
        for call in _calls(tree, "metric_name"):
            group = _constant(call.args[0]) if call.args else None
            if group is not None:
                families.add(group)
    return names, families


def test_the_trainer_writes_exactly_the_listed_names():
    written, families = _written_by_the_trainer()
    assert {"loss/pg", "optim/lr", "time/rollout", "gate/p95", "delta/count"} <= set(written)  # the scan sees them
    unknown = {name: where for name, where in written.items() if NAMES.find(name) is None}
    assert not unknown, f"written but not in schemas/metric.schema.json: {unknown}"
    kept = {name for name, entry in NAMES.names.items() if entry.deprecated}
    assert not kept & set(written), f"deprecated in the schema but still written: {kept & set(written)}"
    unwritten = set(NAMES.names) - set(written) - kept
    assert not unwritten, f"listed in schemas/metric.schema.json but written by no trainer module: {unwritten}"
    assert families == {family.name.split("/")[0] for family in NAMES.families}
    for family in NAMES.families:
        assert family.pattern is not None and family.pattern.search(f"{family.name.split('/')[0]}/pick_and_place")


def test_every_name_has_a_unit_and_a_chart_or_says_it_has_none():
    schema = json.loads((SCHEMAS.dir / "metric.schema.json").read_text(encoding="utf-8"))
    listed = [name for name in schema["properties"] if "/" in name]
    assert sorted(NAMES.names) == sorted(listed)
    for entry in [*NAMES.names.values(), *NAMES.families]:
        assert entry.unit in NAMES.units, entry
        assert entry.chart is None or entry.chart, entry
    assert (NAMES.find("optim/lr").chart, NAMES.find("optim/grad_norm").chart) == ("optim-lr", "optim-grad-norm")
    assert NAMES.find("success/pick_and_place") is NAMES.families[0]
    bad = json.loads(json.dumps(schema))
    bad["properties"]["loss/pg"]["x-unit"] = "furlongs"
    with pytest.raises(ValueError, match="loss/pg: x-unit 'furlongs' is not one of x-units"):
        MetricNames(bad)
    del bad["properties"]["loss/kl"]["x-chart"]
    bad["properties"]["loss/pg"]["x-unit"] = "loss"
    with pytest.raises(ValueError, match="loss/kl: x-chart must be a chart id or false"):
        MetricNames(bad)


def _writer(tmp_path: Path) -> RunWriter:
    experiment = tmp_path / "exp.seed.yaml"
    experiment.write_text("name: t\n", encoding="utf-8")
    environment = RunEnvironment(
        pid=os.getpid(),
        host="test",
        versions={"trainer": "0.1.0", "python": "3.11"},
        device={"kind": "cpu", "count": 0},
    )
    return RunWriter.create(
        tmp_path / "runs",
        name="t",
        stage="train",
        algorithm="seed",
        config={"name": "t"},
        experiment_path=experiment,
        environment=environment,
    )


def test_the_writer_refuses_a_name_the_schema_does_not_list(tmp_path):
    assert known_metric_names() is not None  # the tests run where the schemas are
    writer = _writer(tmp_path)  # validates nothing (as the trainer's stages): the name check is its own
    with pytest.raises(ValueError, match=re.escape(f"'loss/pg_loss' {UNKNOWN_METRIC}")):
        writer.metrics(1, "update", {"success/overall": 0.5, "loss/pg_loss": 0.1})
    with pytest.raises(ValueError, match="'ppo/grad_norm' is kept for older runs only"):
        writer.metrics(1, "update", {"ppo/grad_norm": 0.4})
    assert not writer.paths.metrics.exists() or writer.paths.metrics.read_bytes() == b""
    row = writer.metrics(1, "update", {"success/overall": 0.5, "success/pick_and_place": 1.0, "optim/lr": 1e-6})
    assert row["success/pick_and_place"] == 1.0
    writer.finish("completed")


def test_readers_read_an_unknown_metric_and_checkers_warn_once_at_its_first_line(tmp_path):
    """Warning, not error: a new metric name keeps the format version (docs/run-format.md §1), so a run of a newer
    trainer must still read here, its unknown name shown in no chart; the writer refuses one (above)."""
    row = {"step": 1, "time": "2026-03-01T12:00:00Z", "kind": "update", "success/overall": 1.0}
    SCHEMAS.validate("metric", {**row, "optim/weight_norm": 3.5}, "metrics.jsonl", 3)  # reads: no error
    with pytest.raises(RunFormatError) as info:  # the value is still checked
        SCHEMAS.validate("metric", {**row, "optim/weight_norm": "3.5"}, "metrics.jsonl", 3)
    assert (info.value.line, info.value.field) == (3, "optim/weight_norm")
    with pytest.raises(RunFormatError) as info:  # neither reserved nor namespaced: not a metric name at all
        SCHEMAS.validate("metric", {**row, "lr": 1e-6}, "metrics.jsonl", 3)
    assert (info.value.line, info.value.field) == (3, "lr")

    rows = [(1, {**row, "optim/weight_norm": 3.5}), (2, {**row, "step": 2, "x/y": 1.0, "optim/weight_norm": 3.0})]
    warnings = unknown_metrics(rows, NAMES)
    assert [(w.kind, w.file, w.line, w.field) for w in warnings] == [
        ("unknown_metric", "metrics.jsonl", 1, "optim/weight_norm"),
        ("unknown_metric", "metrics.jsonl", 2, "x/y"),
    ]
    assert warnings[0].message.startswith("metrics.jsonl:1: optim/weight_norm: not a metric name")

    report = check_run(FIXTURES / "unknown-metric", SCHEMAS)
    assert report.ok, report.errors
    [warning] = report.warnings
    assert (warning.kind, warning.line, warning.field) == ("unknown_metric", 2, "loss/pg_loss")
    assert RunReader(FIXTURES / "unknown-metric").metrics()[1]["loss/pg_loss"] == -0.0246

    # the first Stage-2 trainer wrote ppo/grad_norm: a run of it still reads, without a warning
    writer = _writer(tmp_path)
    writer.paths.metrics.write_text(json.dumps({**row, "ppo/grad_norm": 0.4}) + "\n", encoding="utf-8")
    assert RunReader(writer.run_dir).metrics()[0]["ppo/grad_norm"] == 0.4
    writer.finish("completed")
    assert check_run(writer.run_dir, SCHEMAS).warnings == []


def test_the_update_row_names_of_train_records_are_listed():
    """train_records.py renames ppo_update's metrics (LOSS_NAMES): the second writer of names, held to the list."""
    assert {name for name in LOSS_NAMES.values() if not NAMES.writable(name)} == set()
    assert "optim/grad_norm" in LOSS_NAMES.values()
