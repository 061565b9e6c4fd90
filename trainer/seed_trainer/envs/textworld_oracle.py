"""Who knows how to win a generated TextWorld game: its walkthrough, a demonstrator that plays it with mistakes, and
the oracle analyzer that writes the skill a perfect hindsight would.

- `walkthrough(game_path)`: the winning commands `tw-make` stored with the game (its metadata, or TextWorld's own
  `Game.walkthrough`), without the commands that change nothing (`inventory`, `look`).
- `demonstrate(env, plan, rng, rates)` plays an episode: it reads the cookbook first (when the walkthrough does), then
  follows TextWorld's `policy_commands` — the shortest way to win from the current state, so it recovers from its
  own detours — and injects *mistakes* at a chosen rate: inadmissible commands (and repeating them), not reading the
  cookbook, taking an item the recipe does not need, preparing an ingredient the wrong way (which can spoil the
  meal: the game is then lost), detours. Each step is written as a policy response `<think>…</think><action>…</action>`.
- `analysis_reply(plan, objective, commands, admissible, won)`: the Stage-1 skill JSON of a finished episode. Like the
  household oracle's, the skill is a rule for the policy: for a success the workflow of the game (read the recipe,
  then its steps in order); for a failure the mistakes this trajectory made — found by comparing its commands with the
  walkthrough and the admissible commands of each step — turned into rules that say what to do instead.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

READ = "examine cookbook"
IDLE = frozenset({"inventory", "look"})
PREPARE = ("cook", "slice", "dice", "chop")
MISTAKES = ("invalid", "skip_cookbook", "wrong_take", "wrong_prepare", "detour")
# commands a generated game never admits (no such exit or action): what an "invalid" mistake sends
NEVER = ("go north", "go south", "go east", "go west", "open counter", "take stove", "cook cookbook")


@lru_cache(maxsize=4096)
def _walkthrough(game_path: str) -> tuple[str, ...]:
    metadata = Path(game_path).with_suffix(".json")
    commands = None
    try:
        commands = json.loads(metadata.read_text(encoding="utf-8")).get("metadata", {}).get("walkthrough")
    except (OSError, ValueError):
        pass
    if commands is None:
        import textworld

        commands = textworld.Game.load(str(metadata)).walkthrough
    if not commands:
        raise ValueError(f"textworld: game {game_path} has no walkthrough (its .json metadata is missing)")
    return tuple(c for c in commands if c not in IDLE)


def walkthrough(game_path: str | Path) -> list[str]:
    """The game's winning commands, without `inventory` / `look`."""
    return list(_walkthrough(str(game_path)))


def verb(command: str) -> str:
    return command.split(" ", 1)[0]


def subject(command: str) -> str:
    """`take red potato from counter` → `red potato`; `cook red potato with stove` → `red potato`."""
    rest = command.split(" ", 1)[1] if " " in command else ""
    for joint in (" from ", " with ", " into ", " on ", " in "):
        rest = rest.split(joint, 1)[0]
    return rest


# --- the analyzer ------------------------------------------------------------------------------------------------


@dataclass
class Findings:
    """What a trajectory did against the walkthrough."""

    steps: int = 0
    invalid: int = 0  # commands not admissible at their step
    repeated_invalid: int = 0  # an inadmissible command sent again right after
    read_cookbook: bool = False
    wrong_takes: list[str] = field(default_factory=list)  # items taken that the recipe does not need
    wrong_prepares: list[str] = field(default_factory=list)  # cook / cut commands the walkthrough does not have
    wrong_eats: int = 0  # eating anything but the prepared meal before it was ready
    detours: int = 0  # admissible commands that do not advance the walkthrough (examining, opening other things)
    progress: int = 0  # walkthrough commands done
    won: bool = False


def classify(command: str, admissible: Sequence[str], plan: Sequence[str]) -> str:
    """right | invalid | wrong_take | wrong_prepare | wrong_eat | detour."""
    if command in plan:
        return "right"
    if command not in admissible:
        return "invalid"
    kind = verb(command)
    if kind == "take":
        return "wrong_take"
    if kind in PREPARE:
        return "wrong_prepare"
    if kind in ("eat", "drink"):
        return "wrong_eat"
    return "detour"


def replay(plan: Sequence[str], commands: Sequence[str], admissible: Sequence[Sequence[str]], won: bool) -> Findings:
    found = Findings(steps=len(commands), won=won)
    previous_invalid = None
    done: set[str] = set()
    for command, allowed in zip(commands, admissible):
        kind = classify(command, allowed, plan)
        if command == READ:
            found.read_cookbook = True
        if kind == "invalid":
            found.invalid += 1
            found.repeated_invalid += command == previous_invalid
            previous_invalid = command
            continue
        previous_invalid = None
        if kind == "right":
            done.add(command)
        elif kind == "wrong_take":
            found.wrong_takes.append(subject(command))
        elif kind == "wrong_prepare":
            found.wrong_prepares.append(command)
        elif kind == "wrong_eat":
            found.wrong_eats += 1
        elif kind == "detour":
            found.detours += 1
    found.progress = len(done)
    return found


