"""Per-token arrays of a trajectory step, stored as base64 of little-endian typed arrays (docs/run-format.md §7.3).

`ids` is int32; `logp`, `teacher_logp`, `delta`, `gate` and `gate_baseline` are float32; `text` stays a JSON list of strings (each
token's text, so a reader needs no tokenizer). A reader can check every length from the string lengths alone:
a base64 array of n four-byte items has exactly 4·ceil(4n/3) characters.
"""

from __future__ import annotations

import base64
import binascii
import math
import sys
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FLOAT_FIELDS = ("logp", "teacher_logp", "delta", "gate", "gate_baseline")
#: Fields that come from the teacher pass: all present or all absent.
TEACHER_FIELDS = ("teacher_logp", "delta", "gate")
#: What an OPD estimator subtracted from g (`opd.estimator` centred / baseline / expected): only beside the gate.
BASELINE_FIELD = "gate_baseline"


def _values(values: Any) -> list[Any]:
    """Lists, tuples, arrays, numpy arrays and CPU torch tensors alike."""
    if hasattr(values, "detach"):
        values = values.detach().cpu()
    if hasattr(values, "tolist"):
        return list(values.tolist())
    return list(values)


def _encode(typecode: str, values: Any) -> str:
    data = array(typecode, _values(values))
    if data.itemsize != 4:  # pragma: no cover - every supported platform has 4-byte int and float
        raise RuntimeError(f"array({typecode!r}) is not 4 bytes on this platform")
    if sys.byteorder == "big":  # pragma: no cover
        data.byteswap()
    return base64.b64encode(data.tobytes()).decode("ascii")


def _decode(typecode: str, text: str) -> list[Any]:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"not valid base64: {exc}") from None
    if len(raw) % 4:
        raise ValueError(f"{len(raw)} bytes is not a whole number of 4-byte items")
    data = array(typecode)
    data.frombytes(raw)
    if sys.byteorder == "big":  # pragma: no cover
        data.byteswap()
    return data.tolist()


def encode_int32(values: Iterable[int] | Any) -> str:
    return _encode("i", values)


def encode_float32(values: Iterable[float] | Any) -> str:
    return _encode("f", values)


def decode_int32(text: str) -> list[int]:
    return _decode("i", text)


def decode_float32(text: str) -> list[float]:
    return _decode("f", text)


def base64_length(count: int) -> int:
    """Characters of the base64 text of `count` four-byte items (with padding)."""
    return 4 * math.ceil(4 * count / 3)


def token_array_problems(tokens: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, what is wrong) for every array whose length disagrees with `count`; checks lengths without decoding."""
    problems: list[tuple[str, str]] = []
    count = tokens.get("count")
    if not isinstance(count, int):
        return [("count", "missing or not an integer")]
    want = base64_length(count)
    for name in ("ids", *FLOAT_FIELDS):
        value = tokens.get(name)
        if isinstance(value, str) and len(value) != want:
            items = len(value) * 3 / 16  # approximate when padding is wrong; exact for well-formed text
            problems.append(
                (name, f"holds {len(value)} base64 characters (~{items:g} items), expected {want} for count {count}")
            )
    text = tokens.get("text")
    if isinstance(text, list) and len(text) != count:
        problems.append(("text", f"holds {len(text)} pieces, expected count {count}"))
    present = [name for name in TEACHER_FIELDS if name in tokens]
    if present and len(present) != len(TEACHER_FIELDS):
        missing = next(name for name in TEACHER_FIELDS if name not in tokens)
        problems.append((missing, f"absent while {', '.join(present)} present: teacher arrays come together"))
    if BASELINE_FIELD in tokens and "gate" not in tokens:
        problems.append((BASELINE_FIELD, "present without gate: what was subtracted from g needs g"))
    return problems


def _non_finite_problem(values: Sequence[float]) -> str | None:
    index = next((i for i, v in enumerate(values) if not math.isfinite(v)), None)
    if index is None:
        return None
    value = values[index]
    shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")  # as JavaScript writes them
    return f"item {index} is {shown}, not a finite number"


def gate_baseline_problem(tokens: Mapping[str, Any]) -> str | None:
    """What stops `gate_baseline` from decoding to finite numbers (bad base64, a NaN or an infinity), else None.
    Its length is `token_array_problems`' to check; b is ½ or a mean of gates, so a non-finite one is corrupt."""
    text = tokens.get(BASELINE_FIELD)
    if not isinstance(text, str):
        return None
    try:
        values = decode_float32(text)
    except ValueError as exc:
        return str(exc)
    return _non_finite_problem(values)


