"""The env-server protocol: our household served by `python -m seed_trainer.envs.serve` in a real subprocess plays
exactly as in-process; a server killed mid-episode, a slow one and malformed replies end that episode with an error
naming it, never a hang, and a run goes on and says so."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from env_servers import ScriptedServer, served
from testenv import subprocess_env

from seed_trainer.compute.policy import Policy
from seed_trainer.envs import EnvironmentFailure, make_task_source
from seed_trainer.envs.env_server import EnvServerTasks
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.json_http import HttpFailure, JsonHttpClient
from seed_trainer.experiment.config import ModelConfig
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.train import train

SPLITS = {"train": [0, 4], "valid_seen": [4, 6]}


def _quick(url: str, **options) -> EnvServerTasks:
    return EnvServerTasks(url, **{"timeout": 5.0, "max_retries": 2, "backoff": 0.01, **options})


def test_served_household_plays_step_for_step_like_in_process():
    local = HouseholdTasks()
    catalog = local.sample("train", 6, seed=3)
    with served("household", "train=6", seed=3) as (_, url):
        remote = _quick(url)
        assert remote.splits == {"train": (0, 6)} and set(remote.task_types) == set(local.task_types)
        specs = remote.sample("train", 6, seed=1)
        assert sorted(s.index for s in specs) == list(range(6))  # a split is drawn without repeats while it lasts
        assert [s.task_type for s in specs] == [catalog[s.index].task_type for s in specs]
        rng = random.Random(0)
        for spec in specs:
            here, there = local.make(catalog[spec.index]), remote.make(spec)
            (task_a, obs_a), (task_b, obs_b) = here.reset(), there.reset()
            assert (task_a.id, task_a.type, task_a.description) == (task_b.id, task_b.type, task_b.description)
            assert (obs_a.text, obs_a.admissible_actions) == (obs_b.text, obs_b.admissible_actions)
            for _ in range(12):  # admissible commands and, now and then, one that is not
                action = rng.choice(obs_a.admissible_actions) if rng.random() < 0.8 else "dance with the mug"
                a, b = here.step(action), there.step(action)
                assert (a.observation.text, a.observation.admissible_actions, a.done, a.won) == (
                    b.observation.text,
                    b.observation.admissible_actions,
                    b.done,
                    b.won,
                )
                assert b.info["valid_command"] == a.info["valid_command"]
                obs_a = a.observation
                if a.done:
                    break
            there.close()


def test_served_household_rollout_matches_in_process(tiny_policy_dir):
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir), device="cpu"), with_reference=False)
    local = HouseholdTasks(max_steps=3)
    catalog = local.sample("valid_seen", 3, seed=5)
    settings = dict(group_size=2, max_steps=3, history_length=2, max_prompt_tokens=256, max_response_tokens=8)
    with served("household", "valid_seen=3", seed=5, options={"max_steps": 3}) as (_, url):
        remote = _quick(url)
        specs = remote.sample("valid_seen", 3, seed=0)
        torch.manual_seed(11)
        over_http = play_episodes(policy, remote, specs, **settings)
    torch.manual_seed(11)
    in_process = play_episodes(policy, local, [catalog[s.index] for s in specs], **settings)

    def shape(episodes):
        return [
            (
                e.task.id,
                e.task.type,
                e.task.description,
                e.won,
                e.final_observation,
                e.error,
                [(s.observation, s.admissible_actions, s.response, s.action, s.valid) for s in e.steps],
            )
            for e in episodes
        ]

    assert shape(over_http) == shape(in_process)
    assert all(len(e.steps) == 3 or e.won for e in over_http)


def test_a_server_killed_mid_episode_fails_that_episode_with_its_name():
    with served("household", "train=2") as (process, url):
        source = _quick(url)
        env = source.make(source.sample("train", 1, seed=0)[0])
        task, observation = env.reset()
        env.step(observation.admissible_actions[0])
        process.kill()
        process.wait(timeout=30)
        with pytest.raises(EnvironmentFailure) as failure:
            env.step("look")
    message = str(failure.value)
    assert f"episode {task.id}" in message and "/step" in message
    assert "connection" in message  # refused or lost: either way the server is gone
    assert failure.value.task == task
    env.close()  # closing against a dead server is quiet


def test_a_rollout_goes_on_when_its_server_dies(tiny_policy_dir):
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir), device="cpu"), with_reference=False)
    with served("household", "train=4") as (process, url):
        source = _quick(url)
        specs = source.sample("train", 2, seed=0)
        make, steps = source.make, [0]

        def make_then_die(spec):  # the server dies during the second round of steps
            env = make(spec)
            step = env.step

            def step_once_then_kill(action):
                steps[0] += 1
                if steps[0] == 5:
                    process.kill()
                    process.wait(timeout=30)
                return step(action)

            env.step = step_once_then_kill
            return env

        source.make = make_then_die
        episodes = play_episodes(
            policy,
            source,
            specs,
            group_size=2,
            max_steps=4,
            history_length=1,
            max_prompt_tokens=256,
            max_response_tokens=6,
        )
    assert len(episodes) == 4
    for episode in episodes:
        assert episode.error is not None and f"episode {episode.task.id}" in episode.error and not episode.won
        assert len(episode.steps) == 2  # the first round was played; the failed step is recorded, then it ends


def test_a_slow_server_times_out_the_step_without_retrying_it():
    options = {"delay": 3.0, "fast_steps": 1}
    with served("env_servers:SlowHousehold", "train=2", options=options) as (_, url):
        source = _quick(url, timeout=0.5)
        env = source.make(source.sample("train", 1, seed=0)[0])
        task, observation = env.reset()
        env.step(observation.admissible_actions[0])  # the first step is fast
        with pytest.raises(EnvironmentFailure) as failure:
            env.step(observation.admissible_actions[0])
    message = str(failure.value)
    assert f"episode {task.id}" in message and "no reply within 0.5 s" in message
    assert "attempts" not in message  # a step the server may have played is never sent twice


@pytest.mark.parametrize(
    "reply, expected",
    [
        (("raw", b"<html>Internal error</html>"), "reply is not JSON: '<html>Internal error</html>'"),
        (("json", ["observation", 1]), "protocol violation: expected a JSON object"),
        (("json", {"reward": 0.0, "done": False}), "protocol violation: no string `observation` or `state`"),
        (
            ("json", {"observation": "ok", "reward": "high", "done": False}),
            "needs a numeric `reward` and a boolean `done`",
        ),
        (("json", {"observation": "ok", "reward": 0.0, "done": "no"}), "needs a numeric `reward` and a boolean `done`"),
        (
            ("json", {"observation": "ok", "reward": 0, "done": False, "available_actions": "look"}),
            "`available_actions` must be a list of strings",
        ),
        (("json", {"error": "env 7 does not exist"}), "the server reports: env 7 does not exist"),
        (("status", 422, {"detail": "action missing"}), "HTTP 422"),
    ],
)
def test_malformed_step_replies_are_protocol_errors_naming_the_episode(reply, expected):
    with ScriptedServer([reply]) as server:
        source = _quick(server.url, splits=SPLITS)
        env = source.make(source.sample("train", 1, seed=0)[0])
        task, observation = env.reset()
        assert task.description == "find the key." and observation.admissible_actions == ["look", "open door"]
        with pytest.raises(EnvironmentFailure) as failure:
            env.step("look")
    assert f"episode {task.id} (environment 7 at {server.url}/step)" in str(failure.value)
    assert expected in str(failure.value)


def test_a_bad_create_or_reset_reply_is_a_protocol_error():
    with ScriptedServer([], reset={"observation": 5}) as server:
        source = _quick(server.url, splits=SPLITS)
        with pytest.raises(EnvironmentFailure, match=r"/reset\): protocol violation: no string `observation`"):
            source.make(source.sample("train", 1, seed=0)[0]).reset()


def test_transient_503_is_retried_and_the_connection_is_reused():
    ok = {"observation": "fine", "reward": 0.0, "done": False}
    with ScriptedServer([("status", 503, {"error": "busy"}), ("json", ok), ("json", ok)]) as server:
        source = _quick(server.url, splits=SPLITS)
        env = source.make(source.sample("train", 1, seed=0)[0])
        env.reset()
        assert env.step("look").observation.text == "fine"  # after one 503
        assert env.step("look").observation.text == "fine"
    assert [path for path, _ in server.requests].count("/step") == 3
    assert len(server.ports) == 1  # create, reset and three steps over one kept-alive connection


def test_client_errors_for_nothing_listening_and_a_bad_url():
    with ScriptedServer([]) as server:
        url = server.url
    client = JsonHttpClient(url, timeout=1.0, max_retries=2, backoff=0.0)
    with pytest.raises(HttpFailure, match=r"connection refused \(is the server running\?\) after 3 attempts"):
        client.post("/step", {"id": 1, "action": "look"})
    with pytest.raises(ValueError, match="not an http"):
        JsonHttpClient("ftp://example/")


def test_options_are_checked_with_clear_messages():
    with ScriptedServer([]) as server:  # it has no /splits
        with pytest.raises(ValueError, match=r"environment.options.splits: needed for the server"):
            make_task_source("env_server", url=server.url, timeout=2.0, max_retries=0)
        with pytest.raises(ValueError, match=r"splits.train: expected \[first, end\)"):
            make_task_source("env_server", url=server.url, splits={"train": [5, 2]})
        with pytest.raises(ValueError, match="unknown option\\(s\\) for env_server: colour"):
            make_task_source("env_server", url=server.url, splits=SPLITS, colour="red")
        with pytest.raises(ValueError, match="preset: unknown 'gym'"):
            make_task_source("env_server", url=server.url, splits=SPLITS, preset="gym")
        source = make_task_source("env_server", url=server.url, splits=SPLITS)
        with pytest.raises(ValueError, match="cannot be sampled by type"):
            source.sample("train", 2, seed=0, task_types=["pick"])
    with pytest.raises(ValueError, match=r"options.url: the environment server does not answer: .*connection refused"):
        make_task_source("env_server", url=server.url, max_retries=0)


def test_a_training_run_goes_on_past_a_failed_episode_and_reports_it(tmp_path, tiny_policy_dir):
    bad_then_fine = [("raw", b"garbage")]
    with ScriptedServer(bad_then_fine) as server:
        data = {
            "name": "remote",
            "seed": 0,
            "algorithm": "grpo",
            "updates": 1,
            "model": {"path": str(tiny_policy_dir), "device": "cpu"},
            "environment": {"name": "env_server", "options": {"url": server.url, "splits": SPLITS, "max_retries": 0}},
            "rollout": {
                "tasks_per_update": 1,
                "group_size": 2,
                "max_steps": 2,
                "history": 1,
                "max_prompt_tokens": 256,
                "max_response_tokens": 6,
            },
            "rl": {"mini_batch_size": 4, "micro_batch_size": 2},
        }
        path = tmp_path / "remote.seed.yaml"
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        run_dir = train(load_experiment(path), path, echo=None)
    check = check_run(run_dir)
    assert check.ok, [str(e) for e in check.errors]
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed"
    warnings = [e for e in reader.events() if e.get("code") == "environment_failure"]
    assert len(warnings) == 1 and "update 1: episode train-" in warnings[0]["message"]
    assert "reply is not JSON: 'garbage'" in warnings[0]["message"]
    (row,) = reader.metrics()
    assert row["episode/environment_failures"] == 1.0
    (kept,) = reader.trajectory_index()  # the failed episode is not trained on: the environment failed, not the policy
    assert kept["sample"] in (0, 1)


def test_the_env_server_benchmark_runs_and_reports_ratios():
    script = Path(__file__).resolve().parents[3] / "bench" / "speed" / "env_server.py"
    done = subprocess.run(
        [sys.executable, str(script), "--episodes", "2", "--steps", "3"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["steps"] >= 2 and report["ratio_to_in_process"]["in_process"] == 1.0
    assert set(report["steps_per_second"]) == {"in_process", "http_keep_alive", "http_new_connection"}
    assert all(rate > 0 for rate in report["steps_per_second"].values())
