"""`env_server`: environments behind an AgentGym-style environment server, so existing servers plug in unchanged.

The protocol of AgentGym's `agentenv-*` servers (WooooDyy/AgentGym), one HTTP server per environment kind:

    POST /create                 → an environment id (a bare integer, or {"id": n})
    POST /reset {id, <index>: i} → the first observation of data item i (and, for some servers, its actions)
    POST /step  {id, action}     → {observation | state, reward, done[, available_actions, score, won, info]}
    GET  /observation?id=…       → the current observation (a string)
    POST /close {id}             → frees the environment (best effort: not every server has it)

A reply holding an `error` key is a server-side failure. The servers differ in a few names, so a *dialect* says which:
the id field (`id` or `env_idx`), the reset index field (`data_idx`, `session_id`, `game`, `id`), extra reset fields
(ALFWorld's `world_type`), where the admissible actions come from, and how a task's description and type are found.
`preset` picks a known dialect; every field can be overridden in `environment.options`. `agent` picks the prompt and
action format the policy uses with the server (household's by default; `alfworld`, `webshop`, `search_qa`).

Tasks are data indices. `splits` maps each split to a half-open index range `[first, end)`; a server started with
`python -m seed_trainer.envs.serve` describes its own splits and task types at `GET /splits`, so it needs none.
Every failure of the server — dead, too slow, a reply that breaks the protocol — raises `EnvironmentFailure` naming
the task and the request: the rollout ends that episode as failed and the run goes on (docs/environments.md).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from seed_trainer.envs.base import EnvironmentFailure, Observation, StepResult, Task
from seed_trainer.envs.json_http import HttpFailure, JsonHttpClient, snippet

TASK_LINE = re.compile(r"Your task is to:\s*(.+)", re.IGNORECASE)


@dataclass(frozen=True)
class Dialect:
    id_field: str = "id"
    reset_index_field: str = "data_idx"
    reset_extra: dict[str, Any] = field(default_factory=dict)
    create_body: dict[str, Any] | None = None  # some servers want a JSON body on /create
    observation_fields: tuple[str, ...] = ("observation", "state")
    # where admissible actions come from: the reply's `available_actions`, WebShop's GET /available_actions
    # ({has_search_bar, clickables}), or nowhere (free-text environments)
    actions: str = "reply"  # reply | webshop | none
    observation_after_reset: bool = False  # GET /observation after reset (the reset reply carries none)
    instruction_endpoint: str | None = None  # GET endpoint with the task text (WebShop: /instruction_text)
    task_type: str | None = None  # one task type for every task of this server, when it reports none
    success_reward: float = 1.0  # won = reward ≥ this, unless the reply says `won`


PRESETS: dict[str, Dialect] = {
    # babyai, sciworld, textcraft, and servers started by seed_trainer.envs.serve
    "agentgym": Dialect(),
    "alfworld": Dialect(reset_index_field="game", reset_extra={"world_type": "Text"}),
    "webshop": Dialect(
        id_field="env_idx",
        reset_index_field="session_id",
        actions="webshop",
        observation_after_reset=True,
        instruction_endpoint="/instruction_text",
        task_type="webshop",
    ),
    "searchqa": Dialect(
        id_field="env_idx",
        reset_index_field="id",
        create_body={"id": 0},
        actions="none",
        observation_after_reset=True,
        task_type="search_qa",
    ),
}
DIALECT_OPTIONS = {f.name for f in fields(Dialect)}


AGENT_FORMATS = ("household", "alfworld", "webshop", "search_qa")


def agent_format(name: str) -> tuple[Any, Any]:
    """(step_prompt, parse_response) of an environment kind, for `agent:`; household's are the trainer's defaults."""
    # imported on use: each module imports this one
    if name == "alfworld":  # the household's action format (None: the rollout's default)
        from seed_trainer.envs.alfworld import AlfworldTasks

        return AlfworldTasks.step_prompt, None
    if name == "webshop":
        from seed_trainer.envs.webshop_text import parse_webshop_response, webshop_prompt

        return webshop_prompt, parse_webshop_response
    if name == "search_qa":
        from seed_trainer.envs.search_qa import parse_search_response, search_prompt

        return search_prompt, parse_search_response
    raise ValueError(f"environment.options.agent: unknown {name!r} (known: {', '.join(AGENT_FORMATS)})")


@dataclass(frozen=True)
class ServerSpec:
    """One task: a data index of the server's split."""

    split: str
    index: int
    task_type: str | None = None

    def __str__(self) -> str:
        return f"{self.split}#{self.index}"


def parse_splits(value: Any, where: str) -> dict[str, tuple[int, int]]:
    """`{split: [first, end)}` from the option (or a server's /splits reply), checked."""
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{where}: expected a mapping of split name to [first, end) index range")
    ranges = {}
    for split, bounds in value.items():
        ok = isinstance(bounds, (list, tuple)) and len(bounds) == 2 and all(isinstance(b, int) for b in bounds)
        if not ok or not 0 <= bounds[0] < bounds[1]:
            raise ValueError(f"{where}.{split}: expected [first, end) with 0 ≤ first < end, got {bounds!r}")
        ranges[str(split)] = (bounds[0], bounds[1])
    return ranges


