"""The household's oracle analysis (what `HouseholdTasks.oracle_analysis` returns to the `oracle` analyzer of
`seed_trainer.analyzers`): writes the Stage-1 skill JSON for a finished household episode from the ground truth plus
the trajectory — the offline stand-in for the paper's external LLM analyzer.

Like the paper's skills, the skill is a policy-facing *rule*, not a fact about this instance: for a success, the
workflow of the task type; for a failure, the mistakes this trajectory actually made (found by replaying its
commands), turned into rules that say what to do instead. The summary retells the episode in two or three sentences.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from seed_trainer.envs.household import catalogue, world
from seed_trainer.envs.household.catalogue import CLEAN, COOL, HEAT, LOOK, PICK, TWO
from seed_trainer.envs.household.demonstrator import VERB, tool_receptacle
from seed_trainer.envs.household.env import NOTHING, HouseholdEnv, object_type
from seed_trainer.envs.household.world import Instance, receptacle_type


@dataclass
class Findings:
    """What went wrong in a trajectory, found by replaying it."""

    invalid: int = 0  # commands answered "Nothing happens."
    repeated_invalid: int = 0  # an invalid command sent again right after it failed
    malformed: int = 0  # responses without a well-formed action
    revisits: int = 0  # going back to a receptacle already checked, while searching
    skipped_open: int = 0  # leaving a closed container unopened while searching
    skipped_open_with_goal: bool = False  # ... and the object was inside
    placed_untransformed: int = 0  # put the object in place before heating / cooling / cleaning it
    wrong_objects: list[str] = field(default_factory=list)  # objects of another type that were taken
    found: str | None = None  # where the task's object was first taken from
    checked: int = 0
    placed: int = 0
    held_goal: bool = False
    used_lamp: bool = False
    won: bool = False
    steps: int = 0


def replay(instance: Instance, commands: Sequence[str], valid: Sequence[bool]) -> Findings:
    env = HouseholdEnv(instance, max_steps=max(len(commands), 1) + 1)
    env.reset()
    findings = Findings(steps=len(commands))
    checked: set[str] = set()
    previous_invalid: str | None = None
    for command, well_formed in zip(commands, valid):
        state = env.state
        here = state.location
        if not well_formed:
            findings.malformed += 1
        holding_before = state.holding
        if command.startswith("go to ") and here is not None and holding_before is None:
            kind = receptacle_type(here)
            if (
                kind in catalogue.OPENABLE
                and here not in state.opened
                and here not in checked
                and kind != instance.target
            ):
                findings.skipped_open += 1
                if any(object_type(o) == instance.obj for o in state.contents[here]):
                    findings.skipped_open_with_goal = True
        destination = command[len("go to ") :] if command.startswith("go to ") else None
        if destination is not None and destination in checked and holding_before is None:
            goal_there = any(object_type(o) == instance.obj for o in state.contents.get(destination, []))
            if not goal_there:
                findings.revisits += 1
        if command.startswith("put ") and holding_before is not None and object_type(holding_before) == instance.obj:
            at = state.location
            flags = {CLEAN: state.clean, HEAT: state.hot, COOL: state.cool}.get(instance.task_type)
            if (
                at is not None
                and receptacle_type(at) == instance.target
                and flags is not None
                and holding_before not in flags
            ):
                findings.placed_untransformed += 1
        result = env.step(command)
        text = result.observation.text
        if text == NOTHING:
            findings.invalid += 1
            if previous_invalid == command:
                findings.repeated_invalid += 1
            previous_invalid = command
        else:
            previous_invalid = None
        state = env.state
        if state.location is not None and (
            receptacle_type(state.location) not in catalogue.OPENABLE or state.location in state.opened
        ):
            checked.add(state.location)
        if state.holding is not None and state.holding != holding_before:
            if object_type(state.holding) == instance.obj:
                findings.held_goal = True
                findings.found = findings.found or state.location
            else:
                findings.wrong_objects.append(state.holding)
        if command.startswith("use ") and text != NOTHING:
            findings.used_lamp = True
    findings.checked = len(checked)
    findings.won = env.won
    findings.placed = sum(
        1
        for r, objects in env.state.contents.items()
        if receptacle_type(r) == instance.target
        for o in objects
        if object_type(o) == instance.obj
    )
    return findings


# --- rules ----------------------------------------------------------------------------------------------------------


def _usual_places(obj: str) -> str:
    places = list(catalogue.FOUND_IN[obj][:3])
    return ", ".join(places[:-1]) + " or " + places[-1] if len(places) > 1 else places[0]


def workflow(instance: Instance) -> str:
    """The success rule of the task type: the order of actions worth repeating."""
    o, t = instance.obj, instance.target
    find = f"find the {o} (usually {_usual_places(o)}; open closed ones)"
    kind = instance.task_type
    if kind == PICK:
        return f"To put a {o} in {t}: {find}, take it, go to the {t} and put it in."
    if kind == TWO:
        return (
            f"To put two {o} in {t}: {find}, take one and put it in the {t}, then find the second and put it there too."
        )
    if kind == LOOK:
        lamp = receptacle_type(instance.layout.lamp or "desklamp 1")
        return f"To look at a {o} under the {lamp}: {find}, take it, go to the {lamp} and use it while holding the {o}."
    verb = VERB[kind]
    tool = receptacle_type(tool_receptacle(instance) or "")
    return (
        f"To {verb} a {o} and put it in {t}: {find}, take it, {verb} it with the {tool} first, then put it in the {t}."
    )


RULES = {
    "invalid": 'Pick only admissible actions; after "Nothing happens." never repeat that action, choose another.',
    "malformed": "Reason inside <think></think>, then give one admissible action inside <action></action>.",
    "revisit": "Remember where you already looked and never go back there; go to a place you have not checked.",
    "skip_open": "When a receptacle is closed, open it and look inside before going elsewhere.",
    "wrong_object": "Take only the object the task names; if you took something else, put it back.",
}


def _transform_rule(instance: Instance) -> str:
    verb = VERB[instance.task_type]
    tool = receptacle_type(tool_receptacle(instance) or "")
    return f"{verb.capitalize()} the {instance.obj} with the {tool} before you put it in the {instance.target}."


def failure_rules(instance: Instance, f: Findings) -> list[str]:
    """The rules this failed trajectory calls for, most important first."""
    rules: list[tuple[int, str]] = []
    if f.placed_untransformed:
        rules.append((0, _transform_rule(instance)))
    if f.wrong_objects:
        rules.append((1, RULES["wrong_object"]))
    if f.repeated_invalid or f.invalid >= 2:
        rules.append((2, RULES["invalid"]))
    if f.malformed >= 2:
        rules.append((3, RULES["malformed"]))
    if f.skipped_open_with_goal or f.skipped_open >= 2:
        rules.append((4, RULES["skip_open"]))
    if f.revisits >= 2:
        rules.append((5, RULES["revisit"]))
    if f.invalid == 1:
        rules.append((6, RULES["invalid"]))
    if f.skipped_open == 1:
        rules.append((7, RULES["skip_open"]))
    if f.revisits == 1:
        rules.append((8, RULES["revisit"]))
    if instance.task_type == TWO and f.placed == 1:
        rules.append(
            (
                9,
                f"After the first {instance.obj} is in the {instance.target}, find the second one and put it "
                f"there too.",
            )
        )
    if instance.task_type == LOOK and f.held_goal and not f.used_lamp:
        lamp = receptacle_type(instance.layout.lamp or "desklamp 1")
        rules.append((10, f"Once you hold the {instance.obj}, go to the {lamp} and use it."))
    if not f.held_goal:
        rules.append(
            (
                11,
                f"Look for a {instance.obj} where it usually is ({_usual_places(instance.obj)}) first, "
                f"each place once.",
            )
        )
    rules.append((12, workflow(instance)))
    seen, ordered = set(), []
    for _rank, rule in sorted(rules, key=lambda r: r[0]):
        if rule not in seen:
            seen.add(rule)
            ordered.append(rule)
    return ordered


WORKFLOW_KINDS = frozenset({"skip_open", "skip_transform", "wrong_object"})


def rule_kinds(instance: Instance, f: Findings) -> set[str]:
    """Which demonstrator mistakes the skill of this episode speaks against (the bootstrap conditions demos on it):
    a success's workflow covers opening, transforming and taking the right object; a failure's rules their own."""
    if f.won:
        return set(WORKFLOW_KINDS)
    kinds = set()
    rules = failure_rules(instance, f)[:2]
    for kind, text in RULES.items():
        if text in rules:
            kinds.add("invalid" if kind == "malformed" else kind)
    if instance.task_type in catalogue.TOOL and _transform_rule(instance) in rules:
        kinds.add("skip_transform")
    if workflow(instance) in rules:
        kinds |= WORKFLOW_KINDS
    return kinds


def summarize(instance: Instance, f: Findings, description: str) -> str:
    """Two short sentences: the task and its outcome, then the mistakes the replay found."""
    outcome = "success" if f.won else "failure"
    mistakes = []
    if f.invalid:
        mistakes.append(f"{f.invalid} action(s) did nothing")
    if f.revisits:
        mistakes.append(f"{f.revisits} revisit(s) of checked places")
    if f.skipped_open:
        mistakes.append(f"{f.skipped_open} closed receptacle(s) left unopened")
    if f.placed_untransformed:
        mistakes.append(f"the {instance.obj} was put in place before it was {VERB[instance.task_type]}ed")
    if f.wrong_objects:
        mistakes.append("the wrong object was taken")
    if not f.held_goal:
        mistakes.append(f"the {instance.obj} was never found")
    return (
        f"Task: {description} Outcome: {outcome} after {f.steps} step(s). "
        f"Mistakes: {'; '.join(mistakes) if mistakes else 'none'}."
    )


def analyze(instance: Instance, commands: Sequence[str], valid: Sequence[bool], won: bool) -> dict[str, str]:
    """{"episode_summary", "episode_skill"} for a finished episode (`commands` = what the environment received)."""
    findings = replay(instance, commands, valid)
    findings.won = findings.won or won
    skill = workflow(instance) if findings.won else " ".join(failure_rules(instance, findings)[:2])
    return {"episode_summary": summarize(instance, findings, world.describe(instance)), "episode_skill": skill}


def analysis_reply(instance: Instance, commands: Sequence[str], valid: Sequence[bool], won: bool) -> str:
    return json.dumps(analyze(instance, commands, valid, won), ensure_ascii=False)
