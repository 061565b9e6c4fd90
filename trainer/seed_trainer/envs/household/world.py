"""How one household task instance is generated from a seed, from what a household can hold (`catalogue.py`).

Everything here is pure functions of a seed: a *layout* is a room (its receptacles and their order), a *task
instance* adds the objects, where they lie and what the agent must do. The same (split, seed) always gives the same
instance, on any machine (only `random.Random` with string/int seeds and sorted containers are used).

Splits, in the manner of ALFWorld's: `train` and `valid_seen` share the seen layouts and the seen goal combinations
(different instances); `valid_unseen` uses layouts and (object, target receptacle) combinations that never occur in
`train`. A further split, `dev`, is drawn like `train` from different seeds: it is the split to tune hyper-parameters
on, so that neither validation split is ever used for a choice.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from seed_trainer.envs.household.catalogue import (
    CLEAN,
    CLEANABLE,
    COOL,
    COOLABLE,
    FOUND_IN,
    HEAT,
    HEATABLE,
    LAMP_HOSTS,
    LAYOUTS_PER_ROOM,
    LOOK,
    LOOKABLE,
    MAX_RECEPTACLES,
    MIN_RECEPTACLES,
    OPENABLE,
    PICK,
    ROOMS,
    ROOMS_FOR,
    SEEN_LAYOUTS,
    SPLITS,
    TARGETS,
    TASK_TYPES,
    TOOL,
    TWO,
)


def _stable_hash(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def combination_is_unseen(task_type: str, obj: str, target: str) -> bool:
    """Goal combinations reserved for valid_unseen: about one in five (object, target receptacle) pairs per type."""
    return _stable_hash("combination", task_type, obj, target) % 5 == 0


# --- generated structures ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    room: str
    index: int
    receptacles: tuple[str, ...]  # names such as "cabinet 2", in the order the room description lists them
    lamp_at: str | None  # the receptacle the lamp stands on or beside, or None (no lamp)
    lamp: str | None  # "desklamp 1" / "floorlamp 1" / None

    @property
    def seen(self) -> bool:
        return self.index < SEEN_LAYOUTS


@dataclass(frozen=True)
class Instance:
    """One task: a layout, the objects and where they lie, and the goal."""

    split: str
    seed: int
    task_type: str
    layout: Layout
    obj: str  # the object type the task is about
    target: str  # the receptacle type to put it in or on ("" for look_at_obj_in_light)
    placement: tuple[tuple[str, str], ...]  # (object name, receptacle name), every movable object
    variant: int  # which phrasing of the task description
    task_id: str = field(default="")

    def objects_in(self, receptacle: str) -> list[str]:
        return [o for o, r in self.placement if r == receptacle]


def receptacle_type(name: str) -> str:
    return name.rsplit(" ", 1)[0]


def make_layout(room: str, index: int) -> Layout:
    rng = random.Random(f"layout|{room}|{index}")
    while True:
        counts = {kind: rng.randint(lo, hi) for kind, (lo, hi) in sorted(ROOMS[room].items())}
        total = sum(counts.values())
        if MIN_RECEPTACLES <= total <= MAX_RECEPTACLES:
            break
    names = [f"{kind} {i}" for kind, n in sorted(counts.items()) for i in range(1, n + 1)]
    rng.shuffle(names)
    lamp_at, lamp = None, None
    if room in ("bedroom", "livingroom"):
        hosts = [n for n in names if receptacle_type(n) in LAMP_HOSTS]
        if hosts and rng.random() < 0.75:
            lamp_at, lamp = rng.choice(hosts), "desklamp 1"
        else:  # a floorlamp stands beside some piece of furniture that is not a closed container
            lamp_at, lamp = rng.choice([n for n in names if receptacle_type(n) not in OPENABLE]), "floorlamp 1"
    return Layout(room, index, tuple(names), lamp_at, lamp)


_LAYOUT_CACHE: dict[tuple[str, int], Layout] = {}


def layout(room: str, index: int) -> Layout:
    key = (room, index)
    if key not in _LAYOUT_CACHE:
        _LAYOUT_CACHE[key] = make_layout(room, index)
    return _LAYOUT_CACHE[key]


def _goal_objects(task_type: str, room: str) -> tuple[str, ...]:
    if task_type == HEAT:
        return HEATABLE
    if task_type == COOL:
        return COOLABLE
    if task_type == CLEAN:
        return CLEANABLE[room]
    if task_type == LOOK:
        return LOOKABLE
    return tuple(FOUND_IN)


def _object_room(obj: str) -> str:
    kitchen = {
        "apple",
        "bread",
        "bowl",
        "butterknife",
        "cup",
        "egg",
        "fork",
        "kettle",
        "knife",
        "lettuce",
        "mug",
        "pan",
        "plate",
        "pot",
        "potato",
        "spatula",
        "spoon",
        "tomato",
        "winebottle",
        "saltshaker",
    }
    bathroom = {"candle", "cloth", "soapbar", "soapbottle", "spraybottle", "toiletpaper", "towel"}
    living = {"remotecontrol", "statue", "vase", "box"}
    bedroom = {"alarmclock", "cd", "pen", "pencil"}
    if obj in kitchen:
        return "kitchen"
    if obj in bathroom:
        return "bathroom"
    if obj in living:
        return "livingroom"
    if obj in bedroom:
        return "bedroom"
    return "bedroom|livingroom"  # book, cellphone, creditcard, keychain, pillow, watch: either


def _objects_for_room(room: str) -> tuple[str, ...]:
    return tuple(o for o in FOUND_IN if room in _object_room(o).split("|"))


def generate(split: str, seed: int, task_type: str | None = None) -> Instance:
    """The task instance of (`split`, `seed`), optionally forced to `task_type`. Deterministic."""
    if split not in SPLITS:
        raise ValueError(f"household: unknown split {split!r} (known: {', '.join(SPLITS)})")
    rng = random.Random(f"instance|{split}|{seed}|{task_type or ''}")
    unseen = split == "valid_unseen"
    for _attempt in range(1000):
        kind = task_type or rng.choice(TASK_TYPES)
        room = rng.choice(ROOMS_FOR[kind])
        index = rng.randrange(SEEN_LAYOUTS, LAYOUTS_PER_ROOM) if unseen else rng.randrange(SEEN_LAYOUTS)
        lay = layout(room, index)
        instance = _try_instance(rng, split, seed, kind, lay, unseen)
        if instance is not None:
            return instance
    raise RuntimeError(f"household: no task instance for split {split!r}, seed {seed}")  # pragma: no cover


def _try_instance(rng: random.Random, split: str, seed: int, kind: str, lay: Layout, unseen: bool) -> Instance | None:
    present = {receptacle_type(n) for n in lay.receptacles}
    if kind in TOOL and TOOL[kind] not in present:
        return None
    if kind == LOOK and lay.lamp is None:
        return None
    room_objects = set(_objects_for_room(lay.room))
    candidates = [o for o in _goal_objects(kind, lay.room) if o in room_objects and set(FOUND_IN[o]) & present]
    if not candidates:
        return None
    obj = rng.choice(sorted(candidates))
    target = ""
    if kind != LOOK:
        targets = [t for t in TARGETS[lay.room] if t in present and t != TOOL.get(kind)]
        targets = [t for t in targets if combination_is_unseen(kind, obj, t) == unseen]
        if not targets:
            return None
        target = rng.choice(sorted(targets))
    # where the goal objects lie: never already in a target receptacle
    homes = [n for n in lay.receptacles if receptacle_type(n) in FOUND_IN[obj] and receptacle_type(n) != target]
    if not homes:
        return None
    count = 2 if kind == TWO else 1
    placement: list[tuple[str, str]] = []
    numbers: dict[str, int] = {}

    def name_of(o: str) -> str:
        numbers[o] = numbers.get(o, 0) + 1
        return f"{o} {numbers[o]}"

    for _ in range(count):
        placement.append((name_of(obj), rng.choice(homes)))
    # distractors: other objects of the room (never the goal type, so there is exactly `count` of it)
    others = sorted(room_objects - {obj})
    for _ in range(rng.randint(4, 8)):
        other = rng.choice(others)
        places = [n for n in lay.receptacles if receptacle_type(n) in FOUND_IN[other]]
        if places:
            placement.append((name_of(other), rng.choice(places)))
    rng.shuffle(placement)
    placement.sort(key=lambda p: lay.receptacles.index(p[1]))  # stable: objects grouped by receptacle
    instance = Instance(split, seed, kind, lay, obj, target, tuple(placement), rng.randrange(2))
    task_id = f"household-{split}-{seed}-{kind}"
    return Instance(**{**instance.__dict__, "task_id": task_id})


def describe(instance: Instance) -> str:
    """The task sentence (what follows "Your task is to: "), in ALFWorld's phrasing style."""
    o, t, v = instance.obj, instance.target, instance.variant
    if instance.task_type == PICK:
        return (f"put some {o} on {t}.", f"put a {o} in {t}.")[v]
    if instance.task_type == TWO:
        return (f"put two {o} in {t}.", f"find two {o} and put them in {t}.")[v]
    if instance.task_type == LOOK:
        lamp = receptacle_type(instance.layout.lamp or "desklamp 1")
        return (f"look at {o} under the {lamp}.", f"examine the {o} with the {lamp}.")[v]
    verb, adjective = {CLEAN: ("clean", "clean"), HEAT: ("heat", "hot"), COOL: ("cool", "cool")}[instance.task_type]
    return (f"{verb} some {o} and put it in {t}.", f"put a {adjective} {o} in {t}.")[v]
