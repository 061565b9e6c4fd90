"""The verdict on an experiment file: the shared reading rules (experiment_yaml), then the JSON Schema exported from
experiment/config.py, with messages and locations worded as the editor words them (src/experiments/experimentSchema.ts), so
`python -m seed_trainer validate` and the editor's Problems view say the same thing."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from seed_trainer.experiment.config import MAX_INTEGER, experiment_json_schema
from seed_trainer.experiment.text import Located, Problem, ReadError, Span, Text
from seed_trainer.experiment.yaml_data import read_experiment_data

# At most this many problems are reported (sorted by position): enough to work with, and bounded work per file.
MAX_PROBLEMS = 100


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(experiment_json_schema())


def _format_value(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else json.dumps(value)


def _js_number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _plural(type_name: str) -> str:
    return "null" if type_name == "null" else f"{'an' if type_name[0] in 'aeiou' else 'a'} {type_name}"


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The known key nearest to a misspelt one (edit distance ≤ 2), for "did you mean"."""
    best, best_distance = None, 3
    for candidate in candidates:
        if abs(len(word) - len(candidate)) >= best_distance:  # the distance is at least that
            continue
        distance = _edit_distance(word, candidate)
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


def _edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        previous, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            current = row[j]
            row[j] = min(current + 1, row[j - 1] + 1, previous + (a[i - 1] != b[j - 1]))
            previous = current
    return row[len(b)]