def _listing(items: Sequence[str]) -> str:
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else (items[0] if items else "")


def workflow(plan: Sequence[str]) -> str:
    """The success rule: the order of the winning commands, opening with the cookbook in cooking games."""
    steps = [c for c in plan if c != READ]
    if READ in plan:
        return f"Examine the cookbook first, then follow its recipe in order: {'; '.join(steps)}."
    return f"Follow the task's directions in order: {'; '.join(steps)}."


RULES = {
    "invalid": "Pick only commands from the admissible list; never repeat a command that did not work.",
    "skip_cookbook": "Examine the cookbook first: it names the ingredients and how to prepare each one.",
    "detour": "Do not wander: every command should do the next step of the recipe.",
}


def _prepare_rule(plan: Sequence[str]) -> str:
    prepares = [c for c in plan if verb(c) in PREPARE]
    if not prepares:
        return "Do not cook or cut anything the recipe does not ask for: it spoils the meal."
    return f"Prepare only as the recipe says ({'; '.join(prepares)}): any other cooking or cutting spoils the meal."


def _take_rule(plan: Sequence[str]) -> str:
    needed = [subject(c) for c in plan if verb(c) == "take"]
    return f"Take only what the recipe needs ({_listing(needed)}) and leave everything else."


def failure_rules(plan: Sequence[str], f: Findings) -> list[str]:
    """The rules a failed trajectory calls for, most important first."""
    rules: list[tuple[int, str]] = []
    if f.wrong_prepares:
        rules.append((0, _prepare_rule(plan)))
    if f.wrong_takes:
        rules.append((1, _take_rule(plan)))
    if READ in plan and not f.read_cookbook:
        rules.append((2, RULES["skip_cookbook"]))
    if f.repeated_invalid or f.invalid >= 2:
        rules.append((3, RULES["invalid"]))
    if f.wrong_eats:
        rules.append((4, 'Eat only the meal, after "prepare meal" has made it.'))
    if f.detours >= 2:
        rules.append((5, RULES["detour"]))
    if f.invalid == 1:
        rules.append((6, RULES["invalid"]))
    if f.detours == 1:
        rules.append((7, RULES["detour"]))
    rules.append((12, workflow(plan)))
    seen, ordered = set(), []
    for _rank, rule in sorted(rules, key=lambda r: r[0]):
        if rule not in seen:
            seen.add(rule)
            ordered.append(rule)
    return ordered


WORKFLOW_KINDS = frozenset({"skip_cookbook", "wrong_take", "wrong_prepare"})


def rule_kinds(plan: Sequence[str], f: Findings) -> set[str]:
    """Which demonstrator mistakes the skill of this episode speaks against (the bootstrap conditions demos on it)."""
    if f.won:
        return set(WORKFLOW_KINDS)
    rules = failure_rules(plan, f)[:2]
    kinds = {kind for kind, text in RULES.items() if text in rules}
    if _prepare_rule(plan) in rules:
        kinds.add("wrong_prepare")
    if _take_rule(plan) in rules:
        kinds.add("wrong_take")
    if workflow(plan) in rules:
        kinds |= WORKFLOW_KINDS
    return kinds


def summarize(plan: Sequence[str], f: Findings, objective: str) -> str:
    outcome = "success" if f.won else "failure"
    mistakes = []
    if f.invalid:
        mistakes.append(f"{f.invalid} command(s) were not admissible")
    if READ in plan and not f.read_cookbook:
        mistakes.append("the cookbook was never read")
    if f.wrong_takes:
        mistakes.append(f"took {_listing(f.wrong_takes)}, which the recipe does not need")
    if f.wrong_prepares:
        mistakes.append(f"{_listing(f.wrong_prepares)} spoiled an ingredient")
    if f.detours:
        mistakes.append(f"{f.detours} detour(s)")
    if not f.won:
        mistakes.append(f"{f.progress} of {len(plan)} steps of the walkthrough done")
    return (
        f"Task: {objective} Outcome: {outcome} after {f.steps} step(s). "
        f"Mistakes: {'; '.join(mistakes) if mistakes else 'none'}."
    )


def analyze(
    plan: Sequence[str], objective: str, commands: Sequence[str], admissible: Sequence[Sequence[str]], won: bool
) -> dict[str, str]:
    """{"episode_summary", "episode_skill"} of a finished episode."""
    findings = replay(plan, commands, admissible, won)
    skill = workflow(plan) if won else " ".join(failure_rules(plan, findings)[:2])
    return {"episode_summary": summarize(plan, findings, objective), "episode_skill": skill}