@dataclass
class TokenArrays:
    """The decoded per-token arrays of one step; `None` where the array was not recorded (no teacher pass)."""

    ids: list[int]
    text: list[str]
    logp: list[float] | None = None
    teacher_logp: list[float] | None = None
    delta: list[float] | None = None
    gate: list[float] | None = None
    gate_baseline: list[float] | None = None  # what the OPD estimator subtracted from g: ½ or b(s)

    def __post_init__(self) -> None:
        self.ids = [int(v) for v in _values(self.ids)]
        self.text = [str(piece) for piece in self.text]
        for name in FLOAT_FIELDS:
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, [float(v) for v in _values(value)])
        count = len(self.ids)
        for name in ("text", *FLOAT_FIELDS):
            value = getattr(self, name)
            if value is not None and len(value) != count:
                raise ValueError(f"token array {name} has {len(value)} items, ids has {count}")
        present = [name for name in TEACHER_FIELDS if getattr(self, name) is not None]
        if present and len(present) != len(TEACHER_FIELDS):
            raise ValueError("teacher_logp, delta and gate are recorded together or not at all")
        if self.gate_baseline is not None and self.gate is None:
            raise ValueError("gate_baseline is recorded only beside gate")
        if self.gate_baseline is not None and (problem := _non_finite_problem(self.gate_baseline)):
            raise ValueError(f"{BASELINE_FIELD}: {problem}")

    @property
    def count(self) -> int:
        return len(self.ids)

    def encode(self) -> dict[str, Any]:
        """The JSON object stored as `steps[i].tokens`."""
        out: dict[str, Any] = {"count": self.count, "ids": encode_int32(self.ids), "text": list(self.text)}
        for name in FLOAT_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = encode_float32(value)
        return out

    @classmethod
    def decode(cls, tokens: Mapping[str, Any]) -> TokenArrays:
        """Inverse of `encode`; raises ValueError naming the array that is inconsistent."""
        for name, problem in token_array_problems(tokens):
            raise ValueError(f"{name}: {problem}")
        decoded: dict[str, Any] = {}
        for name, decode in (("ids", decode_int32), *((n, decode_float32) for n in FLOAT_FIELDS)):
            if name in tokens:
                try:
                    decoded[name] = decode(tokens[name])
                except ValueError as exc:
                    raise ValueError(f"{name}: {exc}") from None
        return cls(text=list(tokens.get("text", [])), **decoded)


def token_pieces(decode: Callable[[Sequence[int]], str], ids: Sequence[int], window: int = 6) -> list[str]:
    """Each token's text such that ``"".join(pieces) == decode(ids)`` (for tokenizers whose decode is prefix-stable).

    `decode` is e.g. ``lambda ids: tokenizer.decode(ids, skip_special_tokens=False)``. Tokens that end inside a
    multi-byte character get ``""`` and the token completing it carries the character. Each token costs one decode
    of at most `window` + a few tokens, so this is linear in the response length.
    """
    ids = list(ids)
    pieces: list[str] = []
    done = 0  # tokens whose text has been emitted
    for i in range(len(ids)):
        start = max(0, done - window)
        before = decode(ids[start:done]) if done > start else ""
        now = decode(ids[start : i + 1])
        if not now.startswith(before):  # the window changed earlier text: fall back to whole prefixes
            before, now = decode(ids[:done]), decode(ids[: i + 1])
        if now.endswith("\ufffd") and i + 1 < len(ids):
            pieces.append("")  # an incomplete character: its text arrives with a later token
            continue
        pieces.append(now[len(before) :])
        done = i + 1
    return pieces
