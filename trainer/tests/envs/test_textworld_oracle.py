"""The TextWorld demonstrator and oracle analyzer: the pure parts against hand-written trajectories, then a generated
cooking game played by the demonstrator, analysed through `TextWorldTasks.oracle_analysis`, and a few-step TextWorld
bootstrap whose policy takes a SEED update with `opd.skill_source: oracle`."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest
import yaml

from seed_trainer.algo.actions import parse_action
from seed_trainer.algo.json_repair import parse_skill_reply
from seed_trainer.algo.skills import SKILL_HEADER
from seed_trainer.envs.textworld_oracle import (
    RULES,
    Demonstrator,
    analyze,
    classify,
    failure_rules,
    replay,
    rule_kinds,
    subject,
    workflow,
)

needs_textworld = pytest.mark.skipif(
    importlib.util.find_spec("textworld") is None,
    reason="the textworld package is not installed (pip install 'seed-trainer[textworld]'; no Windows wheels)",
)

PLAN = ["examine cookbook", "take red potato from counter", "cook red potato with stove", "prepare meal", "eat meal"]
SEEN = [
    "examine cookbook",
    "examine stove",
    "take red potato from counter",
    "take red apple from counter",
    "cook red potato with stove",
    "cook red potato with oven",
    "close fridge",
    "inventory",
]


def test_commands_are_classified_against_the_walkthrough_and_the_admissible_list():
    assert subject("take red potato from counter") == "red potato"
    assert subject("cook red potato with oven") == "red potato"
    assert classify("take red potato from counter", SEEN, PLAN) == "right"
    assert classify("take red apple from counter", SEEN, PLAN) == "wrong_take"
    assert classify("cook red potato with oven", SEEN, PLAN) == "wrong_prepare"
    assert classify("go north", SEEN, PLAN) == "invalid"
    assert classify("close fridge", SEEN, PLAN) == "detour"


def test_a_success_gets_the_workflow_of_the_recipe():
    reply = analyze(PLAN, "Cook a meal.", PLAN, [SEEN, SEEN, SEEN, ["prepare meal"], ["eat meal"]], won=True)
    assert reply == {
        "episode_summary": "Task: Cook a meal. Outcome: success after 5 step(s). Mistakes: none.",
        "episode_skill": "Examine the cookbook first, then follow its recipe in order: take red potato from counter; "
        "cook red potato with stove; prepare meal; eat meal.",
    }
    assert workflow(["go north", "take coin"]) == "Follow the task's directions in order: go north; take coin."


def test_a_spoiled_meal_without_the_cookbook_gets_the_preparation_rule_first():
    commands = [
        "take red apple from counter",
        "go north",
        "go north",
        "take red potato from counter",
        "cook red potato with oven",
    ]
    found = replay(PLAN, commands, [SEEN] * len(commands), won=False)
    assert (found.invalid, found.repeated_invalid, found.read_cookbook) == (2, 1, False)
    assert (found.wrong_takes, found.wrong_prepares, found.progress) == (
        ["red apple"],
        ["cook red potato with oven"],
        1,
    )
    rules = failure_rules(PLAN, found)
    assert rules[:4] == [
        "Prepare only as the recipe says (cook red potato with stove): any other cooking or cutting spoils the meal.",
        "Take only what the recipe needs (red potato) and leave everything else.",
        RULES["skip_cookbook"],
        RULES["invalid"],
    ]
    assert rules[-1] == workflow(PLAN)
    reply = analyze(PLAN, "Cook a meal.", commands, [SEEN] * len(commands), won=False)
    assert reply["episode_skill"] == " ".join(rules[:2])
    assert reply["episode_summary"] == (
        "Task: Cook a meal. Outcome: failure after 5 step(s). Mistakes: 2 command(s) were not admissible; the cookbook "
        "was never read; took red apple, which the recipe does not need; cook red potato with oven spoiled an "
        "ingredient; 1 of 5 steps of the walkthrough done."
    )
    assert rule_kinds(PLAN, found) == {"wrong_prepare", "wrong_take"}
    assert rule_kinds(PLAN, replay(PLAN, PLAN, [SEEN] * 5, won=True)) == {
        "skip_cookbook",
        "wrong_take",
        "wrong_prepare",
    }


def test_an_unfinished_episode_with_detours_gets_the_detour_rule_and_the_workflow():
    commands = ["examine cookbook", "close fridge", "examine stove", "take red potato from counter"]
    found = replay(PLAN, commands, [SEEN] * 4, won=False)
    assert (found.detours, found.progress, found.invalid) == (2, 2, 0)
    assert failure_rules(PLAN, found) == [RULES["detour"], workflow(PLAN)]
    assert rule_kinds(PLAN, found) == {"detour", "skip_cookbook", "wrong_take", "wrong_prepare"}


def test_the_demonstrator_reads_first_follows_the_policy_and_makes_the_mistakes_it_is_asked_for():
    clean = Demonstrator(PLAN, random.Random(0))
    assert clean.decide(SEEN, PLAN[1:]).action == "examine cookbook"
    assert clean.decide(SEEN, PLAN[1:]).action == "take red potato from counter"
    wrong = Demonstrator(PLAN, random.Random(0), {"wrong_prepare": 1.0, "skip_cookbook": 1.0})
    first = wrong.decide(SEEN, PLAN[2:])
    assert (first.action, first.mistake) == ("cook red potato with oven", "wrong_prepare")
    assert wrong.decide(SEEN, []) is None  # the meal is spoiled: nothing left to demonstrate
    invalid = Demonstrator(PLAN[1:], random.Random(0), {"invalid": 1.0}, repeat_invalid=1.0)
    bad = invalid.decide(SEEN, PLAN[1:])
    assert bad.mistake == "invalid" and bad.action not in SEEN
    invalid.after(bad, SEEN)
    again = invalid.decide(SEEN, PLAN[1:])
    assert again.action == bad.action and again.response.startswith("<think>")


@pytest.fixture(scope="module")
def cooking(tmp_path_factory):
    from seed_trainer.envs.textworld_games import TextWorldTasks

    cache = tmp_path_factory.mktemp("textworld-oracle-cache")
    return TextWorldTasks(
        variants={"cook": {"recipe": 1, "take": 1, "cook": True}},
        games_per_split={"train": 1, "valid_seen": 1, "valid_unseen": 0},
        cache_dir=str(cache),
        max_steps=10,
    )


@needs_textworld
def test_a_generated_game_is_won_by_its_demonstration_and_analysed_by_the_oracle(cooking):
    from seed_trainer.envs.textworld_oracle import demonstrate, walkthrough
    from seed_trainer.rl.rollout import Episode, Step

    (spec,) = cooking.sample("train", 1, seed=0)
    plan = walkthrough(spec.path)
    assert plan[0] == "examine cookbook" and plan[-2:] == ["prepare meal", "eat meal"]
    assert any(c.startswith("cook ") for c in plan) and "inventory" not in plan
    env = cooking.make(spec, guided=True)
    steps, won = demonstrate(env, plan, random.Random(0))
    assert won and [d.action for _, d in steps] == plan
    steps, won = demonstrate(env, plan, random.Random(0), {"wrong_prepare": 1.0})
    assert not won and steps[-1][1].mistake == "wrong_prepare" and env.remaining == []
    env.close()
    episode = Episode(
        task=env.task,
        group=0,
        index=0,
        won=False,
        spec=spec,
        steps=[
            Step(
                t=i,
                observation=o.text,
                admissible_actions=o.admissible_actions,
                prompt="",
                prompt_ids=[],
                response_ids=[],
                response=d.response,
                action=d.action,
                valid=True,
                invalid_reason=None,
                truncated=False,
            )
            for i, (o, d) in enumerate(steps)
        ],
    )
    reply = json.loads(cooking.oracle_analysis(spec, episode))
    assert reply["episode_skill"].startswith(
        "Prepare only as the recipe says (" + next(c for c in plan if c.startswith("cook "))
    )
    assert reply["episode_summary"].startswith("Task: " + env.task.description)


FEW = dict(
    episodes=12,
    steps=3,
    batch_size=4,
    warmup=2,
    eval_episodes=1,
    hidden_size=32,
    layers=1,
    heads=2,
    kv_heads=1,
    intermediate_size=64,
    vocab_size=600,
    max_steps=10,
    eval_splits=("valid_seen",),
)


@needs_textworld
def test_a_few_step_textworld_bootstrap_and_a_seed_update_with_oracle_skills(tmp_path, cooking):
    from seed_trainer.bootstrap.textworld import TextWorldBootstrapConfig, make_examples
    from seed_trainer.bootstrap.tiny_policy import bootstrap
    from seed_trainer.experiment.loading import load_experiment
    from seed_trainer.runlog import RunReader, check_run
    from seed_trainer.stages.train import train

    options = {"variants": cooking.variants, "games_per_split": cooking.counts, "cache_dir": str(cooking.cache)}
    config = TextWorldBootstrapConfig(**FEW, **options)
    examples = make_examples(config)
    steps = [e for e in examples if e.kind == "step"]
    analyses = [e for e in examples if e.kind == "analysis"]
    assert analyses and all(parse_skill_reply(e.response).valid for e in analyses)
    assert all(parse_action(e.response).valid for e in steps)
    assert all(e.prompt.startswith("You are an expert agent playing a text adventure game") for e in steps)
    assert 0 < sum(SKILL_HEADER in e.prompt for e in steps) < len(steps)
    assert make_examples(config) == examples  # deterministic
    model = bootstrap(tmp_path / "textworld-tiny", config, echo=None)
    report = json.loads((model / "bootstrap.json").read_text())
    assert report["config"]["env"] == "textworld" and report["eval"]["valid_seen"]["episodes"] == 1
    data = {
        "name": "tw-oracle",
        "seed": 0,
        "algorithm": "seed",
        "updates": 1,
        "model": {"path": str(model), "device": "cpu"},
        "environment": {"name": "textworld", "options": {"kind": "cooking", **options, "max_steps": 4}},
        "rollout": {
            "tasks_per_update": 1,
            "group_size": 2,
            "max_steps": 4,
            "history": 2,
            "max_prompt_tokens": 1024,
            "max_response_tokens": 16,
        },
        "opd": {"skill_source": "oracle"},
        "rl": {"mini_batch_size": 8, "micro_batch_size": 4, "lr": 1e-4},
        "eval": {"tasks": 1, "splits": ["valid_seen"]},
    }
    path = tmp_path / "tw.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    run_dir = train(load_experiment(path), path, echo=None)
    check = check_run(run_dir)
    assert check.ok, [str(e) for e in check.errors]
    reader = RunReader(run_dir)
    skills = [reader.trajectory(row).get("skill") for row in reader.trajectory_index() if row.get("phase") == "train"]
    assert skills and all(s and s["source"] == "oracle" and s["valid"] for s in skills)
    assert all("cookbook" in s["text"].lower() or "recipe" in s["text"].lower() for s in skills)


@pytest.mark.skipif(
    not (Path(__file__).resolve().parents[2] / "seed_trainer" / "assets" / "textworld-tiny").is_dir(),
    reason="no committed TextWorld tiny policy",
)
def test_the_committed_textworld_checkpoint_is_the_default_recipe_and_small():
    """The committed TextWorld policy is what `python -m seed_trainer.bootstrap OUT --env textworld` rebuilds."""
    from dataclasses import asdict

    import seed_trainer
    from seed_trainer.bootstrap.textworld import TextWorldBootstrapConfig

    folder = Path(seed_trainer.__file__).parent / "assets" / "textworld-tiny"
    report = json.loads((folder / "bootstrap.json").read_text())
    recipe = json.loads(json.dumps({k: v for k, v in asdict(TextWorldBootstrapConfig()).items() if k != "threads"}))
    assert {k: v for k, v in report["config"].items() if k != "threads"} == recipe
    assert sum(p.stat().st_size for p in folder.iterdir()) <= 3 * 1024 * 1024
