"""The built-in household environment: determinism, admissible actions, splits, the oracle and its analyzer."""

import copy
import json
import random
from pathlib import Path

import pytest

from seed_trainer.algo.json_repair import parse_skill_reply
from seed_trainer.analyzers.static_bank import SkillBank
from seed_trainer.envs import make_task_source
from seed_trainer.envs.household import HouseholdTasks, catalogue, demonstrate, plan, world
from seed_trainer.envs.household.env import NOTHING
from seed_trainer.envs.household.oracle_analysis import RULES, analyze
from seed_trainer.envs.household.skill_bank import BY_TYPE, GENERAL
from seed_trainer.rl.rollout import Episode, Step

REPO = Path(__file__).resolve().parents[3]
SPLITS = ("train", "valid_seen", "valid_unseen", "dev")


def _trace(source, spec, commands):
    env = source.make(spec)
    task, observation = env.reset()
    out = [(task, observation.text, tuple(observation.admissible_actions))]
    for command in commands:
        result = env.step(command)
        out.append((result.observation.text, tuple(result.observation.admissible_actions), result.done, result.won))
    return out


def test_registered_and_options_are_checked():
    source = make_task_source("household", max_steps=12)
    assert source.name == "household" and source.max_steps == 12 and len(source.task_types) == 6
    with pytest.raises(ValueError, match="unknown option"):
        make_task_source("household", colour="red")
    with pytest.raises(ValueError, match="unknown split"):
        source.sample("test", 1, seed=0)
    with pytest.raises(ValueError, match="unknown task type"):
        source.sample("train", 1, seed=0, task_types=["juggle"])


def test_sampling_and_episodes_are_deterministic_in_the_seed():
    source = HouseholdTasks()
    first, again = source.sample("train", 12, seed=7), source.sample("train", 12, seed=7)
    assert first == again and first != source.sample("train", 12, seed=8)
    assert [s.task_type for s in first[:6]] and len({s.task_type for s in first}) == 6  # balanced types
    assert (
        source.sample("train", 4, seed=1, task_types=["pick_two_obj_and_place"])[0].task_type
        == "pick_two_obj_and_place"
    )
    rng = random.Random(0)
    for spec in first:
        walk = []
        env = source.make(spec)
        _, observation = env.reset()
        for _ in range(15):
            walk.append(rng.choice(observation.admissible_actions + ["fly away"]))
            observation = env.step(walk[-1]).observation
        assert _trace(source, spec, walk) == _trace(HouseholdTasks(), spec, walk)
    # the world itself: a fresh generator gives the same instance
    world._LAYOUT_CACHE.clear()
    assert world.generate("valid_seen", 123, None) == world.generate("valid_seen", 123, None)


def test_every_admissible_action_executes():
    source = HouseholdTasks()
    rng = random.Random(1)
    tried = 0
    for spec in source.sample("train", 18, seed=2) + source.sample("valid_unseen", 6, seed=2):
        env = source.make(spec)
        _, observation = env.reset()
        for _ in range(12):
            for action in observation.admissible_actions:
                probe = copy.deepcopy(env)
                result = probe.step(action)
                assert result.observation.text != NOTHING, (spec, action)
                assert result.info["valid_command"]
                tried += 1
            result = env.step(rng.choice(observation.admissible_actions))
            observation = result.observation
            if result.done:
                break
    assert tried > 1000


def test_commands_observations_and_limits():
    source = HouseholdTasks(max_steps=3)
    spec = source.sample("train", 1, seed=0, task_types=["pick_heat_then_place_in_recep"])[0]
    env = source.make(spec)
    task, observation = env.reset()
    assert task.description.startswith(("heat some", "put a hot")) and task.split == "train"
    assert observation.text.startswith("You are in the middle of a room. Looking quickly around you, you see a")
    assert observation.admissible_actions == sorted(observation.admissible_actions)
    assert {"inventory", "look"} <= set(observation.admissible_actions)
    assert env.step("take the moon").observation.text == NOTHING
    assert env.step("inventory").observation.text == "You are not carrying anything."
    result = env.step("look")
    assert result.done and not result.won  # the step limit
    # closed containers show their contents only when opened
    env = HouseholdTasks().make(spec)
    env.reset()
    closed = next(r for r in spec.instance.layout.receptacles if r.split()[0] == "cabinet")
    text = env.step(f"go to {closed}").observation.text
    assert text == f"You arrive at {closed}. The {closed} is closed."
    assert env.step(f"open {closed}").observation.text.startswith(
        f"You open the {closed}. The {closed} is open. In it, you see"
    )
    assert (
        env.step(f"PUT  mug 1 on {closed}.").observation.text == NOTHING
    )  # not holding it: normalised, not admissible


