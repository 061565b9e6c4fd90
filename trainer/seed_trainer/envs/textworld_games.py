"""`textworld`: generated TextWorld games (Côté et al.), a real third-party text world, built in through the
`textworld` extra (`pip install 'seed-trainer[textworld]'`; the PyPI package ships its Inform 7 compiler and `tw-make`,
so games are generated offline).

Games come from `tw-make` (TextWorld's generator) by kind and settings:
- `cooking` (`tw-make tw-cooking`): settings `recipe` (ingredients), `take` (ingredients to find), `go` (rooms: 1, 6, 9
  or 12), and the flags `open`, `cook`, `cut`;
- `coin_collector` and `treasure_hunter`: setting `level`.
`variants` maps task-type names to settings (default: one type named after the kind); every split has games of
each variant. Splits are drawn by seed: `train` and `valid_seen` from the same distribution with disjoint seeds,
`valid_unseen` with different settings — for cooking, TextWorld's `test` food split (ingredients and preparations
never in train), for the others the next `level`. Generated games are cached under `cache_dir`
(default `~/.cache/seed-studio/textworld`), keyed by kind, settings and seed, so a split is generated once.
`games_dir` instead loads games already made: `<games_dir>/<split>/[<task type>/]*.z8`.

Each step: the feedback without TextWorld's banner, the admissible commands, `won`; the score (points over the
maximum) goes into `info["score"]`. The task is the game's objective. Prompt: ALFWorld's shape, opening on TextWorld.
Options: `kind` (cooking), `variants`, `games_per_split` (`{train: 100, valid_seen: 20, valid_unseen: 20}` per
variant), `cache_dir`, `games_dir`, `max_steps` (30).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seed_trainer.envs.base import Observation, StepResult, Task
from seed_trainer.envs.sampling import draw
from seed_trainer.envs.step_prompts import step_prompt_with_intro

KINDS = {
    "cooking": ("tw-cooking", {"recipe": 1, "take": 1, "go": 1, "open": False, "cook": False, "cut": False}),
    "coin_collector": ("tw-coin_collector", {"level": 1}),
    "treasure_hunter": ("tw-treasure_hunter", {"level": 1}),
}
SPLITS = ("train", "valid_seen", "valid_unseen")
DEFAULT_GAMES = {"train": 100, "valid_seen": 20, "valid_unseen": 20}
DEFAULT_MAX_STEPS = 30
INTRO = "You are an expert agent playing a text adventure game (TextWorld)."
INSTALL = "pip install 'seed-trainer[textworld]'"
_LETTER = re.compile(r"[A-Za-z]{2}")


def strip_banner(text: str) -> str:
    """TextWorld's first feedback opens with ASCII art: drop the leading lines that hold no word."""
    lines = text.splitlines()
    while lines and not _LETTER.search(lines[0]):
        lines.pop(0)
    return "\n".join(lines).strip()


def unseen_settings(kind: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The settings of `valid_unseen`: TextWorld's unseen food split for cooking, the next level for the others."""
    return {**settings, "split": "test"} if kind == "cooking" else {**settings, "level": int(settings["level"]) + 1}


def tw_make_arguments(kind: str, settings: dict[str, Any], seed: int, output: Path) -> list[str]:
    challenge, _ = KINDS[kind]
    arguments = [challenge]
    for name, value in settings.items():
        if value is True:
            arguments.append(f"--{name}")
        elif value is not False and value is not None:
            arguments += [f"--{name}", str(value)]
    return arguments + ["--seed", str(seed), "--output", str(output), "-f", "--silent"]


def game_seed(split: str, variant: str, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"textworld|{split}|{variant}|{index}".encode()).digest()[:4], "big")


@dataclass(frozen=True)
class GameSpec:
    split: str
    task_type: str
    path: str


class TextWorldEnv:
    """One game. `guided` also asks TextWorld for `policy_commands` (the shortest way to win from the current state,
    in `remaining`; empty once the game can no longer be won): what the demonstrator follows, not for policies."""

    def __init__(self, spec: GameSpec, max_steps: int, guided: bool = False) -> None:
        self.spec, self.max_steps, self.steps, self.guided = spec, max_steps, 0, guided
        self.remaining: list[str] | None = None
        self.task: Task | None = None
        import textworld

        infos = textworld.EnvInfos(
            admissible_commands=True,
            won=True,
            lost=True,
            score=True,
            max_score=True,
            objective=True,
            policy_commands=guided,
        )
        with warnings.catch_warnings():
            # jericho flags every generated game as "not fully supported"; TextWorld keeps the score itself
            warnings.filterwarnings("ignore", message=".*is not fully supported.*")
            self.env = textworld.start(spec.path, request_infos=infos)
        self.max_score = 1

    def reset(self) -> tuple[Task, Observation]:
        state = self.env.reset()
        self.steps, self.max_score = 0, max(int(state["max_score"] or 1), 1)
        self._guide(state)
        task = Task(
            f"{self.spec.split}/{self.spec.task_type}/{Path(self.spec.path).stem}",
            self.spec.task_type,
            " ".join(str(state["objective"]).split()),
            self.spec.split,
        )
        self.task = task
        return task, Observation(strip_banner(state.feedback), sorted(state["admissible_commands"] or []))

    def step(self, action: str) -> StepResult:
        self.steps += 1
        state, score, done = self.env.step(action)
        won = bool(state["won"])
        self._guide(state)
        done = bool(done) or won or bool(state["lost"]) or self.steps >= self.max_steps
        observation = Observation(" ".join(state.feedback.split()), sorted(state["admissible_commands"] or []))
        return StepResult(observation, done, won, {"score": score / self.max_score})

    def _guide(self, state) -> None:
        if self.guided:
            self.remaining = list(state["policy_commands"] or []) if not state["lost"] else []

    def close(self) -> None:
        self.env.close()