class EnvServerTasks:
    """The TaskSource of an environment server."""

    name = "env_server"

    def __init__(
        self,
        url: str,
        *,
        preset: str = "agentgym",
        splits: dict[str, Any] | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        agent: str = "household",
        **dialect_options: Any,
    ) -> None:
        if preset not in PRESETS:
            raise ValueError(f"environment.options.preset: unknown {preset!r} (known: {', '.join(PRESETS)})")
        unknown = sorted(set(dialect_options) - DIALECT_OPTIONS)
        if unknown:
            raise ValueError(f"environment.options: unknown option(s) for env_server: {', '.join(unknown)}")
        if "observation_fields" in dialect_options:
            dialect_options["observation_fields"] = tuple(dialect_options["observation_fields"])
        self.dialect = replace(PRESETS[preset], **dialect_options)
        if agent != "household":  # another environment's prompt and action format, for a server of that kind
            self.step_prompt, self.parse_response = agent_format(agent)
        self.client = JsonHttpClient(url, timeout=timeout, max_retries=max_retries, backoff=backoff)
        self.url = self.client.base_url
        self._catalog_types: list[str] | None = None
        if splits is not None:
            self.splits = parse_splits(splits, "environment.options.splits")
            self.task_types: Sequence[str] = [self.dialect.task_type] if self.dialect.task_type else []
        else:
            self._load_catalog()

    def _load_catalog(self) -> None:
        """A server of ours describes its splits and the task type of every index."""
        try:
            reply = self.client.get("/splits")
        except HttpFailure as exc:
            if exc.status is None:  # no HTTP answer at all: the server is not there
                raise ValueError(f"environment.options.url: the environment server does not answer: {exc}") from None
            reply = None
        try:
            self.splits = parse_splits(reply.get("splits") if isinstance(reply, dict) else None, f"{self.url}/splits")
        except ValueError as exc:
            raise ValueError(
                f"environment.options.splits: needed for the server at {self.url}, which does not describe its "
                f"splits ({exc}); give each split an index range, e.g. {{train: [0, 1000], valid_seen: [1000, 1140]}}"
            ) from None
        types = reply.get("types")  # a valid /splits reply is a mapping
        if isinstance(types, list) and all(isinstance(t, str) for t in types):
            self._catalog_types = types
        self.task_types = list(reply.get("task_types") or sorted(set(types or [])))

    def _type_of(self, index: int) -> str | None:
        if self._catalog_types is not None and 0 <= index < len(self._catalog_types):
            return self._catalog_types[index]
        return self.dialect.task_type

    def sample(self, split: str, count: int, seed: int, task_types: Sequence[str] | None = None) -> list[ServerSpec]:
        """`count` data indices of `split`, drawn without repeats while the range lasts, deterministic in the seed."""
        if split not in self.splits:
            raise ValueError(f"env_server: no split {split!r} (known: {', '.join(self.splits)})")
        first, end = self.splits[split]
        indices = list(range(first, end))
        if task_types:
            if self._catalog_types is None:
                raise ValueError(
                    f"environment.task_types: the server at {self.url} does not report task types before a reset, "
                    "so it cannot be sampled by type; give each type its own split range instead"
                )
            indices = [i for i in indices if self._type_of(i) in set(task_types)]
            if not indices:
                raise ValueError(f"env_server: split {split!r} has no task of type {', '.join(task_types)}")
        rng = random.Random(f"env_server|{split}|{seed}")
        chosen: list[int] = []
        while len(chosen) < count:
            chosen += rng.sample(indices, min(len(indices), count - len(chosen)))
        return [ServerSpec(split, i, self._type_of(i)) for i in chosen]

    def make(self, spec: ServerSpec) -> ServerEnvironment:
        return ServerEnvironment(self, spec)


