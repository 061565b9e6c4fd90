"""Reading an experiment file's bytes into plain data, with the limits and the YAML subset both halves share.

The editor (src/experiments/core/experimentYaml.ts) applies the same rules in the same order, so both give one
verdict: size, then UTF-8 (first bad byte), then control characters and tabs (`experiment_text.decode`), then YAML 1.2
core-schema values built from libyaml's events (duplicate keys, nesting depth, alias count and expanded size, no tags
or directives, integers within ±(2^53 − 1), finite floats). Positions are 0-based lines and UTF-16 columns, as VS Code
counts them. docs/experiment-files.md is the prose version of these rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import yaml

from seed_trainer.experiment.text import Located, Problem, ReadError, Text, decode

MAX_DEPTH = 64
MAX_ALIASES = 1_000
# Nodes plus string characters after every alias is expanded: bounds what run.json can grow to.
MAX_EXPANDED = 2_000_000
MAX_INTEGER = 2**53 - 1

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1023-core-schema), plain scalars only.
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_NON_FINITE = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$")


def _parser_events(text: str):
    # libyaml's parser is a state machine (no recursion, fast); the pure-Python one is the fallback.
    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    return yaml.parse(text, Loader=loader)


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


class _Builder:
    """Builds plain values from parser events under the shared rules; raises ReadError at the first violation."""

    def __init__(self, text: Text):
        self.text = text
        self.located = Located()
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.open_anchors: set[str] = set()
        self.aliases = 0
        self.expanded = 0

    def fail(self, message: str, start: Any, end: Any, source: str = "yaml") -> None:
        raise ReadError(Problem(message, self.text.span_of(start, end), source=source))

    def grow(self, amount: int, event: Any) -> None:
        self.expanded += amount
        if self.expanded > MAX_EXPANDED:
            self.fail(
                f"the document expands to more than {MAX_EXPANDED} nodes and characters (aliases repeat their anchor's content)",
                event.start_mark,
                event.end_mark,
                "limit",
            )

    def scalar(self, event: Any) -> Any:
        if event.tag is not None:
            self.fail(
                f"tags (`{_short_tag(event.tag)}`) are not supported: write the value itself",
                event.start_mark,
                event.end_mark,
            )
        value = event.value
        self.grow(1 + len(value), event)
        if event.style not in (None, ""):  # quoted or block scalar: a string (libyaml says '' for plain)
            return value
        if _NULL.match(value):
            return None
        if _BOOL.match(value):
            return value[0] in "tT"
        for pattern, base, skip in ((_INT10, 10, 0), (_INT8, 8, 2), (_INT16, 16, 2)):
            if pattern.match(value):
                number = int(value[skip:], base) if skip else int(value, 10)
                if abs(number) > MAX_INTEGER:
                    self.fail(
                        f"integer {value} is out of range (at most 2^53 − 1 = {MAX_INTEGER} either side of 0)",
                        event.start_mark,
                        event.end_mark,
                    )
                return number
        if _NON_FINITE.match(value):
            self.fail(f"`{value}` is not a finite number", event.start_mark, event.end_mark)
        if _FLOAT.match(value):
            number = float(value)
            if not math.isfinite(number):
                self.fail(f"`{value}` is not a finite number (beyond ±1.8e308)", event.start_mark, event.end_mark)
            return number
        return value

    def build(self, events: Iterable[Any]) -> tuple[Any, Located]:
        """The document's value (None for an empty stream) and where its keys and values are."""
        root: Any = None
        documents = 0
        stack: list[_Open] = []
        for event in events:
            kind = type(event)
            if kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    self.fail(
                        "more than one YAML document (`---`): an experiment file holds one",
                        event.start_mark,
                        event.end_mark,
                    )
                if event.version is not None or event.tags:
                    self.fail("directives (`%YAML`, `%TAG`) are not supported", event.start_mark, event.end_mark)
                continue
            if kind in (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent):
                continue
            if kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
                done = stack.pop()
                self.located.values[done.path] = self.text.span_of(done.start_mark, event.end_mark)
                if done.anchor is not None:
                    self.open_anchors.discard(done.anchor)
                    self.anchors[done.anchor] = (done.value, self.expanded - done.expanded_before)
                if stack:
                    stack[-1].add(done.value)
                else:
                    root = done.value
                continue
            parent = stack[-1] if stack else None
            if parent is not None and isinstance(parent.value, dict) and parent.key is None:
                self._key(parent, event)
                continue
            path = parent.child_path() if parent else ()
            if kind is yaml.AliasEvent or kind is yaml.ScalarEvent:
                value = self._alias(event) if kind is yaml.AliasEvent else self.scalar(event)
                self.located.values[path] = self.text.span_of(event.start_mark, event.end_mark)
                if kind is yaml.ScalarEvent and event.anchor is not None:
                    self.open_anchors.discard(event.anchor)  # the newest anchor of a name is the one aliases mean
                    self.anchors[event.anchor] = (value, 1 + len(event.value))
                if parent:
                    parent.add(value)
                else:
                    root = value
                continue
            # a collection starts
            if event.tag is not None:
                self.fail(
                    f"tags (`{_short_tag(event.tag)}`) are not supported: write the value itself",
                    event.start_mark,
                    event.end_mark,
                )
            depth = (parent.depth if parent else 0) + 1
            if depth > MAX_DEPTH:
                self.fail(f"nesting deeper than {MAX_DEPTH} levels", event.start_mark, event.end_mark, "limit")
            before = self.expanded
            self.grow(1, event)
            if event.anchor is not None:
                self.open_anchors.add(event.anchor)
            container: dict[str, Any] | list[Any] = {} if kind is yaml.MappingStartEvent else []
            stack.append(_Open(container, path, depth, event.start_mark, event.anchor, before))
        return root, self.located

    def _alias(self, event: Any) -> Any:
        self.aliases += 1
        if self.aliases > MAX_ALIASES:
            self.fail(f"more than {MAX_ALIASES} aliases", event.start_mark, event.end_mark, "limit")
        if event.anchor in self.open_anchors:
            self.fail(
                f"alias `*{event.anchor}` refers to the collection that contains it", event.start_mark, event.end_mark
            )
        if event.anchor not in self.anchors:
            self.fail(
                f"alias `*{event.anchor}` has no anchor `&{event.anchor}` before it", event.start_mark, event.end_mark
            )
        value, size = self.anchors[event.anchor]
        self.grow(size, event)
        return value

    def _key(self, parent: _Open, event: Any) -> None:
        if type(event) is not yaml.ScalarEvent:
            self.fail(
                "mapping keys must be plain text (not lists, mappings or aliases)", event.start_mark, event.end_mark
            )
        if event.tag is not None:
            self.fail(
                f"tags (`{_short_tag(event.tag)}`) are not supported: write the value itself",
                event.start_mark,
                event.end_mark,
            )
        key = event.value
        self.grow(1 + len(key), event)
        span = self.text.span_of(event.start_mark, event.end_mark)
        if key in parent.value:
            first = self.located.keys.get((*parent.path, key))
            where = f" (first at line {first.start[0] + 1})" if first else ""
            raise ReadError(Problem(f"duplicate key `{key}`{where}", span))
        parent.key = key
        self.located.keys[(*parent.path, key)] = span
        parent.value[key] = None  # the key's place (and its order) until its value arrives


