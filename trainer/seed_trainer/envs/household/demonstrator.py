"""Who knows how to do the tasks: a ground-truth planner and a demonstrator that acts only on what it has seen (the
skill that hindsight writes from the ground truth is `oracle_analysis.py`).

- `plan(instance)` is the oracle solver: it knows where every object lies and returns a shortest command sequence.
- `Demonstrator` plays an episode the way a careful agent would, from what it has observed so far (it searches the
  places an object usually is, opens closed containers, takes, transforms, places), and writes each step as a policy
  response `<think>…</think><action>…</action>`. It can inject *mistakes* at a chosen rate — invalid commands (and
  repeating them), going back to a place already checked, leaving a closed container unopened, putting an object in
  place before heating / cooling / cleaning it, taking the wrong object — and it always recovers from them, so its
  episodes show both the mistakes a weak policy makes and how to get out of them. The bootstrap trains on these.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from seed_trainer.envs.household import catalogue
from seed_trainer.envs.household.catalogue import CLEAN, COOL, HEAT, LOOK, TWO
from seed_trainer.envs.household.env import NOTHING, HouseholdEnv, object_type
from seed_trainer.envs.household.world import Instance, receptacle_type

MISTAKES = ("invalid", "revisit", "skip_open", "skip_transform", "wrong_object")
VERB = {CLEAN: "clean", HEAT: "heat", COOL: "cool"}
ADJECTIVE = {CLEAN: "clean", HEAT: "hot", COOL: "cool"}


def target_receptacles(instance: Instance) -> list[str]:
    return sorted(r for r in instance.layout.receptacles if receptacle_type(r) == instance.target)


def tool_receptacle(instance: Instance) -> str | None:
    tool = catalogue.TOOL.get(instance.task_type)
    if tool is None:
        return None
    return sorted(r for r in instance.layout.receptacles if receptacle_type(r) == tool)[0]


def search_order(instance: Instance) -> list[str]:
    """Where to look for the task's object: the receptacle types it is usually found in first, then the rest;
    never a receptacle of the target type (the object is not already in place)."""
    usual = set(catalogue.FOUND_IN[instance.obj])
    names = sorted(r for r in instance.layout.receptacles if receptacle_type(r) != instance.target)
    return [r for r in names if receptacle_type(r) in usual] + [r for r in names if receptacle_type(r) not in usual]


def lamp_search_order(instance: Instance) -> list[str]:
    names = sorted(instance.layout.receptacles)
    hosts = catalogue.LAMP_HOSTS if (instance.layout.lamp or "").startswith("desklamp") else ()
    return [r for r in names if receptacle_type(r) in hosts] + [r for r in names if receptacle_type(r) not in hosts]


# --- the ground-truth planner ------------------------------------------------------------------------------------


def plan(instance: Instance) -> list[str]:
    """A shortest command sequence that wins `instance`, using where everything lies."""
    commands: list[str] = []
    at: list[str | None] = [None]
    opened: set[str] = set()

    def go(receptacle: str) -> None:
        if at[0] != receptacle:
            commands.append(f"go to {receptacle}")
            at[0] = receptacle
        if receptacle_type(receptacle) in catalogue.OPENABLE and receptacle not in opened:
            commands.append(f"open {receptacle}")
            opened.add(receptacle)

    goal = [(o, r) for o, r in instance.placement if object_type(o) == instance.obj]
    if instance.task_type == LOOK:
        obj, home = goal[0]
        go(home)
        commands.append(f"take {obj} from {home}")
        if home != instance.layout.lamp_at:
            commands.append(f"go to {instance.layout.lamp_at}")
        commands.append(f"use {instance.layout.lamp}")
        return commands
    target = target_receptacles(instance)[0]
    for obj, home in goal[: 2 if instance.task_type == TWO else 1]:
        go(home)
        commands.append(f"take {obj} from {home}")
        tool = tool_receptacle(instance)
        if tool is not None:
            if at[0] != tool:
                commands.append(f"go to {tool}")
                at[0] = tool
            commands.append(f"{VERB[instance.task_type]} {obj} with {tool}")
        go(target)
        commands.append(f"put {obj} in/on {target}")
    return commands


# --- the demonstrator ---------------------------------------------------------------------------------------------


@dataclass
class Decision:
    kind: str  # what the step does (search, open, take, go_tool, transform, go_target, put, use, ...)
    think: str
    action: str
    mistake: str | None = None

    @property
    def response(self) -> str:
        return f"<think>{self.think}</think><action>{self.action}</action>"


@dataclass
class Memory:
    checked: set[str] = field(default_factory=set)  # receptacles whose contents the agent has seen
    seen: dict[str, list[str]] = field(default_factory=dict)  # what it saw there last
    lamp_seen: bool = False
    lamp_checked: set[str] = field(default_factory=set)
    last_invalid: str | None = None  # the command that last answered "Nothing happens."
    skipping_transform: bool = False  # a `skip_transform` mistake in progress: it will put the object unheated
    skipped_open: set[str] = field(default_factory=set)


class Demonstrator:
    """Plays one episode of `env` from observations, optionally with mistakes.

    `rates` maps a mistake kind to the probability of making it at a step where it applies; `repeat_invalid` is the
    probability of repeating an invalid command right after it failed.
    """

    def __init__(
        self, env: HouseholdEnv, rng: random.Random, rates: dict[str, float] | None = None, repeat_invalid: float = 0.0
    ):
        self.env, self.rng = env, rng
        self.rates = {k: v for k, v in (rates or {}).items() if v > 0}
        self.repeat_invalid = repeat_invalid
        self.memory = Memory()
        self.instance = env.instance

    # -- observation bookkeeping ------------------------------------------------------------------------------

    def observe(self) -> None:
        """Remember what is visible where the agent stands (the information the last observation gave)."""
        here = self.env.state.location
        if here is None:
            return
        visible = self.env.visible_objects(here)
        if receptacle_type(here) not in catalogue.OPENABLE or here in self.env.state.opened:
            self.memory.checked.add(here)
            self.memory.seen[here] = visible
        self.memory.lamp_checked.add(here)
        if here == self.instance.layout.lamp_at:
            self.memory.lamp_seen = True

    # -- the correct next step ---------------------------------------------------------------------------------

    def _placed_ok(self, obj: str, receptacle: str) -> bool:
        inst, s = self.instance, self.env.state
        if receptacle_type(receptacle) != inst.target or object_type(obj) != inst.obj:
            return False
        flags = {CLEAN: s.clean, HEAT: s.hot, COOL: s.cool}.get(inst.task_type)
        return flags is None or obj in flags

    def _needs_transform(self, obj: str) -> bool:
        inst, s = self.instance, self.env.state
        flags = {CLEAN: s.clean, HEAT: s.hot, COOL: s.cool}.get(inst.task_type)
        return flags is not None and obj not in flags

    def correct(self) -> Decision:
        inst, s, m = self.instance, self.env.state, self.memory
        o, here = inst.obj, s.location
        accessible = here is not None and (receptacle_type(here) not in catalogue.OPENABLE or here in s.opened)
        if s.holding is not None and object_type(s.holding) != o:
            if accessible:
                return Decision(
                    "put_back",
                    f"The {s.holding} is not what the task needs; put it back.",
                    f"put {s.holding} in/on {here}",
                )
        if inst.task_type == LOOK:
            return self._look_step()
        if s.holding is not None and object_type(s.holding) == o:
            held = s.holding
            if self._needs_transform(held) and not m.skipping_transform:
                tool = tool_receptacle(inst)
                verb = VERB[inst.task_type]
                if here == tool:
                    return Decision(
                        "transform", f"I am at {tool}; {verb} the {held} now.", f"{verb} {held} with {tool}"
                    )
                return Decision(
                    "go_tool", f"The {held} must be {ADJECTIVE[inst.task_type]} first; go to {tool}.", f"go to {tool}"
                )
            target = target_receptacles(inst)[0]
            if here != target:
                return Decision("go_target", f"Now put the {held} in {inst.target}; go to {target}.", f"go to {target}")
            if not accessible:
                return Decision("open_target", f"The {target} is closed; open it first.", f"open {target}")
            return Decision("put", f"Put the {held} in/on the {target}.", f"put {held} in/on {target}")
        # find (another) object of the task's type that is not in place yet
        if accessible:
            for obj in self.env.visible_objects(here):
                if object_type(obj) == o and not self._placed_ok(obj, here):
                    return Decision("take", f"Here is the {obj}; take it.", f"take {obj} from {here}")
        for receptacle, objects in sorted(m.seen.items()):
            if receptacle == here:
                continue
            for obj in objects:
                if object_type(obj) == o and not self._placed_ok(obj, receptacle) and obj in s.contents[receptacle]:
                    return Decision("go_known", f"I saw the {obj} at {receptacle}; go there.", f"go to {receptacle}")
        return self._search_step()

    def _search_step(self) -> Decision:
        inst, s, m = self.instance, self.env.state, self.memory
        here = s.location
        prefix = "the second " if inst.task_type == TWO and self._placed_count() == 1 else "a "
        if (
            here is not None
            and receptacle_type(here) in catalogue.OPENABLE
            and here not in s.opened
            and here not in m.checked
            and receptacle_type(here) != inst.target
        ):
            return Decision("open", f"The {here} is closed; open it to look inside.", f"open {here}")
        for receptacle in search_order(inst):
            if receptacle not in m.checked and receptacle != here:
                return Decision("search", f"Look for {prefix}{inst.obj} in {receptacle}.", f"go to {receptacle}")
        return Decision("look", "I have checked every place; look around again.", "look")

    def _placed_count(self) -> int:
        s = self.env.state
        return sum(self._placed_ok(o, r) for r, objects in s.contents.items() for o in objects)

    def _look_step(self) -> Decision:
        inst, s, m = self.instance, self.env.state, self.memory
        lamp, lamp_at, here = inst.layout.lamp, inst.layout.lamp_at, s.location
        if s.holding is not None:
            if here == lamp_at:
                return Decision("use", f"I hold the {s.holding}; turn on the {lamp}.", f"use {lamp}")
            if m.lamp_seen:
                return Decision("go_lamp", f"Take the {s.holding} to the {lamp} at {lamp_at}.", f"go to {lamp_at}")
            for receptacle in lamp_search_order(inst):
                if receptacle not in m.lamp_checked and receptacle != here:
                    return Decision("search_lamp", f"Look for the {lamp} at {receptacle}.", f"go to {receptacle}")
            return Decision("look", "I have checked every place; look around again.", "look")
        here_ok = here is not None and (receptacle_type(here) not in catalogue.OPENABLE or here in s.opened)
        if here_ok:
            for obj in self.env.visible_objects(here):
                if object_type(obj) == inst.obj:
                    return Decision("take", f"Here is the {obj}; take it.", f"take {obj} from {here}")
        for receptacle, objects in sorted(m.seen.items()):
            for obj in objects:
                if receptacle != here and object_type(obj) == inst.obj and obj in s.contents[receptacle]:
                    return Decision("go_known", f"I saw the {obj} at {receptacle}; go there.", f"go to {receptacle}")
        return self._search_step()

    # -- mistakes ---------------------------------------------------------------------------------------------

    def _mistake(self, right: Decision) -> Decision | None:
        m = self.memory
        if m.last_invalid is not None and self.rng.random() < self.repeat_invalid:
            return Decision("invalid", right.think, m.last_invalid, "invalid")
        options = self.mistake_options(right, self.rng, self.rates)
        options = [d for d in options if self.rng.random() < self.rates[d.mistake]]
        return self.rng.choice(options) if options else None

    def mistake_options(self, right: Decision, rng: random.Random, kinds=MISTAKES) -> list[Decision]:
        """The mistakes of `kinds` that apply where `right` is the correct step, one per kind (a random one of its
        variants, drawn from `rng`); the premise check scores each against `right`."""
        inst, s, m = self.instance, self.env.state, self.memory
        options: list[Decision] = []
        here = s.location
        if "revisit" in kinds and right.kind == "search":
            back = sorted(
                r for r in m.checked if r != here and not any(object_type(o) == inst.obj for o in m.seen.get(r, []))
            )
            if back:
                r = rng.choice(back)
                options.append(
                    Decision("search", right.think.rsplit(" in ", 1)[0] + f" in {r}.", f"go to {r}", "revisit")
                )
        if "skip_open" in kinds and right.kind == "open":
            nxt = [r for r in search_order(inst) if r not in m.checked and r != here]
            if nxt:
                options.append(
                    Decision("search", f"Look for a {inst.obj} in {nxt[0]}.", f"go to {nxt[0]}", "skip_open")
                )
        if "skip_transform" in kinds and right.kind == "go_tool":
            target = target_receptacles(inst)[0]
            options.append(
                Decision(
                    "go_target",
                    f"Now put the {s.holding} in {inst.target}; go to {target}.",
                    f"go to {target}",
                    "skip_transform",
                )
            )
        if "wrong_object" in kinds and right.kind == "take" and here is not None:
            others = [o for o in self.env.visible_objects(here) if object_type(o) != inst.obj]
            if others:
                other = rng.choice(others)
                options.append(
                    Decision("take", f"Here is the {other}; take it.", f"take {other} from {here}", "wrong_object")
                )
        if "invalid" in kinds:
            options.append(self._invalid_variant(right, rng))
        return options

    def _invalid_variant(self, right: Decision, rng: random.Random) -> Decision:
        """A plausible command that is not admissible here, keeping the step's reasoning."""
        inst, s = self.instance, self.env.state
        here = s.location
        obj = f"{inst.obj} 1"
        candidates = []
        if here is not None:
            candidates.append(f"go to {here}")
            if s.holding is None:
                candidates.append(f"take {obj} from {here}")
        if right.action.startswith("go to "):
            place = right.action[len("go to ") :]
            candidates.append(f"take {obj} from {place}" if s.holding is None else f"put {s.holding} in/on {place}")
            candidates.append(f"open {place}")
        if right.kind == "transform" or right.kind == "go_tool":
            tool = tool_receptacle(inst)
            if tool and here != tool:
                candidates.append(f"{VERB[inst.task_type]} {s.holding} with {tool}")
        admissible = set(self.env.admissible_actions())
        candidates = [c for c in candidates if c not in admissible] or ["go to the room"]
        return Decision(right.kind, right.think, rng.choice(candidates), "invalid")

    # -- one step --------------------------------------------------------------------------------------------

    def decide(self) -> Decision:
        right = self.correct()
        decision = self._mistake(right) or right
        if self.memory.last_invalid is not None and decision.mistake is None:
            decision = Decision(decision.kind, f"That did nothing. {decision.think}", decision.action)
        return decision

    def after(self, decision: Decision, observation: str) -> None:
        """Update the memory with the outcome of `decision`."""
        m = self.memory
        m.last_invalid = decision.action if observation == NOTHING else None
        if decision.mistake == "skip_transform":
            m.skipping_transform = True
        if decision.kind == "put":
            m.skipping_transform = False
        if decision.mistake == "skip_open" and self.env.state.location is not None:
            m.skipped_open.add(self.env.state.location)
        self.observe()


def demonstrate(
    env: HouseholdEnv,
    rng: random.Random,
    rates: dict[str, float] | None = None,
    repeat_invalid: float = 0.0,
    max_steps: int | None = None,
):
    """Plays a whole episode; returns (steps, won) with steps = [(observation, admissible, decision)]."""
    _task, observation = env.reset()
    agent = Demonstrator(env, rng, rates, repeat_invalid)
    steps = []
    limit = max_steps or env.max_steps
    for _ in range(limit):
        decision = agent.decide()
        steps.append((observation, decision))
        result = env.step(decision.action)
        agent.after(decision, result.observation.text)
        observation = result.observation
        if result.done:
            break
    return steps, env.won