def analysis_reply(
    plan: Sequence[str], objective: str, commands: Sequence[str], admissible: Sequence[Sequence[str]], won: bool
) -> str:
    return json.dumps(analyze(plan, objective, commands, admissible, won), ensure_ascii=False)


# --- the demonstrator --------------------------------------------------------------------------------------------


THINK = {
    "examine": "I read the recipe first.",
    "take": "The recipe needs this; I take it.",
    "open": "I open it to get what is inside.",
    "go": "I go where the next step is.",
    "prepare": "Everything is ready; I prepare the meal.",
    "eat": "The meal is ready; I eat it.",
}
THINK_PREPARE = "The recipe says to prepare it this way."
THINK_OTHER = "This is the next step."


@dataclass
class Decision:
    action: str
    mistake: str | None = None
    after_failure: bool = False  # the previous command was not admissible: the think says so

    @property
    def think(self) -> str:
        kind = verb(self.action)
        text = THINK_PREPARE if kind in PREPARE else THINK.get(kind, THINK_OTHER)
        return ("That did not work. " + text) if self.after_failure and self.mistake != "invalid" else text

    @property
    def response(self) -> str:
        return f"<think>{self.think}</think><action>{self.action}</action>"


class Demonstrator:
    """Chooses each command of an episode from the walkthrough and TextWorld's `policy_commands`, with mistakes.

    `rates` maps a mistake kind to its probability at a step where it applies; `repeat_invalid` is the probability of
    sending an inadmissible command again right after it failed.
    """

    def __init__(
        self,
        plan: Sequence[str],
        rng: random.Random,
        rates: dict[str, float] | None = None,
        repeat_invalid: float = 0.0,
    ) -> None:
        self.plan, self.rng = list(plan), rng
        self.rates = {kind: 0.0 for kind in MISTAKES} | dict(rates or {})
        self.repeat_invalid = repeat_invalid
        self.read = READ not in self.plan  # nothing to read in games without a cookbook
        self.last_invalid: str | None = None

    def _chance(self, kind: str) -> bool:
        return self.rng.random() < self.rates.get(kind, 0.0)

    def decide(self, admissible: Sequence[str], remaining: Sequence[str] | None) -> Decision | None:
        """The next command, or None when the game cannot be won any more (nothing left to demonstrate)."""
        decision = self._choose(admissible, remaining)
        if decision is not None:
            decision.after_failure = self.last_invalid is not None
        return decision

    def _choose(self, admissible: Sequence[str], remaining: Sequence[str] | None) -> Decision | None:
        if self.last_invalid is not None and self.rng.random() < self.repeat_invalid:
            return Decision(self.last_invalid, "invalid")
        if not self.read:
            self.read = True
            if not self._chance("skip_cookbook"):
                return Decision(READ)
        if not remaining:
            return None
        right = remaining[0]
        if self._chance("invalid"):
            choices = [c for c in NEVER if c not in admissible]
            if choices:
                return Decision(self.rng.choice(choices), "invalid")
        if verb(right) in PREPARE and self._chance("wrong_prepare"):
            choices = [c for c in admissible if verb(c) in PREPARE and c not in self.plan]
            same = [c for c in choices if subject(c) == subject(right)]
            if same or choices:
                return Decision(self.rng.choice(same or choices), "wrong_prepare")
        if verb(right) == "take" and self._chance("wrong_take"):
            needed = {subject(c) for c in self.plan if verb(c) == "take"}
            choices = [c for c in admissible if verb(c) == "take" and subject(c) not in needed and "cookbook" not in c]
            if choices:
                return Decision(self.rng.choice(choices), "wrong_take")
        if self._chance("detour"):
            choices = [
                c for c in admissible if verb(c) in ("examine", "open", "close") and c not in self.plan and c != READ
            ]
            if choices:
                return Decision(self.rng.choice(choices), "detour")
        return Decision(right)

    def after(self, decision: Decision, admissible_before: Sequence[str]) -> None:
        self.last_invalid = decision.action if decision.action not in admissible_before else None


def demonstrate(
    env: Any,
    plan: Sequence[str],
    rng: random.Random,
    rates: dict[str, float] | None = None,
    repeat_invalid: float = 0.0,
    max_steps: int | None = None,
):
    """Plays one episode of a guided `TextWorldEnv`; returns (steps, won) with steps = [(observation, decision)]."""
    _task, observation = env.reset()
    agent = Demonstrator(plan, rng, rates, repeat_invalid)
    steps, won = [], False
    for _ in range(max_steps or env.max_steps):
        decision = agent.decide(observation.admissible_actions, env.remaining)
        if decision is None:
            break
        steps.append((observation, decision))
        result = env.step(decision.action)
        agent.after(decision, observation.admissible_actions)
        observation, won = result.observation, result.won
        if result.done:
            break
    return steps, won