class TextWorldTasks:
    """The TaskSource of generated TextWorld games."""

    name = "textworld"
    step_prompt = staticmethod(step_prompt_with_intro(INTRO))

    def __init__(
        self,
        kind: str = "cooking",
        variants: dict[str, dict[str, Any]] | None = None,
        games_per_split: dict[str, int] | None = None,
        cache_dir: str | None = None,
        games_dir: str | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
    ) -> None:
        if importlib.util.find_spec("textworld") is None:
            raise ValueError(f"textworld: the textworld package is not installed in the trainer's Python: {INSTALL}")
        if kind not in KINDS:
            raise ValueError(f"environment.options.kind: unknown {kind!r} (known: {', '.join(KINDS)})")
        if int(max_steps) < 1:
            raise ValueError("environment.options.max_steps: must be at least 1")
        self.kind, self.max_steps = kind, int(max_steps)
        defaults = KINDS[kind][1]
        self.variants: dict[str, dict[str, Any]] = {}
        for task_type, settings in (variants or {kind: {}}).items():
            unknown = sorted(set(settings or {}) - set(defaults))
            if unknown:
                raise ValueError(
                    f"environment.options.variants.{task_type}: unknown setting(s) {', '.join(unknown)} "
                    f"for {kind} (known: {', '.join(defaults)})"
                )
            self.variants[task_type] = {**defaults, **(settings or {})}
        self.task_types: Sequence[str] = list(self.variants)
        self.counts = {**DEFAULT_GAMES, **(games_per_split or {})}
        self.cache = Path(cache_dir or Path.home() / ".cache" / "seed-studio" / "textworld").expanduser()
        self.games_dir = Path(games_dir).expanduser() if games_dir else None
        self._games: dict[str, list[GameSpec]] = {}

    def games(self, split: str) -> list[GameSpec]:
        """The games of a split, generated (or loaded) on first use."""
        if split not in self._games:
            self._games[split] = self._load(split) if self.games_dir else self._generate(split)
        return self._games[split]

    def _load(self, split: str) -> list[GameSpec]:
        folder = self.games_dir / split
        found = sorted(folder.glob("*.z8")) + sorted(folder.glob("*/*.z8"))
        if not found:
            raise ValueError(f"textworld: no games (*.z8) in {folder}")
        return [GameSpec(split, p.parent.name if p.parent != folder else self.kind, str(p)) for p in found]

    def _generate(self, split: str) -> list[GameSpec]:
        games = []
        for task_type, settings in self.variants.items():
            if split == "valid_unseen":
                settings = unseen_settings(self.kind, settings)
            elif self.kind == "cooking":
                settings = {**settings, "split": "train"}
            # valid_seen draws the same distribution as train with other seeds
            for index in range(int(self.counts.get(split, 0))):
                seed = game_seed(split, task_type, index)
                key = hashlib.sha256(json.dumps([self.kind, settings, seed], sort_keys=True).encode()).hexdigest()[:16]
                path = self.cache / f"{self.kind}-{key}.z8"
                if not path.exists():
                    generate_game(self.kind, settings, seed, path)
                games.append(GameSpec(split, task_type, str(path)))
        if not games:
            raise ValueError(f"textworld: no games for split {split!r} (environment.options.games_per_split)")
        return games

    def sample(self, split: str, count: int, seed: int, task_types: Sequence[str] | None = None) -> list[GameSpec]:
        if split not in SPLITS:
            raise ValueError(f"textworld: unknown split {split!r} (known: {', '.join(SPLITS)})")
        pool = [g for g in self.games(split) if not task_types or g.task_type in task_types]
        if not pool:
            raise ValueError(f"textworld: split {split!r} has no game of type {', '.join(task_types or [])}")
        return draw(pool, count, seed, key=lambda g: g.path)

    def make(self, spec: GameSpec, guided: bool = False) -> TextWorldEnv:
        return TextWorldEnv(spec, self.max_steps, guided=guided)

    def oracle_analysis(self, spec: GameSpec, episode: Any) -> str:
        """The analyzer's JSON reply for a finished episode (seed_trainer.rl.rollout.Episode), from the game's walkthrough."""
        from seed_trainer.envs.textworld_oracle import analysis_reply, walkthrough

        return analysis_reply(
            walkthrough(spec.path),
            episode.task.description,
            [step.action for step in episode.steps],
            [step.admissible_actions for step in episode.steps],
            bool(episode.won),
        )


def generate_game(kind: str, settings: dict[str, Any], seed: int, path: Path) -> None:
    """One game by `tw-make`, written to a temporary name of this process and renamed, so a cut-off generation leaves
    no game and two runs that share a cache never write the same file (the same seed makes the same game)."""
    script = Path(sys.executable).parent / "tw-make"
    script = script if script.exists() else Path(shutil.which("tw-make") or "tw-make")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.partial-{os.getpid()}.z8")
    command = [sys.executable, str(script), *tw_make_arguments(kind, settings, seed, partial)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0 or not partial.exists():
        raise RuntimeError(
            f"textworld: tw-make failed for {kind} {settings} seed {seed}: "
            f"{(done.stderr or done.stdout).strip()[-500:]}"
        )
    for suffix in (".json", ".ni"):  # the game's metadata, which textworld.start reads next to it
        side = partial.with_suffix(suffix)
        if side.exists():
            side.replace(path.with_suffix(suffix))
    partial.replace(path)
