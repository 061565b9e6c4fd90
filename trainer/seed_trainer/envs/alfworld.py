"""`alfworld`: the ALFWorld text games (Shridhar et al.), SEED's main benchmark, played in-process through TextWorld as
ALFWorld's `AlfredTWEnv` plays them (the `alfworld` extra: `pip install 'seed-trainer[alfworld]'`).

Data: ALFWorld's games are a separate download, `alfworld-download`, which writes `json_2.1.1/` under
`$ALFWORLD_DATA` (default `~/.cache/alfworld`). A game is `json_2.1.1/<split>/<task dir>/<trial>/game.tw-pddl`; the
splits are `train` (3553 games), `valid_seen` (140, ALFWorld's in-distribution evaluation) and `valid_unseen` (134,
out of distribution). As `AlfredTWEnv` does, games under `movable`/`Sliced` folders and games not marked solvable are
left out. The task type is the task folder's prefix (`pick_clean_then_place_in_recep-Mug-None-CoffeeMachine-10` →
`pick_clean_then_place_in_recep`), one of ALFWorld's six.

Each step: the observation text without TextWorld's banner, the admissible commands (without `help`), `won` from the
game. The task is the "Your task is to: …" sentence of the first observation. Step limit: `max_steps` (30 as SEED
trains; SDAR used 50). Options: `data_dir` (default `$ALFWORLD_DATA`), `max_steps`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from seed_trainer.envs.base import Observation, StepResult, Task
from seed_trainer.envs.sampling import draw
from seed_trainer.envs.step_prompts import step_prompt_with_intro

TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)
SPLITS = ("train", "valid_seen", "valid_unseen")
DEFAULT_MAX_STEPS = 30
GAMES_DIR = "json_2.1.1"
INTRO = "You are an expert agent acting in ALFRED's embodied household, in its text version (ALFWorld)."
GET_DATA = (
    "Get the data with `pip install 'seed-trainer[alfworld]'` and then `alfworld-download` (it writes json_2.1.1/ "
    "under $ALFWORLD_DATA, default ~/.cache/alfworld), or point ALFWORLD_DATA or environment.options.data_dir at a "
    "folder that holds json_2.1.1/."
)

_BANNER = re.compile(r"^\s*-=\s*Welcome to TextWorld, ALFRED!\s*=-\s*", re.IGNORECASE)
_TASK = re.compile(r"\n*\s*Your task is to:\s*(.+?)\s*$", re.IGNORECASE | re.DOTALL)


class Game(Protocol):
    """One ALFWorld game, unbatched: what the adapter needs of TextWorld."""

    def reset(self) -> tuple[str, dict[str, Any]]: ...

    def step(self, command: str) -> tuple[str, bool, dict[str, Any]]: ...


def task_type_of(game_path: str | Path) -> str:
    """ALFWorld's task type from a game's path (the task folder's name up to its first `-`)."""
    parts = Path(game_path).parts
    for part in reversed(parts[:-1]):
        prefix = part.split("-", 1)[0]
        if prefix in TASK_TYPES:
            return prefix
    raise ValueError(f"{game_path}: no ALFWorld task type in the path (expected a folder named <task type>-…)")


def split_first_observation(text: str) -> tuple[str, str]:
    """(observation, task): the first observation without the banner and the task sentence, and the task."""
    text = _BANNER.sub("", text.strip())
    match = _TASK.search(text)
    if not match:
        return text.strip(), ""
    return text[: match.start()].strip(), match.group(1).strip()


def admissible(commands: Sequence[str]) -> list[str]:
    """The admissible commands the agent is offered: ALFWorld's list without `help` (as verl-agent)."""
    return [c for c in commands if c.strip() and c != "help"]


def data_dir(option: str | None = None) -> Path:
    return Path(option or os.environ.get("ALFWORLD_DATA") or Path.home() / ".cache" / "alfworld").expanduser()


def find_games(root: Path, split: str) -> list[Path]:
    """The playable games of a split, sorted: solvable, not `movable`/`Sliced` (AlfredTWEnv's selection)."""
    games = []
    for path in sorted((root / GAMES_DIR / split).glob("*/*/game.tw-pddl")):
        if "movable" in str(path.parent) or "Sliced" in str(path.parent):
            continue
        try:
            solvable = json.loads(path.read_text(encoding="utf-8")).get("solvable", False)
        except (OSError, ValueError):
            continue
        if solvable and path.parent.parent.name.split("-", 1)[0] in TASK_TYPES:
            games.append(path)
    return games


@dataclass(frozen=True)
class AlfworldSpec:
    split: str
    game: str  # path of game.tw-pddl
    task_type: str


class AlfworldEnv:
    """One episode of one ALFWorld game."""

    def __init__(self, spec: AlfworldSpec, game: Game, max_steps: int) -> None:
        self.spec, self.game, self.max_steps = spec, game, max_steps
        self.steps = 0
        self.task: Task | None = None

    def reset(self) -> tuple[Task, Observation]:
        text, infos = self.game.reset()
        observation, description = split_first_observation(text)
        trial = Path(self.spec.game).parent
        self.task = Task(
            f"{self.spec.split}/{trial.parent.name}/{trial.name}", self.spec.task_type, description, self.spec.split
        )
        self.steps = 0
        return self.task, Observation(observation, admissible(infos.get("admissible_commands") or []))

    def step(self, action: str) -> StepResult:
        self.steps += 1
        text, done, infos = self.game.step(action)
        won = bool(infos.get("won"))
        done = bool(done) or won or self.steps >= self.max_steps
        commands = admissible(infos.get("admissible_commands") or [])
        return StepResult(Observation(_BANNER.sub("", text).strip(), commands), done, won, {"won": won})


class AlfworldTasks:
    """The TaskSource of ALFWorld."""

    name = "alfworld"
    task_types: Sequence[str] = TASK_TYPES
    step_prompt = staticmethod(step_prompt_with_intro(INTRO))

    def __init__(
        self,
        data_dir: str | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        *,
        game_factory: Callable[[str, int], Game] | None = None,
    ) -> None:
        if int(max_steps) < 1:
            raise ValueError("environment.options.max_steps: must be at least 1")
        self.max_steps = int(max_steps)
        if game_factory is None and importlib.util.find_spec("alfworld") is None:
            raise ValueError(
                "alfworld: the alfworld package is not installed in the trainer's Python: "
                f"pip install 'seed-trainer[alfworld]'. {GET_DATA}"
            )
        self.root = _data_dir(data_dir)
        self.games = {split: find_games(self.root, split) for split in SPLITS}
        missing = [split for split, games in self.games.items() if not games]
        if missing:
            raise ValueError(
                f"alfworld: no ALFWorld games for {', '.join(missing)} under {self.root / GAMES_DIR}. {GET_DATA}"
            )
        self.game_factory = game_factory or textworld_game

    def sample(self, split: str, count: int, seed: int, task_types: Sequence[str] | None = None) -> list[AlfworldSpec]:
        """`count` games of `split`, task types in turn when `task_types` is given, in a seeded order without repeats
        while the split lasts."""
        if split not in self.games:
            raise ValueError(f"alfworld: unknown split {split!r} (known: {', '.join(SPLITS)})")
        types = list(task_types) if task_types else None
        unknown = [t for t in types or [] if t not in TASK_TYPES]
        if unknown:
            raise ValueError(f"alfworld: unknown task type(s) {', '.join(unknown)} (known: {', '.join(TASK_TYPES)})")
        pool = [(str(path), task_type_of(path)) for path in self.games[split]]
        if types:
            pool = [item for item in pool if item[1] in types]
            if not pool:
                raise ValueError(f"alfworld: split {split!r} has no game of type {', '.join(types)}")
        return [
            AlfworldSpec(split, path, task_type)
            for path, task_type in draw(pool, count, seed, key=lambda item: item[0])
        ]

    def make(self, spec: AlfworldSpec) -> AlfworldEnv:
        return AlfworldEnv(spec, self.game_factory(spec.game, self.max_steps), self.max_steps)


def _data_dir(option: str | None) -> Path:
    root = data_dir(option)
    if not (root / GAMES_DIR).is_dir():
        raise ValueError(f"alfworld: ALFWorld's data is not at {root} (no {GAMES_DIR}/ folder). {GET_DATA}")
    return root


class _TextWorldGame:
    """One game through TextWorld's gym interface with ALFWorld's wrappers, as `AlfredTWEnv.init_env` sets it up
    (demangled object names, the game file in the infos), batch size 1."""

    def __init__(self, game_file: str, max_steps: int) -> None:
        import textworld
        import textworld.gym
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

        infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
        env_id = textworld.gym.register_games(
            [game_file],
            infos,
            batch_size=1,
            asynchronous=False,
            max_episode_steps=max_steps,
            wrappers=[AlfredDemangler(shuffle=False), AlfredInfos],
        )
        self.env = textworld.gym.make(env_id)

    def reset(self) -> tuple[str, dict[str, Any]]:
        observations, infos = self.env.reset()
        return observations[0], {key: value[0] for key, value in infos.items()}

    def step(self, command: str) -> tuple[str, bool, dict[str, Any]]:
        observations, _scores, dones, infos = self.env.step([command])
        return observations[0], bool(dones[0]), {key: value[0] for key, value in infos.items()}


def textworld_game(game_file: str, max_steps: int) -> Game:
    try:
        return _TextWorldGame(game_file, max_steps)
    except ImportError as exc:
        raise RuntimeError(
            f"alfworld: the alfworld package is not installed in this Python ({exc.name} is missing): "
            "pip install 'seed-trainer[alfworld]'"
        ) from None
