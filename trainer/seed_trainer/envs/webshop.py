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

from collections.abc import Sequence
from typing import Any

from seed_trainer.envs.env_server import EnvServerTasks
from seed_trainer.envs.webshop_text import parse_webshop_response, webshop_prompt

DEFAULT_SPLITS = {"valid_seen": [0, 500], "dev": [500, 1500], "train": [1500, 12087]}


class WebshopTasks(EnvServerTasks):
    """WebShop over its AgentGym server."""

    name = "webshop"
    task_types: Sequence[str] = ("webshop",)
    step_prompt = staticmethod(webshop_prompt)
    parse_response = staticmethod(parse_webshop_response)

    def __init__(self, url: str = "http://127.0.0.1:36003", *, splits: dict[str, Any] | None = None, **options: Any):
        super().__init__(url, preset="webshop", splits=splits or DEFAULT_SPLITS, **options)
