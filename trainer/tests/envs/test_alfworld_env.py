"""The ALFWorld adapter on transcripts written here (ALFWorld's data cannot be downloaded on the test machines): game
discovery and task types from the paths, the data check's message, observation cleaning, admissible commands, `won`,
the step limit and the prompt. The AgentGym ALFWorld server's replies go through the env_server client."""

from __future__ import annotations

import json

import pytest
from env_servers import ScriptedServer

from seed_trainer.envs import make_task_source
from seed_trainer.envs.alfworld import (
    INTRO,
    TASK_TYPES,
    AlfworldTasks,
    admissible,
    split_first_observation,
    task_type_of,
)
from seed_trainer.envs.env_server import EnvServerTasks

FIRST = (
    "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a "
    "cabinet 1, a coffeemachine 1, a countertop 1, and a sinkbasin 1.\n\nYour task is to: put a clean mug in "
    "coffeemachine."
)
# (command, observation, done, won, admissible commands after it)
TRANSCRIPT = [
    (
        "go to countertop 1",
        "You arrive at countertop 1. On the countertop 1, you see a mug 1.",
        False,
        False,
        ["examine countertop 1", "go to sinkbasin 1", "help", "take mug 1 from countertop 1"],
    ),
    (
        "take mug 1 from countertop 1",
        "You pick up the mug 1 from the countertop 1.",
        False,
        False,
        ["go to sinkbasin 1", "help", "inventory"],
    ),
    (
        "go to sinkbasin 1",
        "You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.",
        False,
        False,
        ["clean mug 1 with sinkbasin 1", "go to coffeemachine 1", "help"],
    ),
    (
        "clean mug 1 with sinkbasin 1",
        "You clean the mug 1 using the sinkbasin 1.",
        False,
        False,
        ["go to coffeemachine 1", "help"],
    ),
    (
        "go to coffeemachine 1",
        "You arrive at coffeemachine 1. On the coffeemachine 1, you see nothing.",
        False,
        False,
        ["help", "move mug 1 to coffeemachine 1"],
    ),
    ("move mug 1 to coffeemachine 1", "You move the mug 1 to the coffeemachine 1.", True, True, ["help"]),
]


class TranscriptGame:
    """Replays TRANSCRIPT; a command off the script answers as ALFWorld does."""

    def __init__(self, game_file: str, max_steps: int) -> None:
        self.game_file, self.max_steps, self.at = game_file, max_steps, 0

    def reset(self):
        self.at = 0
        return FIRST, {"admissible_commands": ["go to countertop 1", "help", "look"], "won": False}

    def step(self, command):
        if self.at < len(TRANSCRIPT) and command == TRANSCRIPT[self.at][0]:
            _, text, done, won, commands = TRANSCRIPT[self.at]
            self.at += 1
            return text, done, {"admissible_commands": commands, "won": won}
        return "Nothing happens.", False, {"admissible_commands": ["help", "look"], "won": False}


def write_games(root, layout):
    """layout: {split: [(task folder, trial, solvable)]} → json_2.1.1/<split>/<task>/<trial>/game.tw-pddl files."""
    for split, games in layout.items():
        for task, trial, solvable in games:
            folder = root / "json_2.1.1" / split / task / trial
            folder.mkdir(parents=True)
            (folder / "game.tw-pddl").write_text(json.dumps({"solvable": solvable, "pddl_problem": "(define)"}))


GAMES = {
    "train": [
        ("pick_clean_then_place_in_recep-Mug-None-CoffeeMachine-10", "trial_T1", True),
        ("pick_and_place_simple-Book-None-Desk-305", "trial_T2", True),
        ("pick_and_place_simple-Book-None-Desk-305", "trial_T3", False),  # not solvable: left out
        ("pick_heat_then_place_in_recep-Egg-None-Fridge-13", "trial_T4", True),
        ("pick_and_place_simple-Apple-Sliced-Desk-1", "trial_T5", True),  # Sliced: left out
    ],
    "valid_seen": [("look_at_obj_in_light-CD-None-DeskLamp-308", "trial_T6", True)],
    "valid_unseen": [("pick_two_obj_and_place-Pen-None-Drawer-2", "trial_T7", True)],
}


@pytest.fixture
def alfworld(tmp_path):
    write_games(tmp_path, GAMES)
    return AlfworldTasks(data_dir=str(tmp_path), game_factory=TranscriptGame)


def test_task_type_comes_from_the_game_path():
    path = "/data/json_2.1.1/valid_seen/pick_cool_then_place_in_recep-Apple-None-Microwave-19/trial_T2019/game.tw-pddl"
    assert task_type_of(path) == "pick_cool_then_place_in_recep"
    with pytest.raises(ValueError, match="no ALFWorld task type"):
        task_type_of("/data/games/x/game.tw-pddl")


def test_first_observation_loses_the_banner_and_gives_the_task():
    observation, task = split_first_observation(FIRST)
    assert observation.startswith("You are in the middle of a room.") and "Welcome" not in observation
    assert "Your task is to" not in observation and task == "put a clean mug in coffeemachine."
    assert admissible(["go to desk 1", "help", "look"]) == ["go to desk 1", "look"]


