"""Validation of run records against the JSON Schemas in the repository's `schemas/` folder.

The folder is found from, in order: an explicit argument, the SEED_SCHEMAS_DIR environment variable, and the first
ancestor of this package holding `schemas/run.schema.json` (a source checkout or an editable install). Validation needs
the `jsonschema` package (installed with the trainer's `test` extra).
"""

from __future__ import annotations

import json
import os
import re
from functools import cached_property
from pathlib import Path
from typing import Any

from seed_trainer.runlog.errors import RunFormatError, format_field_path

SCHEMA_ID_PREFIX = "urn:seed-studio:schema:"
#: The record kinds of a run directory, each `schemas/<name>.schema.json` with `$id` urn:seed-studio:schema:<name>.
RECORD_SCHEMAS = (
    "run",
    "event",
    "metric",
    "trajectory",
    "trajectory-index",
    "skill",
    "eval",
    "control",
    "checkpoint-manifest",
    "lock",
    "onnx-export",
    "whatif",
    "tags",
    "premise",
)
ENV_VAR = "SEED_SCHEMAS_DIR"
_MARKER = "run.schema.json"


def find_schemas_dir(override: str | Path | None = None, *, start: str | Path | None = None) -> Path:
    """The folder holding the run-format schemas; raises FileNotFoundError saying where it looked.

    `start` is where the ancestor search begins (default: this package)."""
    tried: list[str] = []
    for candidate in (override, os.environ.get(ENV_VAR)):
        if candidate:
            path = Path(candidate)
            if (path / _MARKER).is_file():
                return path
            tried.append(str(path))
    origin = Path(start).resolve() if start is not None else Path(__file__).resolve().parent
    for ancestor in (origin, *origin.parents):
        path = ancestor / "schemas"
        if (path / _MARKER).is_file():
            return path
    tried.append(f"schemas/ in {origin} and its ancestors")
    raise FileNotFoundError(
        f"run-format schemas ({_MARKER}) not found; looked in: {'; '.join(tried)}. Set {ENV_VAR} to the schemas folder."
    )


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_field(error: Any) -> str:
    """The field path an error is about; for missing or unexpected keys, the key itself."""
    parts: list[str | int] = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        missing = [name for name in error.validator_value if name not in instance]
        parts += missing[:1]
    elif error.validator == "dependentRequired" and isinstance(instance, dict):
        for name, needs in error.validator_value.items():
            missing = [need for need in needs if need not in instance] if name in instance else []
            if missing:
                parts.append(missing[0])
                break
    elif error.validator == "additionalProperties" and isinstance(instance, dict):
        schema = error.schema
        known = set(schema.get("properties", {}))
        patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
        extra = [k for k in instance if k not in known and not any(p.search(k) for p in patterns)]
        parts += extra[:1]
    return format_field_path(parts)


class SchemaSet:
    """The run-format schemas loaded once; `validate(kind, record, file, line)` raises a located RunFormatError."""

    def __init__(self, schemas_dir: str | Path | None = None) -> None:
        self.dir = find_schemas_dir(schemas_dir)

    @cached_property
    def _validators(self) -> dict[str, Any]:
        try:
            import jsonschema
            from referencing import Registry, Resource
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise RuntimeError(
                "validating run files needs the jsonschema package: pip install 'seed-trainer[test]'"
            ) from exc
        documents: dict[str, dict[str, Any]] = {}
        for path in sorted(self.dir.glob("*.schema.json")):
            document = json.loads(path.read_text(encoding="utf-8"))
            schema_id = document.get("$id", "")
            if schema_id.startswith(SCHEMA_ID_PREFIX):
                documents[schema_id] = document
        registry = Registry().with_resources(
            (schema_id, Resource.from_contents(document)) for schema_id, document in documents.items()
        )
        validators: dict[str, Any] = {}
        for name in RECORD_SCHEMAS:
            document = documents.get(SCHEMA_ID_PREFIX + name)
            if document is None:
                raise FileNotFoundError(f"{self.dir}: no schema with $id {SCHEMA_ID_PREFIX}{name}")
            validators[name] = jsonschema.Draft202012Validator(document, registry=registry)
        return validators

    def validate(self, kind: str, record: Any, file: str, line: int | None = None, *, path: str = "") -> None:
        validator = self._validators[kind]
        errors = list(validator.iter_errors(record))
        if not errors:
            return
        import jsonschema

        best = jsonschema.exceptions.best_match(errors)
        raise RunFormatError(
            "schema", file, _short(best.message), line=line, field=_error_field(best) or None, path=path
        )