class ServerEnvironment:
    """One episode on the server: created and reset on `reset()`, closed on `close()`."""

    def __init__(self, source: EnvServerTasks, spec: ServerSpec) -> None:
        self.source, self.spec, self.dialect, self.client = source, spec, source.dialect, source.client
        self.env_id: Any = None
        self.task = Task(f"{spec.split}-{spec.index}", spec.task_type or "unknown", "", spec.split)

    # --- the Environment protocol -------------------------------------------------------------------------------

    def reset(self) -> tuple[Task, Observation]:
        d = self.dialect
        created = self._call("POST", "/create", d.create_body)
        self.env_id = created.get("id", created.get("env_idx")) if isinstance(created, dict) else created
        if not isinstance(self.env_id, (int, str)) or isinstance(self.env_id, bool):
            raise self._violation("/create", f"expected an environment id, got {snippet(repr(created))}")
        reply = self._call(
            "POST", "/reset", {d.id_field: self.env_id, d.reset_index_field: self.spec.index, **d.reset_extra}
        )
        reply = reply if isinstance(reply, dict) else {}
        text = self._observation_text(reply, "/reset", required=not d.observation_after_reset)
        if d.observation_after_reset:
            text = self._get_text("/observation")
        self.task = self._task(reply, text)
        return self.task, Observation(text, self._actions(reply, "/reset"))

    def step(self, action: str) -> StepResult:
        reply = self._call("POST", "/step", {self.dialect.id_field: self.env_id, "action": action})
        if not isinstance(reply, dict):
            raise self._violation("/step", f"expected a JSON object, got {snippet(repr(reply))}")
        text = self._observation_text(reply, "/step", required=True)
        reward, done = reply.get("reward", 0.0), reply.get("done")
        if not isinstance(reward, (int, float)) or isinstance(reward, bool) or not isinstance(done, bool):
            raise self._violation("/step", f"needs a numeric `reward` and a boolean `done`, got {snippet(repr(reply))}")
        won = reply["won"] if isinstance(reply.get("won"), bool) else reward >= self.dialect.success_reward
        info = dict(reply.get("info") or {}) if isinstance(reply.get("info"), dict) else {}
        score = reply.get("score", reward)
        info.update(reward=float(reward), score=float(score) if isinstance(score, (int, float)) else float(reward))
        return StepResult(Observation(text, self._actions(reply, "/step")), done or won, won, info)

    def close(self) -> None:
        if self.env_id is None:
            return
        try:
            self.client.post("/close", {self.dialect.id_field: self.env_id})
        except HttpFailure:
            pass  # not every server has /close, and a dead one has nothing left to free
        self.env_id = None

    # --- replies --------------------------------------------------------------------------------------------------

    def _where(self, path: str) -> str:
        return f"episode {self.task.id} (environment {self.env_id} at {self.source.url}{path})"

    def _violation(self, path: str, problem: str) -> EnvironmentFailure:
        return EnvironmentFailure(f"{self._where(path)}: protocol violation: {problem}", self.task)

    def _call(self, method: str, path: str, body: Any = None, params: dict | None = None) -> Any:
        idempotent = path != "/step"
        try:
            if method == "GET":
                reply = self.client.get(path, params)
            else:
                reply = self.client.post(path, body, idempotent=idempotent)
        except HttpFailure as failure:
            raise EnvironmentFailure(f"{self._where(path)}: {failure}", self.task) from None
        if isinstance(reply, dict) and "error" in reply:
            raise EnvironmentFailure(
                f"{self._where(path)}: the server reports: {snippet(str(reply['error']))}", self.task
            )
        return reply

    def _get_text(self, path: str) -> str:
        reply = self._call("GET", path, params={self.dialect.id_field: self.env_id})
        if not isinstance(reply, str):
            raise self._violation(path, f"expected a string, got {snippet(repr(reply))}")
        return reply

    def _observation_text(self, reply: dict, path: str, *, required: bool) -> str:
        for name in self.dialect.observation_fields:
            if isinstance(reply.get(name), str):
                return reply[name]
        if required:
            names = " or ".join(f"`{n}`" for n in self.dialect.observation_fields)
            raise self._violation(path, f"no string {names} in the reply {snippet(repr(reply))}")
        return ""

    def _actions(self, reply: dict, path: str) -> list[str]:
        kind = self.dialect.actions
        if kind == "none":
            return []
        if kind == "webshop":
            page = self._call("GET", "/available_actions", params={self.dialect.id_field: self.env_id})
            clickables = page.get("clickables") if isinstance(page, dict) else None
            if not isinstance(clickables, list) or not all(isinstance(c, str) for c in clickables):
                raise self._violation(
                    "/available_actions", f"expected {{has_search_bar, clickables}}, got {snippet(repr(page))}"
                )
            return (["search[<your query>]"] if page.get("has_search_bar") else []) + [
                f"click[{c}]" for c in clickables
            ]
        actions = reply.get("available_actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise self._violation(path, f"`available_actions` must be a list of strings, got {snippet(repr(actions))}")
        return actions

    def _task(self, reply: dict, observation: str) -> Task:
        """The task: our servers send it whole; AgentGym's give a type (ALFWorld's game path) or nothing, and the
        description is the instruction endpoint's text or the observation's "Your task is to:" line."""
        given = reply.get("task")
        if isinstance(given, dict) and all(isinstance(given.get(k), str) for k in ("id", "type", "description")):
            return Task(given["id"], given["type"], given["description"], self.spec.split)
        task_type = self.spec.task_type or self.dialect.task_type or "unknown"
        if isinstance(reply.get("task_type"), str) and reply["task_type"]:
            task_type = reply["task_type"].split("/")[0].split("-")[0]  # ALFWorld's task folder → its task type
        if self.dialect.instruction_endpoint:
            description = re.sub(r"^\s*Instruction:\s*", "", self._get_text(self.dialect.instruction_endpoint))
        else:
            match = TASK_LINE.search(observation)
            description = match.group(1).strip() if match else ""
        return Task(f"{self.spec.split}-{self.spec.index}", task_type, description, self.spec.split)
