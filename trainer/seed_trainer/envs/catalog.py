"""What the editor and `doctor` know about the registered environments: one entry per `environment.name`, with a
summary, the optional extra it needs, the data it needs, and its `environment.options` as JSON-Schema fragments.

This table is exported into the experiment schema (`x-environments` on `environment.name`, see experiment/config.py), from which
the editor offers completion and hover docs, and read by `python -m seed_trainer doctor` to report which environments
the interpreter can run. tests/envs/test_environment_catalog.py holds it to the registry and to each TaskSource's
constructor, so an option added to an environment without an entry here fails a test.
Standard library only: `doctor` runs it before the trainer's own dependencies are installed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DataNeed:
    """Files an environment needs that no pip install brings, found through an environment variable."""

    variable: str
    default: str
    marker: str  # a folder that must exist under the data folder
    option: str  # the environment option that overrides the variable
    how: str  # how to get the data, one sentence


@dataclass(frozen=True)
class EnvironmentEntry:
    name: str
    summary: str
    source: str  # `module:Class` of its TaskSource
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra: str | None = None  # the seed-trainer extra that installs what it imports
    module: str | None = None  # the import the extra provides (checked without importing it)
    data: DataNeed | None = None

    def install_command(self) -> str | None:
        return f"pip install 'seed-trainer[{self.extra}]'" if self.extra else None


def _integer(default: int, description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "default": default, "description": description}


def _number(default: float, description: str) -> dict[str, Any]:
    return {"type": "number", "exclusiveMinimum": 0, "default": default, "description": description}


def _string(description: str, default: str | None = None) -> dict[str, Any]:
    return {"type": "string", "description": description, **({"default": default} if default is not None else {})}


def _mapping(description: str) -> dict[str, Any]:
    return {"type": "object", "description": description}


MAX_STEPS = "Environment steps before the episode is cut off (the environment's own limit)."
_CLIENT = {
    "timeout": _number(60.0, "Seconds to wait for one reply of the server."),
    "max_retries": {
        "type": "integer",
        "minimum": 0,
        "default": 3,
        "description": "Retries of a request that failed where retrying is safe (a step only when the "
        "server cannot have acted on it).",
    },
    "backoff": _number(0.5, "Seconds before the first retry; doubled each time."),
}
_SPLITS = _mapping(
    "Data-index range of each split, `{split: [first, end)}`; a server started with "
    "`python -m seed_trainer.envs.serve` describes its own."
)
_AGENT = {
    "enum": ["household", "alfworld", "webshop", "search_qa"],
    "default": "household",
    "description": "The prompt and action format the policy uses with this server.",
}
_DIALECT = {
    "id_field": _string("Field naming the environment id in requests (`id`, WebShop: `env_idx`)."),
    "reset_index_field": _string("Field carrying the data index in /reset (`data_idx`, `session_id`, `game`, `id`)."),
    "reset_extra": _mapping("Extra fields sent with every /reset (ALFWorld's server: `{world_type: Text}`)."),
    "create_body": _mapping("JSON body of /create, for servers that want one."),
    "observation_fields": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Reply fields that may hold the observation, in order.",
    },
    "actions": {
        "enum": ["reply", "webshop", "none"],
        "description": "Where admissible actions come from: the reply's `available_actions`, WebShop's "
        "GET /available_actions, or nowhere (free-text environments).",
    },
    "observation_after_reset": {"type": "boolean", "description": "Ask GET /observation after /reset."},
    "instruction_endpoint": _string("GET endpoint that returns the task text (WebShop: `/instruction_text`)."),
    "task_type": _string("One task type for every task, when the server reports none."),
    "success_reward": {
        "type": "number",
        "default": 1.0,
        "description": "`won` = reward ≥ this, unless the reply says `won`.",
    },
}

ENVIRONMENTS: tuple[EnvironmentEntry, ...] = (
    EnvironmentEntry(
        "household",
        "The built-in ALFWorld-style household text world: six task types, nothing to install.",
        "seed_trainer.envs.household:HouseholdTasks",
        {"max_steps": _integer(30, MAX_STEPS)},
    ),
    EnvironmentEntry(
        "textworld",
        "Generated TextWorld games (cooking, coin collector, treasure hunter), made offline by `tw-make`.",
        "seed_trainer.envs.textworld_games:TextWorldTasks",
        {
            "kind": {
                "enum": ["cooking", "coin_collector", "treasure_hunter"],
                "default": "cooking",
                "description": "Which `tw-make` games: the cooking games or the simple coin collector / "
                "treasure hunter.",
            },
            "variants": _mapping(
                "Task-type name → `tw-make` settings (cooking: `recipe`, `take`, `go`, `open`, "
                "`cook`, `cut`; the others: `level`). Default: one type named after the kind."
            ),
            "games_per_split": _mapping(
                "Games per variant and split (default train 100, valid_seen 20, valid_unseen 20)."
            ),
            "cache_dir": _string(
                "Where generated games are kept, keyed by kind, settings and seed "
                "(default ~/.cache/seed-studio/textworld)."
            ),
            "games_dir": _string(
                "Load games already made, `<games_dir>/<split>/[<task type>/]*.z8`, instead of generating them."
            ),
            "max_steps": _integer(30, MAX_STEPS),
        },
        extra="textworld",
        module="textworld",
    ),
    EnvironmentEntry(
        "alfworld",
        "ALFWorld's text games (the paper's main benchmark), played in-process through TextWorld.",
        "seed_trainer.envs.alfworld:AlfworldTasks",
        {
            "data_dir": _string(
                "Folder holding ALFWorld's `json_2.1.1/` (default: $ALFWORLD_DATA, else ~/.cache/alfworld)."
            ),
            "max_steps": _integer(30, MAX_STEPS + " SEED: 30, SDAR: 50."),
        },
        extra="alfworld",
        module="alfworld",
        data=DataNeed(
            "ALFWORLD_DATA",
            "~/.cache/alfworld",
            "json_2.1.1",
            "data_dir",
            "run `alfworld-download` (after installing the extra), or point ALFWORLD_DATA or "
            "environment.options.data_dir at a folder that holds json_2.1.1/",
        ),
    ),
    EnvironmentEntry(
        "webshop",
        "WebShop's text mode, played over a running AgentGym `agentenv-webshop` server.",
        "seed_trainer.envs.webshop:WebshopTasks",
        {
            "url": _string("Base URL of the WebShop server.", "http://127.0.0.1:36003"),
            "splits": _mapping(
                "Goal-index range of each split, `{split: [first, end)}` (default valid_seen 0–499, "
                "dev 500–1499, train 1500–12086)."
            ),
            **_CLIENT,
        },
    ),
    EnvironmentEntry(
        "search_qa",
        "Question answering with a search engine, Search-R1 style (`<search>` / `<answer>`).",
        "seed_trainer.envs.search_qa:SearchQATasks",
        {
            "data": _mapping(
                "Question file of each split, `{split: path}`: JSON lines with `question`, "
                "`golden_answers` and optionally `data_source` (the task type)."
            ),
            "retriever_url": _string("Base URL of a retrieval server with Search-R1's `POST /retrieve` API."),
            "topk": _integer(3, "Passages returned per search."),
            "max_steps": _integer(4, MAX_STEPS),
            "timeout": _number(30.0, "Seconds to wait for one reply of the retriever."),
            "max_retries": _CLIENT["max_retries"],
        },
    ),
    EnvironmentEntry(
        "env_server",
        "Any environment behind an AgentGym-style environment server (ALFWorld, WebShop, SciWorld, "
        "BabyAI, TextCraft, or `python -m seed_trainer.envs.serve`).",
        "seed_trainer.envs.env_server:EnvServerTasks",
        {
            "url": _string("Base URL of the environment server."),
            "preset": {
                "enum": ["agentgym", "alfworld", "webshop", "searchqa"],
                "default": "agentgym",
                "description": "The server's dialect of the protocol; each of its fields can be overridden.",
            },
            "splits": _SPLITS,
            "agent": _AGENT,
            **_CLIENT,
            **_DIALECT,
        },
    ),
)


def schema_extension() -> list[dict[str, Any]]:
    """The catalog as the experiment schema carries it (`x-environments` of `environment.name`): a list, since the
    schema export sorts the keys of mappings and the order is the one completion offers."""
    out = []
    for entry in ENVIRONMENTS:
        item: dict[str, Any] = {"name": entry.name, "summary": entry.summary, "options": entry.options}
        if entry.extra:
            item["extra"] = entry.extra
            item["install"] = entry.install_command()
        if entry.data:
            item["data"] = {
                "variable": entry.data.variable,
                "default": entry.data.default,
                "marker": entry.data.marker,
                "option": entry.data.option,
                "how": entry.data.how,
            }
        out.append(item)
    return out