@pytest.mark.parametrize("split", SPLITS)
def test_the_oracle_solves_every_task_type(split):
    source = HouseholdTasks()
    for task_type in catalogue.TASK_TYPES:
        for spec in source.sample(split, 5, seed=11, task_types=[task_type]):
            commands = plan(spec.instance)
            trace = _trace(source, spec, commands)
            assert trace[-1][3], (spec, commands)  # won
            assert all(step[0] != NOTHING for step in trace[1:])
            steps, won = demonstrate(source.make(spec), random.Random(0))  # the observing demonstrator, no mistakes
            assert won and len(steps) <= 24, (spec, [d.action for _, d in steps])


def test_unseen_split_uses_layouts_and_combinations_never_in_train():
    source = HouseholdTasks()
    train = [s.instance for s in source.sample("train", 600, seed=0)]
    unseen = [s.instance for s in source.sample("valid_unseen", 200, seed=0)]
    seen = [s.instance for s in source.sample("valid_seen", 200, seed=0)]
    train_layouts = {(i.layout.room, i.layout.index) for i in train}
    train_combos = {(i.task_type, i.obj, i.target) for i in train if i.task_type != catalogue.LOOK}
    assert not train_layouts & {(i.layout.room, i.layout.index) for i in unseen}
    assert not train_combos & {(i.task_type, i.obj, i.target) for i in unseen if i.task_type != catalogue.LOOK}
    assert all(i.layout.seen for i in train + seen) and not any(i.layout.seen for i in unseen)
    assert not {i.task_id for i in train} & {i.task_id for i in seen}


def _episode(source, spec, steps, won):
    episode = Episode(source.make(spec).task, 0, 0, spec=spec, won=won)
    for t, (observation, decision) in enumerate(steps):
        episode.steps.append(
            Step(
                t,
                observation.text,
                list(observation.admissible_actions),
                "",
                [],
                [],
                decision.response,
                decision.action,
                True,
                None,
                False,
            )
        )
    return episode


def test_oracle_analysis_passes_format_verification_and_names_the_mistake():
    source = HouseholdTasks(max_steps=20)
    rng = random.Random(3)
    kinds = {"success": 0, "failure": 0}
    for spec in source.sample("train", 36, seed=4):
        rates = {"invalid": 0.3, "revisit": 0.3, "skip_open": 0.3, "skip_transform": 0.6, "wrong_object": 0.3}
        steps, won = demonstrate(source.make(spec), rng, rates, repeat_invalid=0.5)
        reply = source.oracle_analysis(spec, _episode(source, spec, steps, won))
        parsed = parse_skill_reply(reply)
        assert parsed.valid and parsed.summary, reply
        kinds["success" if won else "failure"] += 1
        assert len(parsed.skill.split()) < 90
    assert kinds["success"] and kinds["failure"]
    # a failure that put the object in place unheated gets the "heat first" rule; invalid loops the admissible rule
    spec = source.sample("train", 1, seed=0, task_types=["pick_heat_then_place_in_recep"])[0]
    inst = spec.instance
    home = next(r for o, r in inst.placement if o.startswith(inst.obj + " "))
    target = sorted(r for r in inst.layout.receptacles if r.rsplit(" ", 1)[0] == inst.target)[0]
    opens = lambda r: [f"open {r}"] if r.split()[0] in catalogue.OPENABLE else []  # noqa: E731
    commands = [
        f"go to {home}",
        *opens(home),
        f"take {inst.obj} 1 from {home}",
        f"go to {target}",
        *opens(target),
        f"put {inst.obj} 1 in/on {target}",
        "jump",
        "jump",
    ]
    result = analyze(inst, commands, [True] * len(commands), won=False)
    assert result["episode_skill"].startswith(
        f"Heat the {inst.obj} with the microwave before you put it in the {inst.target}."
    )
    assert RULES["invalid"] in result["episode_skill"]
    success = analyze(inst, plan(inst), [True] * len(plan(inst)), won=True)
    assert success["episode_skill"].startswith(f"To heat a {inst.obj}")
    assert (
        success["episode_summary"].endswith("Outcome: success after 6 step(s). Mistakes: none.")
        or "Outcome: success" in success["episode_summary"]
    )
    json.dumps(success)


def test_the_example_skill_bank_is_the_generated_one():
    folder = REPO / "examples" / "household-skills"
    bank = SkillBank.load(folder)
    assert bank.general == GENERAL
    assert bank.by_type == BY_TYPE
