"""WebShop's text protocol as the agent sees it: the page rendered for the step prompt, the prompt itself and the check
of a reply's `search[…]` / `click[…]` action. Used by `webshop` (webshop.py) and by `env_server`'s `agent: webshop`."""

from __future__ import annotations

import re
from typing import Any

from seed_trainer.algo.actions import invalid_reason, parse_action
from seed_trainer.envs.step_prompts import step_prompt_with_intro

INTRO = "You are an expert shopping agent browsing the WebShop online store, a text-only web shop."
_ACTION = re.compile(r"^(search|click)\[(.+)\]$", re.DOTALL)
_SEP = re.compile(r"\s*\[SEP\]\s*")
_base_prompt = step_prompt_with_intro(INTRO)


def format_page(text: str, instruction: str = "") -> str:
    """WebShop's text-mode page, its ` [SEP] ` separators as ` | `, without the instruction the task line repeats."""
    parts = [part for part in _SEP.split(text.strip()) if part]
    goal = instruction.strip().lower()
    kept = [p for p in parts if p.strip().lower() != goal] if goal else parts
    if len(kept) < len(parts):  # the instruction was there: its "Instruction:" label goes too
        kept = [p for p in kept if p.strip() != "Instruction:"]
    return " | ".join(kept)


def webshop_prompt(*, task: str, observation: str, **kwargs: Any) -> str:
    return _base_prompt(task=task, observation=format_page(observation, task), **kwargs)


def parse_webshop_response(response: str) -> tuple[str, str | None]:
    """The `<action>` projection of the household, and the action must be `search[…]` or `click[…]`."""
    parsed = parse_action(response)
    if not parsed.valid:
        return parsed.action, invalid_reason(response)
    if not _ACTION.match(parsed.action):
        return parsed.action, "the action is neither search[…] nor click[…]"
    return parsed.action, None