@dataclass
class _Open:
    """A collection being built."""

    value: dict[str, Any] | list[Any]
    path: tuple[str, ...]
    depth: int
    start_mark: Any
    anchor: str | None
    expanded_before: int
    key: str | None = None  # a mapping's key waiting for its value

    def child_path(self) -> tuple[str, ...]:
        return (*self.path, self.key if isinstance(self.value, dict) else str(len(self.value)))

    def add(self, value: Any) -> None:
        if isinstance(self.value, dict):
            self.value[self.key] = value
            self.key = None
        else:
            self.value.append(value)


def _first_too_deep(events: Iterable[Any], flow_exceeds: bool) -> Any | None:
    """The first collection deeper than MAX_DEPTH, when flow collections alone nest deeper than it: the editor
    refuses such text before composing it (its YAML library recurses per level), so that problem comes first here
    too. `flow_exceeds`: already known (libyaml gave up at 1000 levels), so `events` may be lazy and stop early."""
    open_flow: list[bool] = []
    flow = deepest_flow = 0
    first = None
    for event in events:
        if isinstance(event, yaml.CollectionStartEvent):
            open_flow.append(bool(event.flow_style))
            flow += open_flow[-1]
            deepest_flow = max(deepest_flow, flow)
            if len(open_flow) > MAX_DEPTH and first is None:
                first = event
                if flow_exceeds:
                    return first
        elif isinstance(event, yaml.CollectionEndEvent):
            flow -= open_flow.pop()
    return first if deepest_flow > MAX_DEPTH else None


def read_experiment_data(data: bytes) -> tuple[Any, Located, Text]:
    """The experiment's plain data, where its keys and values are, and the decoded text; ReadError on the first
    violation of a shared rule (located)."""
    text = decode(data)
    builder = _Builder(text)
    events: list[Any] = []
    try:
        # All events first: a syntax error anywhere wins over a rule broken before it, as in the editor.
        events.extend(_parser_events(text.text))
        too_deep = _first_too_deep(events, flow_exceeds=False)
        if too_deep is not None:
            builder.fail(f"nesting deeper than {MAX_DEPTH} levels", too_deep.start_mark, too_deep.start_mark, "limit")
        root, located = builder.build(events)
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in str(exc.problem):
            # libyaml refuses 1000 levels before it yields an event; the pure-Python parser is lazy and finds level
            # MAX_DEPTH + 1 after reading a little of the text.
            too_deep = _first_too_deep(yaml.parse(text.text, Loader=yaml.SafeLoader), flow_exceeds=True)
            if too_deep is not None:
                builder.fail(
                    f"nesting deeper than {MAX_DEPTH} levels", too_deep.start_mark, too_deep.start_mark, "limit"
                )
        mark = exc.problem_mark or exc.context_mark
        problem = str(exc.problem or exc.context or exc).split("\n")[0]
        span = text.span_of(mark, mark) if mark else text.first_line()
        raise ReadError(Problem(f"not valid YAML: {problem}", span)) from None
    except yaml.YAMLError as exc:
        raise ReadError(
            Problem(
                f"not valid YAML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", text.first_line()
            )
        ) from None
    return root, located, text
