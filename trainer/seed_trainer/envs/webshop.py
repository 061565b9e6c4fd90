"""`webshop`: WebShop (Yao et al.) in its text mode, played over an AgentGym `agentenv-webshop` server
(env_server.py, preset `webshop`). Start the server as AgentGym's README says (`webshop --port 36003` after its
setup script), then `environment: {name: webshop, options: {url: http://127.0.0.1:36003}}`.

Actions are `search[keywords]` (while the page has a search bar) and `click[value]` for a clickable value of the page;
the admissible list offers `search[<your query>]` and every `click[…]`. An episode ends when the agent buys (or at
`rollout.max_steps`, 15 as in verl-agent and SEED); the server's final reward is WebShop's task score in [0, 1]:
`won` iff it is exactly 1 (every attribute, option and the price matched), the score itself is logged as
`episode/task_score`, and the episode reward is `rl.reward_scale` (10) × won.

Splits are WebShop's goal indices (session ids): `valid_seen` = goals 0–499 (WebShop's test set), `dev` = 500–1499,
`train` = 1500 onwards (12,087 goals with the full product set); `splits` overrides them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from seed_trainer.algo.actions import invalid_reason, parse_action
from seed_trainer.envs.env_server import EnvServerTasks
from seed_trainer.envs.step_prompts import step_prompt_with_intro

INTRO = "You are an expert shopping agent browsing the WebShop online store, a text-only web shop."
DEFAULT_SPLITS = {"valid_seen": [0, 500], "dev": [500, 1500], "train": [1500, 12087]}
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


class WebshopTasks(EnvServerTasks):
    """WebShop over its AgentGym server."""

    name = "webshop"
    task_types: Sequence[str] = ("webshop",)
    step_prompt = staticmethod(webshop_prompt)
    parse_response = staticmethod(parse_webshop_response)

    def __init__(self, url: str = "http://127.0.0.1:36003", *, splits: dict[str, Any] | None = None, **options: Any):
        super().__init__(url, preset="webshop", splits=splits or DEFAULT_SPLITS, **options)