class _SchemaNavigator:
    """What the schema says at an instance path (the editor's schemaAt / branches / alternatives)."""

    def __init__(self, schema: dict[str, Any]):
        self.schema = schema

    def resolve(self, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        for _ in range(20):
            ref = schema.get("$ref") if schema else None
            if not ref:
                break
            schema = self.schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        return schema

    def branches(self, schema: dict[str, Any] | None) -> list[dict[str, Any]]:
        resolved = self.resolve(schema)
        if not resolved:
            return []
        nested = [*resolved.get("anyOf", []), *resolved.get("oneOf", [])]
        return [resolved, *[b for branch in nested for b in self.branches(branch)]] if nested else [resolved]

    def at(self, path: tuple[str, ...]) -> dict[str, Any] | None:
        current: dict[str, Any] | None = self.schema
        for part in path:
            found = None
            for branch in self.branches(current):
                found = (
                    branch.get("items")
                    if part.isdigit() and branch.get("items")
                    else branch.get("properties", {}).get(part)
                )
                if found:
                    break
            if not found:
                return None
            current = found
        return current

    def properties(self, path: tuple[str, ...]) -> list[str]:
        keys: dict[str, None] = {}
        for branch in self.branches(self.at(path)):
            keys.update(dict.fromkeys(branch.get("properties", {})))
        return list(keys)

    def type_text(self, schema: dict[str, Any] | None) -> str:
        branches = self.branches(schema)
        parts: list[str] = []
        for branch in branches[1:] if len(branches) > 1 else branches:
            if "enum" in branch:
                parts.append(" | ".join(_format_value(v) for v in branch["enum"]))
            elif "const" in branch:
                parts.append(_format_value(branch["const"]))
            elif "properties" in branch or branch.get("type") == "object":
                parts.append("mapping")
            elif branch.get("type") == "array":
                parts.append(f"list of {self.type_text(branch['items']) if 'items' in branch else 'values'}")
            elif isinstance(branch.get("type"), str):
                bounds = [
                    f"{sign} {_js_number(branch[key])}"
                    for key, sign in (
                        ("minimum", "≥"),
                        ("exclusiveMinimum", ">"),
                        ("maximum", "≤"),
                        ("exclusiveMaximum", "<"),
                    )
                    if key in branch and abs(branch[key]) != MAX_INTEGER
                ]  # the blanket bound says nothing
                parts.append(" ".join([branch["type"], *bounds]))
        return " | ".join(dict.fromkeys(parts)) or "any"

    def alternatives(self, path: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for branch in self.branches(self.at(path))[1:]:
            if "const" in branch:
                out.append(_format_value(branch["const"]))
            elif "enum" in branch:
                out.extend(_format_value(v) for v in branch["enum"])
            elif branch.get("type") == "array" and "items" in branch:
                out.append(f"a list of {self.type_text(branch['items'])}s")
            elif "properties" in branch:
                out.append("a mapping")
            elif isinstance(branch.get("type"), str):
                out.append(_plural(branch["type"]))
        return list(dict.fromkeys(out))


_COMPARISONS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _leaf_errors(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """An anyOf error stands for itself unless a branch failed deeper inside the value; then those errors do."""
    if error.validator in ("anyOf", "oneOf"):
        depth = len(error.absolute_path)
        deeper = [e for e in error.context or [] if len(e.absolute_path) > depth]
        if deeper:
            return [leaf for e in deeper for leaf in _leaf_errors(e)]
    return [error]


def _rule_of(error: jsonschema.ValidationError, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The cross-field rule (an `allOf` entry) whose `then` this error comes from."""
    path = list(error.absolute_schema_path)
    if len(path) >= 3 and path[0] == "allOf" and path[2] == "then":
        return schema["allOf"][path[1]]
    return None


def _rule_field(rule: dict[str, Any]) -> tuple[str, ...]:
    path: list[str] = []
    schema = rule["if"]
    while "properties" in schema:
        name = next(iter(schema["properties"]))
        path.append(name)
        schema = schema["properties"][name]
    return tuple(path)


class _Locator:
    def __init__(self, located: Located, text: Text):
        self.located, self.text = located, text

    def _deepest(self, path: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
        depth = 0
        for i in range(1, len(path) + 1):
            if path[:i] in self.located.keys or path[:i] in self.located.values:
                depth = i
            else:
                break
        return depth, path[:depth]

    def span(self, path: tuple[str, ...], target: str, field: tuple[str, ...]) -> Span:
        keys, values = self.located.keys, self.located.values
        depth, prefix = self._deepest(path)
        found: Span | None = None
        if target == "key" and depth == len(path):
            found = keys.get(field)
        elif target == "parentKey":
            found = keys.get(path) if depth == len(path) and path else None
        elif depth == len(path):
            value = values.get(path)
            found = value if value and value.start != value.end else keys.get(path) or value
        else:
            found = keys.get(prefix) or values.get(prefix) if prefix else None
        return found or self.text.first_line()


def schema_problems(data: Any, located: Located, text: Text) -> list[Problem]:
    """Every schema problem, first by position, at most MAX_PROBLEMS. Messages are made for those only: a "did you
    mean" costs an edit distance per known key, too much for tens of thousands of unknown keys."""
    schema = experiment_json_schema()
    nav = _SchemaNavigator(schema)
    locator = _Locator(located, text)
    found: list[tuple[Span, tuple[str, ...], Any]] = []  # (where, field, message or a function that makes it)
    seen: set[tuple] = set()
    rules_reported: set[int] = set()

    def add(path: tuple[str, ...], target: str, field: tuple[str, ...], message: Any) -> None:
        key = (field, message if isinstance(message, str) else "unknown")
        if key not in seen:
            seen.add(key)
            found.append((locator.span(path, target, field), field, message))

    def unknown(path: tuple[str, ...], extra: str):
        def message() -> str:
            suggestion = closest(extra, nav.properties(path))
            return f"is not a known field{f' (did you mean `{suggestion}`?)' if suggestion else ''}"

        return message

    for top in _validator().iter_errors(data):
        for error in _leaf_errors(top):
            path = tuple(str(p) for p in error.absolute_path)
            rule = _rule_of(error, schema)
            if rule is not None:
                index = schema["allOf"].index(rule)
                if index not in rules_reported:
                    rules_reported.add(index)
                    field = _rule_field(rule)
                    add(field, "value", field, rule["description"])
                continue
            keyword = error.validator
            if keyword == "additionalProperties":
                allowed = error.schema.get("properties", {})
                for extra in (k for k in error.instance if k not in allowed):
                    add(path, "key", (*path, extra), unknown(path, extra))
            elif keyword == "required":
                for missing in (k for k in error.validator_value if k not in error.instance):
                    add(path, "parentKey", (*path, missing), "is required")
            elif keyword == "enum":
                allowed = [v for v in error.validator_value if isinstance(v, str)]
                suggestion = closest(error.instance, allowed) if isinstance(error.instance, str) else None
                listed = ", ".join(_format_value(v) for v in error.validator_value)
                add(
                    path,
                    "value",
                    path,
                    f"must be one of {listed}{f' (did you mean `{suggestion}`?)' if suggestion else ''}",
                )
            elif keyword == "const":
                add(path, "value", path, f"must be {_format_value(error.validator_value)}")
            elif keyword in ("anyOf", "oneOf"):
                add(path, "value", path, f"must be {' or '.join(nav.alternatives(path)) or 'a different value'}")
            elif keyword == "type":
                types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
                add(path, "value", path, f"must be {' or '.join(_plural(t) for t in types)}")
            elif keyword in ("minimum", "maximum") and abs(error.validator_value) == MAX_INTEGER:
                # the bound every integer has: say what it is, not 9007199254740991 (the editor says the same)
                add(path, "value", path, "is out of range: integers here must lie within ±2^53 − 1 (about ±9.0e15)")
            elif keyword in _COMPARISONS:
                add(path, "value", path, f"must be {_COMPARISONS[keyword]} {_js_number(error.validator_value)}")
            elif keyword == "minLength":
                add(path, "value", path, f"must NOT have fewer than {error.validator_value} characters")
            else:
                add(path, "value", path, error.message)
    found.sort(key=lambda item: item[0].start)
    problems = []
    for span, field, message in found[:MAX_PROBLEMS]:
        text_of = message if isinstance(message, str) else message()
        field_text = ".".join(field)
        problems.append(Problem(f"{field_text + ': ' if field_text else ''}{text_of}", span, field_text, "schema"))
    return problems


def unlocated_schema_problems(data: dict[str, Any]) -> list[str]:
    """Schema messages for data that has no text (a run.json's resolved config)."""
    return [p.message for p in schema_problems(data, Located(), Text(""))]


def check_experiment_bytes(data: bytes) -> tuple[Any, list[Problem]]:
    """(the plain data or None, problems sorted by position); no problems means the trainer accepts the file."""
    try:
        value, located, text = read_experiment_data(data)
    except ReadError as exc:
        return None, [exc.problem]
    if not isinstance(value, dict):
        span = located.values.get(()) or text.first_line()
        if span.start == span.end:
            span = text.first_line()
        return None, [
            Problem("the experiment must be a YAML mapping of keys (name, model, …)", text.trimmed(span), "", "schema")
        ]
    problems = [replace(p, span=text.trimmed(p.span)) for p in schema_problems(value, located, text)]
    return (None if problems else value), problems


def problem_line(file: str | Path, problem: Problem) -> str:
    """`FILE:LINE:COLUMN: message` (1-based), the form the editor's "SEED: Train" refusal quotes."""
    line, column = problem.span.start
    return f"{file}:{line + 1}:{column + 1}: {problem.message}"


def check_experiment_file(path: str | Path) -> tuple[Any, list[Problem]]:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return None, [Problem(f"cannot read the file: {exc.strerror or exc}", Span((0, 0), (0, 0)), "", "limit")]
    return check_experiment_bytes(data)
