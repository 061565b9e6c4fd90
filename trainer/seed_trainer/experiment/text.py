"""An experiment file's text before YAML: the size, UTF-8 and character checks (`decode`), and positions in it — 0-based
lines and UTF-16 columns, as VS Code counts them — for the problems every later check reports. The editor's
counterpart is src/experiments/core/experimentText.ts."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

MAX_BYTES = 1_048_576

# C0 controls except tab and line feed, a carriage return not followed by a line feed, DEL, C1 controls (NEL is a
# line break for YAML 1.1 parsers only), the line/paragraph separators (the same split), BOM inside the text,
# and the non-characters U+FFFE/U+FFFF.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|\r(?!\n)")


@dataclass(frozen=True)
class Span:
    """[start, end) as 0-based (line, UTF-16 column) pairs."""

    start: tuple[int, int]
    end: tuple[int, int]


@dataclass(frozen=True)
class Problem:
    message: str
    span: Span
    field: str = ""
    source: str = "yaml"  # yaml | limit | schema

    def as_json(self) -> dict[str, Any]:
        (sl, sc), (el, ec) = self.span.start, self.span.end
        return {
            "message": self.message,
            "field": self.field,
            "source": self.source,
            "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
        }


@dataclass
class Located:
    """Where each key path's key and value are in the text (paths inside an alias's expansion are not recorded)."""

    keys: dict[tuple[str, ...], Span] = field(default_factory=dict)
    values: dict[tuple[str, ...], Span] = field(default_factory=dict)


class Text:
    """The decoded text with offset/mark → (line, UTF-16 column) conversion."""

    def __init__(self, text: str):
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _utf16(self, line: int, column: int) -> int:
        start = self.line_starts[min(line, len(self.line_starts) - 1)]
        prefix = self.text[start : start + column]
        return column + sum(1 for ch in prefix if ord(ch) > 0xFFFF)

    def point(self, line: int, column: int) -> tuple[int, int]:
        return (line, self._utf16(line, column))

    def at_offset(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return self.point(line, offset - self.line_starts[line])

    def span_of(self, start_mark: Any, end_mark: Any) -> Span:
        return Span(self.point(start_mark.line, start_mark.column), self.point(end_mark.line, end_mark.column))

    def _offset(self, point: tuple[int, int]) -> int:
        line, column16 = point
        start = self.line_starts[min(line, len(self.line_starts) - 1)]
        offset, units = start, 0
        while units < column16 and offset < len(self.text):
            units += 2 if ord(self.text[offset]) > 0xFFFF else 1
            offset += 1
        return offset

    def trimmed(self, span: Span) -> Span:
        """`span` without trailing whitespace and at least one character long (as the editor shows it)."""
        start, stop = self._offset(span.start), self._offset(span.end)
        while stop > start + 1 and self.text[stop - 1].isspace():
            stop -= 1
        return Span(span.start, self.at_offset(min(max(stop, start + 1), len(self.text))))

    def first_line(self) -> Span:
        end = self.text.find("\n")
        return Span((0, 0), (0, self._utf16(0, len(self.text) if end == -1 else end)))

    def char_span(self, offset: int) -> Span:
        start = self.at_offset(offset)
        return Span(start, (start[0], start[1] + (2 if ord(self.text[offset]) > 0xFFFF else 1)))


class ReadError(Exception):
    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


def decode(data: bytes) -> Text:
    """Size, UTF-8 and character checks; raises ReadError with the first problem."""
    if len(data) > MAX_BYTES:
        raise ReadError(
            Problem(
                f"the file is {len(data)} bytes; experiment files are limited to {MAX_BYTES} bytes (1 MiB)",
                Span((0, 0), (0, 0)),
                source="limit",
            )
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = Text(data[: exc.start].decode("utf-8"))
        at = good.at_offset(len(good.text))
        raise ReadError(
            Problem(
                f"not UTF-8: byte 0x{data[exc.start]:02X} at byte offset {exc.start} cannot be decoded (save the file as UTF-8)",
                Span(at, (at[0], at[1] + 1)),
                source="limit",
            )
        ) from None
    decoded = Text(text)
    bad = _CONTROL.search(text)
    tab = text.find("\t")
    if bad and (tab == -1 or bad.start() < tab):
        char = text[bad.start()]
        raise ReadError(
            Problem(
                f"control character U+{ord(char):04X} is not allowed (write it as an escape in a double-quoted string)",
                decoded.char_span(bad.start()),
                source="limit",
            )
        )
    if tab != -1:
        raise ReadError(
            Problem(
                "tab character: indent and separate with spaces (write \\t inside a double-quoted string)",
                decoded.char_span(tab),
                source="limit",
            )
        )
    return decoded
