"""Reading an experiment into an `ExperimentConfig`: from a file, with located errors under the rules the editor shares
(check.py), or from already-parsed data such as a run.json's resolved config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from seed_trainer.experiment.check import check_experiment_file, problem_line, unlocated_schema_problems
from seed_trainer.experiment.config import ExperimentConfig, ExperimentError


def load_experiment(path: str | Path) -> ExperimentConfig:
    """Read and validate an experiment file under the rules the editor shares (seed_trainer.experiment_check);
    errors are `FILE:LINE:COLUMN: field: message` lines."""
    path = Path(path)
    data, problems = check_experiment_file(path)
    if problems:
        raise ExperimentError("\n".join(problem_line(path, problem) for problem in problems))
    return _model(data, path.resolve().parent, str(path))


def experiment_from_data(data: Any, base_dir: str | Path, where: str) -> ExperimentConfig:
    """Validate an already-parsed experiment (e.g. the resolved `config` of a run.json) against the same schema;
    relative paths in it are relative to `base_dir`. Errors start with `where` and name the dotted field path."""
    if not isinstance(data, dict):
        raise ExperimentError(f"{where}: the experiment must be a YAML mapping, got {type(data).__name__}")
    problems = unlocated_schema_problems(data)
    if problems:
        raise ExperimentError(f"{where}: {'; '.join(problems)}")
    return _model(data, base_dir, where)


def _model(data: dict[str, Any], base_dir: str | Path, where: str) -> ExperimentConfig:
    try:
        config = ExperimentConfig.model_validate(data)
    except ValidationError as exc:  # the schema passed, so this is a disagreement between schema and model
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}" for err in exc.errors()
        )
        raise ExperimentError(f"{where}: {problems}") from exc
    config._base_dir = Path(base_dir)
    return config
