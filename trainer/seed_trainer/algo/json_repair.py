"""Format verification of an analyzer reply: find the JSON object holding `episode_skill`, however it is wrapped.

Analyzers (an external LLM, or the policy itself early in training) wrap their JSON in prose, in ``` fences, leave
trailing commas, or use typographic quotes. We look, in order, at:
1. each fenced block, then the whole reply, parsed as JSON as-is, then with trailing commas removed, then with
   typographic double quotes straightened, then with a stuttered key collapsed (`"episode_skill": "episode_skill":
   "…"`, a small policy's usual slip under greedy decoding);
2. every balanced {...} span of the reply (string-aware brace matching, so braces inside strings do not count),
   innermost first, that contains the text `episode_skill`, with the same repairs.
The first object holding an `episode_skill` string that is non-empty after strip makes the reply valid (DESIGN §2).
Objects nested in a wrapper ({"analysis": {...}}) are found too.

Analyzer text is untrusted: the parser never raises, bounds its work (reply length, number of JSON decodes), and the
matching is linear in the reply length.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SKILL_KEY = "episode_skill"
SUMMARY_KEY = "episode_summary"

MAX_REPLY_CHARS = 256 * 1024  # an analysis is ≤ 1024 tokens; anything this long is not an analysis
MAX_DECODES = 64  # json.loads calls per reply
MAX_VISIT = 10_000  # JSON nodes searched for a nested skill object

_FENCE = "```"
_FENCE_LANGUAGE = re.compile(r"\s*[A-Za-z]+")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SMART_DOUBLE_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'})
_STRUCTURE = re.compile(r'[{}"\\]')
_STUTTERED_KEY = re.compile(rf'("({SKILL_KEY}|{SUMMARY_KEY})"\s*:\s*)(?:"\2"\s*:\s*)+')


@dataclass(frozen=True)
class SkillParse:
    valid: bool
    skill: str  # stripped; "" when invalid
    summary: str  # stripped; "" when missing
    reason: str  # why the reply is invalid; "" when valid


def parse_skill_reply(reply: object) -> SkillParse:
    """Parse an analyzer reply into a skill; never raises."""
    try:
        return _Parser().parse(reply)
    except Exception as exc:
        return _invalid(f"reply could not be parsed ({type(exc).__name__})")


def _invalid(reason: str) -> SkillParse:
    return SkillParse(valid=False, skill="", summary="", reason=reason)


class _Parser:
    """One reply's parse, holding the decode budget and the first problem met (reported if nothing succeeds)."""

    def __init__(self) -> None:
        self.decodes_left = MAX_DECODES
        self.problem: str | None = None

    def parse(self, reply: object) -> SkillParse:
        if isinstance(reply, bytes):
            reply = reply.decode("utf-8", errors="replace")
        if not isinstance(reply, str):
            return _invalid(f"reply is not text (got {type(reply).__name__})")
        if not reply.strip():
            return _invalid("reply is empty")
        if len(reply) > MAX_REPLY_CHARS:
            return _invalid(f"reply is too long ({len(reply)} characters, limit {MAX_REPLY_CHARS})")

        for candidate in [*_fenced_blocks(reply), reply]:
            result = self._try(candidate)
            if result is not None and result.valid:
                return result
        for start, end in _spans_holding(reply, SKILL_KEY):
            if self.decodes_left <= 0:
                break
            result = self._try(reply[start:end])
            if result is not None and result.valid:
                return result

        if self.problem is not None:
            return _invalid(self.problem)
        if "{" not in reply:
            return _invalid("no JSON object in the reply")
        if SKILL_KEY not in reply:
            return _invalid(f'no "{SKILL_KEY}" field in the reply')
        return _invalid(f'the object holding "{SKILL_KEY}" is not valid JSON, even after repairs')

    def _try(self, text: str) -> SkillParse | None:
        """The skill of the first repaired variant of text that decodes to JSON holding the key, else None."""
        for variant in _variants(text):
            if self.decodes_left <= 0:
                return None
            self.decodes_left -= 1
            try:
                value = json.loads(variant, strict=False)  # strict=False: raw newlines inside strings are common
            except (ValueError, RecursionError):
                continue
            holder = _find_holder(value)
            if holder is None:
                return None  # valid JSON without the key: no repair will add it
            result = _from_holder(holder)
            if not result.valid and self.problem is None:
                self.problem = result.reason
            return result
        return None


def _variants(text: str) -> Iterator[str]:
    """text as-is, then cheap repairs; each repair is only tried when it changes something."""
    stripped = text.strip()
    yield stripped
    no_commas = _TRAILING_COMMA.sub(r"\1", stripped)
    if no_commas != stripped:
        yield no_commas
    straight = no_commas.translate(_SMART_DOUBLE_QUOTES)
    if straight != no_commas:
        yield straight
    collapsed = _STUTTERED_KEY.sub(r"\1", straight)
    if collapsed != straight:
        yield collapsed


def _fenced_blocks(reply: str) -> list[str]:
    """Contents of ``` fences (an optional language tag such as `json` removed); splitting keeps this linear."""
    blocks = []
    for inside in reply.split(_FENCE)[1::2]:
        tag = _FENCE_LANGUAGE.match(inside)
        blocks.append(inside[tag.end() :] if tag else inside)
    return blocks


def _spans_holding(text: str, key: str) -> Iterator[tuple[int, int]]:
    """Balanced {...} spans that contain `key`, in the order they close (inner objects before their parents).

    Quotes only open strings inside an object, so apostrophes and quotes in surrounding prose are ignored; a
    backslash inside a string escapes the next character.
    """
    key_at = [m.start() for m in re.finditer(re.escape(key), text)]
    if not key_at:
        return
    stack: list[int] = []
    in_string = False
    skip_to = -1
    for match in _STRUCTURE.finditer(text):
        i = match.start()
        if i < skip_to:
            continue
        char = text[i]
        if char == "\\":
            if in_string:
                skip_to = i + 2
        elif in_string:
            in_string = char != '"'
        elif char == '"':
            in_string = bool(stack)
        elif char == "{":
            stack.append(i)
        elif char == "}" and stack:
            start = stack.pop()
            first_key = bisect.bisect_left(key_at, start)
            if first_key < len(key_at) and key_at[first_key] + len(key) <= i:
                yield start, i + 1


def _find_holder(value: Any) -> dict | None:
    """The first dict (breadth-first) that has the skill key."""
    queue = [value]
    for node in queue:
        if len(queue) > MAX_VISIT:
            return None
        if isinstance(node, dict):
            if SKILL_KEY in node:
                return node
            queue.extend(node.values())
        elif isinstance(node, list):
            queue.extend(node)
    return None


def _from_holder(holder: dict) -> SkillParse:
    skill = holder[SKILL_KEY]
    if not isinstance(skill, str):
        return _invalid(f'"{SKILL_KEY}" is not a string (got {type(skill).__name__})')
    if not skill.strip():
        return _invalid(f'"{SKILL_KEY}" is empty')
    if not any(ch.isalnum() for ch in skill):
        # "..." or "…": the prompt's own placeholder echoed back (the reference code rejects it too)
        return _invalid(f'"{SKILL_KEY}" holds no words (a placeholder such as "...")')
    if skill.strip() in (SKILL_KEY, SUMMARY_KEY):
        return _invalid(f'"{SKILL_KEY}" holds only a field name')
    summary = holder.get(SUMMARY_KEY)
    return SkillParse(
        valid=True, skill=skill.strip(), summary=summary.strip() if isinstance(summary, str) else "", reason=""
    )
