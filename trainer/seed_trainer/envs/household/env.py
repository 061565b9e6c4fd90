"""One episode in a generated household: the state machine behind ALFWorld-style commands and observations.

Commands (each admissible only where it makes sense; anything else answers "Nothing happens."):
`go to R`, `open R`, `close R`, `take O from R`, `put O in/on R`, `clean O with R`, `heat O with R`, `cool O with R`,
`use L`, `examine X`, `look`, `inventory`. The agent carries one object at a time; closed containers (cabinets,
drawers, fridge, microwave, safe) show their contents only once opened, and only open ones can be taken from or put
into. The admissible actions of every step come sorted, as ALFWorld lists them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from seed_trainer.envs.base import Observation, StepResult, Task
from seed_trainer.envs.household import catalogue, world
from seed_trainer.envs.household.catalogue import CLEAN, COOL, HEAT, LOOK, PICK, TWO
from seed_trainer.envs.household.world import Instance, receptacle_type

NOTHING = "Nothing happens."
DEFAULT_MAX_STEPS = 30

_SPACES = re.compile(r"\s+")


def article(name: str) -> str:
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def listing(names: list[str]) -> str:
    """'a mug 1', 'a mug 1, and a cup 2', 'a mug 1, a cup 2, and a fork 1' (ALFWorld's serial comma)."""
    items = [article(n) for n in names]
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + ", and " + items[-1]


def normalize_command(text: str) -> str:
    text = _SPACES.sub(" ", text.strip().lower()).rstrip(".").strip()
    # `put X in Y` / `put X on Y` are read as ALFWorld's `put X in/on Y`
    match = re.fullmatch(r"put (.+?) (?:in|on|in/on) (.+)", text)
    if match:
        text = f"put {match.group(1)} in/on {match.group(2)}"
    return text


@dataclass
class WorldState:
    location: str | None = None  # None: the middle of the room
    contents: dict[str, list[str]] = field(default_factory=dict)
    opened: set[str] = field(default_factory=set)
    holding: str | None = None
    hot: set[str] = field(default_factory=set)
    cool: set[str] = field(default_factory=set)
    clean: set[str] = field(default_factory=set)
    lamp_on: bool = False


def object_type(name: str) -> str:
    return name.rsplit(" ", 1)[0]


class HouseholdEnv:
    """An Environment (seed_trainer.envs.base) for one task instance."""

    def __init__(self, instance: Instance, max_steps: int = DEFAULT_MAX_STEPS):
        self.instance = instance
        self.max_steps = max_steps
        self.task = Task(instance.task_id, instance.task_type, world.describe(instance), instance.split)
        self.state = WorldState()
        self.steps = 0
        self.won = False

    # --- the Environment protocol ---------------------------------------------------------------------------

    def reset(self) -> tuple[Task, Observation]:
        layout = self.instance.layout
        self.state = WorldState(contents={r: self.instance.objects_in(r) for r in layout.receptacles})
        self.steps, self.won = 0, False
        text = (
            f"You are in the middle of a room. Looking quickly around you, you see {listing(list(layout.receptacles))}."
        )
        return self.task, Observation(text, self.admissible_actions())

    def step(self, action: str) -> StepResult:
        self.steps += 1
        command = normalize_command(action)
        valid = command in self.admissible_actions()
        text = self._execute(command) if valid else NOTHING
        if valid and not self.won and self._goal_reached():
            self.won = True
        done = self.won or self.steps >= self.max_steps
        return StepResult(Observation(text, self.admissible_actions()), done, self.won, {"valid_command": valid})

    # --- what can be done here ------------------------------------------------------------------------------

    def visible_objects(self, receptacle: str) -> list[str]:
        if receptacle_type(receptacle) in catalogue.OPENABLE and receptacle not in self.state.opened:
            return []
        return list(self.state.contents[receptacle])

    def admissible_actions(self) -> list[str]:
        s, layout = self.state, self.instance.layout
        actions = [f"go to {r}" for r in layout.receptacles if r != s.location]
        actions += ["inventory", "look"]
        if s.holding:
            actions.append(f"examine {s.holding}")
        here = s.location
        if here is not None:
            actions.append(f"examine {here}")
            kind = receptacle_type(here)
            openable = kind in catalogue.OPENABLE
            if openable:
                actions.append(f"close {here}" if here in s.opened else f"open {here}")
            accessible = not openable or here in s.opened
            if s.holding is None and accessible:
                actions += [f"take {o} from {here}" for o in s.contents[here]]
            if s.holding is not None:
                if accessible:
                    actions.append(f"put {s.holding} in/on {here}")
                if kind == "microwave":
                    actions.append(f"heat {s.holding} with {here}")
                if kind == "fridge":
                    actions.append(f"cool {s.holding} with {here}")
                if kind == "sinkbasin":
                    actions.append(f"clean {s.holding} with {here}")
            if layout.lamp is not None and here == layout.lamp_at:
                actions.append(f"use {layout.lamp}")
        return sorted(actions)

    # --- effects --------------------------------------------------------------------------------------------

    def _describe_receptacle(self, receptacle: str) -> str:
        kind = receptacle_type(receptacle)
        layout = self.instance.layout
        lamp = [layout.lamp] if layout.lamp is not None and layout.lamp_at == receptacle else []
        if kind in catalogue.OPENABLE:
            if receptacle not in self.state.opened:
                return f"The {receptacle} is closed."
            inside = self.state.contents[receptacle]
            return f"The {receptacle} is open. In it, you see {listing(inside) if inside else 'nothing'}."
        on = self.state.contents[receptacle] + lamp
        return f"On the {receptacle}, you see {listing(on) if on else 'nothing'}."

    def _execute(self, command: str) -> str:
        s = self.state
        verb = command.split(" ", 1)[0]
        if command == "look":
            if s.location is None:
                return (
                    f"You are in the middle of a room. Looking quickly around you, you see "
                    f"{listing(list(self.instance.layout.receptacles))}."
                )
            return f"You are facing the {s.location}. Next to it, you see nothing."
        if command == "inventory":
            return f"You are carrying: {article(s.holding)}." if s.holding else "You are not carrying anything."
        if command.startswith("go to "):
            s.location = command[len("go to ") :]
            return f"You arrive at {s.location}. {self._describe_receptacle(s.location)}"
        if verb == "open":
            s.opened.add(s.location)
            inside = s.contents[s.location]
            return (
                f"You open the {s.location}. The {s.location} is open. In it, you see "
                f"{listing(inside) if inside else 'nothing'}."
            )
        if verb == "close":
            s.opened.discard(s.location)
            return f"You close the {s.location}."
        if verb == "take":
            obj = command[len("take ") :].rsplit(" from ", 1)[0]
            s.contents[s.location].remove(obj)
            s.holding = obj
            return f"You pick up the {obj} from the {s.location}."
        if verb == "put":
            obj = s.holding
            s.contents[s.location].append(obj)
            s.holding = None
            return f"You put the {obj} in/on the {s.location}."
        if verb in ("heat", "cool", "clean"):
            obj = s.holding
            if verb == "heat":
                s.hot.add(obj)
                s.cool.discard(obj)
            elif verb == "cool":
                s.cool.add(obj)
                s.hot.discard(obj)
            else:
                s.clean.add(obj)
            return f"You {verb} the {obj} using the {s.location}."
        if verb == "use":
            s.lamp_on = True
            return f"You turn on the {self.instance.layout.lamp}."
        if verb == "examine":
            thing = command[len("examine ") :]
            if thing == s.location:
                return self._describe_receptacle(thing)
            states = [
                word for word, flagged in (("hot", s.hot), ("cool", s.cool), ("clean", s.clean)) if thing in flagged
            ]
            return f"This is {article(' '.join(states + [thing]))}." if states else f"This is a normal {thing}."
        return NOTHING  # pragma: no cover — every admissible command is handled above

    def _goal_reached(self) -> bool:
        inst, s = self.instance, self.state
        if inst.task_type == LOOK:
            held = s.holding is not None and object_type(s.holding) == inst.obj
            return held and s.lamp_on and s.location == inst.layout.lamp_at
        placed = [
            o
            for r, objects in s.contents.items()
            if receptacle_type(r) == inst.target
            for o in objects
            if object_type(o) == inst.obj
        ]
        if inst.task_type == PICK:
            return bool(placed)
        if inst.task_type == TWO:
            return len(placed) >= 2
        flags = {CLEAN: s.clean, HEAT: s.hot, COOL: s.cool}[inst.task_type]
        return any(o in flags for o in placed)