def test_games_are_found_as_alfworld_selects_them_and_sampled_deterministically(alfworld):
    train = alfworld.sample("train", 3, seed=4)
    assert sorted(s.task_type for s in train) == sorted(
        ["pick_clean_then_place_in_recep", "pick_and_place_simple", "pick_heat_then_place_in_recep"]
    )
    assert len({s.game for s in train}) == 3  # no repeats while the split lasts
    assert alfworld.sample("train", 3, seed=4) == train and alfworld.sample("train", 5, seed=4)[:3] == train
    (heat,) = alfworld.sample("train", 1, seed=0, task_types=["pick_heat_then_place_in_recep"])
    assert "Egg" in heat.game
    with pytest.raises(ValueError, match="unknown task type"):
        alfworld.sample("train", 1, seed=0, task_types=["pick"])
    with pytest.raises(ValueError, match="no game of type look_at_obj_in_light"):
        alfworld.sample("train", 1, seed=0, task_types=["look_at_obj_in_light"])
    assert set(alfworld.task_types) == set(TASK_TYPES)


def test_an_episode_plays_the_transcript_to_won(alfworld):
    (spec,) = alfworld.sample("train", 1, seed=0, task_types=["pick_clean_then_place_in_recep"])
    env = alfworld.make(spec)
    task, observation = env.reset()
    assert task.type == "pick_clean_then_place_in_recep" and task.description == "put a clean mug in coffeemachine."
    assert (
        task.id == "train/pick_clean_then_place_in_recep-Mug-None-CoffeeMachine-10/trial_T1" and task.split == "train"
    )
    assert observation.admissible_actions == ["go to countertop 1", "look"]
    wrong = env.step("go to the moon")
    assert wrong.observation.text == "Nothing happens." and not wrong.done and not wrong.won
    for command, text, _, won, commands in TRANSCRIPT:
        result = env.step(command)
        assert result.observation.text == text and result.won == won
        assert result.observation.admissible_actions == [c for c in commands if c != "help"]
    assert result.done and result.won


def test_the_step_limit_ends_an_episode(tmp_path):
    write_games(tmp_path, GAMES)
    source = AlfworldTasks(data_dir=str(tmp_path), max_steps=2, game_factory=TranscriptGame)
    env = source.make(source.sample("valid_seen", 1, seed=0)[0])
    env.reset()
    assert not env.step("look").done and env.step("look").done


def test_the_prompt_names_alfworld_and_keeps_the_task_line(alfworld):
    prompt = alfworld.step_prompt(
        task="put a clean mug in coffeemachine.",
        observation="You arrive at sinkbasin 1.",
        admissible_actions=["go to desk 1", "look"],
        history=[("start", "go to sinkbasin 1")],
        history_length=5,
    )
    assert prompt.startswith(INTRO + "\nYour task is to: put a clean mug in coffeemachine.\n")
    assert "'go to desk 1', 'look'" in prompt and "<action>" in prompt and "Now it's your turn" in prompt


def test_missing_data_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(ValueError) as error:
        AlfworldTasks(game_factory=TranscriptGame)
    message = str(error.value)
    assert str(tmp_path / "nowhere") in message and "alfworld-download" in message and "ALFWORLD_DATA" in message
    write_games(tmp_path / "partial", {"train": GAMES["train"]})
    with pytest.raises(ValueError, match=r"no ALFWorld games for valid_seen, valid_unseen under .*alfworld-download"):
        AlfworldTasks(data_dir=str(tmp_path / "partial"), game_factory=TranscriptGame)


def test_without_the_package_the_message_says_what_to_install(tmp_path, monkeypatch):
    import importlib.util

    if importlib.util.find_spec("alfworld") is not None:
        pytest.skip("the alfworld package is installed here, so its absence cannot be shown")
    write_games(tmp_path, GAMES)
    with pytest.raises(ValueError, match=r"pip install 'seed-trainer\[alfworld\]'.*alfworld-download"):
        make_task_source("alfworld", data_dir=str(tmp_path))


def test_the_agentgym_alfworld_server_plugs_in_through_its_preset():
    reset = {
        "id": 7,
        "observation": FIRST.split("\n\n", 1)[1],
        "available_actions": ["go to countertop 1", "look"],
        "task_type": "pick_clean_then_place_in_recep-Mug-None-CoffeeMachine-10/trial_T1",
    }
    step = {
        "observation": "You arrive at countertop 1.",
        "reward": 0.0,
        "done": False,
        "available_actions": ["take mug 1 from countertop 1"],
    }
    won = {
        "observation": "You move the mug 1 to the coffeemachine 1.",
        "reward": 1.0,
        "done": True,
        "available_actions": [],
    }
    with ScriptedServer([("json", step), ("json", won)], reset=reset) as server:
        source = EnvServerTasks(server.url, preset="alfworld", splits={"valid_seen": [0, 140]}, max_retries=0)
        env = source.make(source.sample("valid_seen", 1, seed=0)[0])
        task, observation = env.reset()
        assert task.type == "pick_clean_then_place_in_recep" and task.description == "put a clean mug in coffeemachine."
        assert observation.admissible_actions == ["go to countertop 1", "look"]
        assert not env.step("go to countertop 1").won
        last = env.step("move mug 1 to coffeemachine 1")
        assert last.won and last.done
    (_, create), (_, reset_body) = server.requests[:2]
    assert reset_body["id"] == 7 and reset_body["world_type"] == "Text" and 0 <= reset_body["game"] < 140
    assert server.requests[2] == ("/step", {"id": 7, "action": "go to countertop 1"})
