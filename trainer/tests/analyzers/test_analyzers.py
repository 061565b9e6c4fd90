"""Analyzers behind one interface. The external one is tested against a real chat-completions server on 127.0.0.1
with scripted replies: each outcome ends in its documented state and the API key never reaches a file."""

from __future__ import annotations

import json
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from chat_server import GOOD, ChatServer
from counter_env import CounterTasks
from testenv import subprocess_env

from seed_trainer.analyzers import AnalyzerError, make_analyzer
from seed_trainer.analyzers.external import ExternalAnalyzer
from seed_trainer.analyzers.oracle import OracleAnalyzer
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.collect import collect

TESTS = Path(__file__).resolve().parents[1] / "support"  # the helpers subprocesses import
KEY_ENV = "SEED_TEST_ANALYZER_KEY"
MALFORMED = '{"episode_summary": "cut short", "episode_skill": '


@pytest.fixture
def api_key(monkeypatch):
    key = "sk-test-" + secrets.token_hex(16)
    monkeypatch.setenv(KEY_ENV, key)
    return key


def _analyzer(server: ChatServer, **kwargs) -> ExternalAnalyzer:
    settings = {"api_key_env": KEY_ENV, "max_tokens": 64, "timeout": 0.5, "max_retries": 1, "backoff": 0.0, **kwargs}
    return ExternalAnalyzer(server.base_url, "test-model", **settings)


def test_a_good_reply_is_a_valid_analysis_and_the_request_is_the_documented_one(api_key):
    with ChatServer([("reply", json.dumps(GOOD))]) as server:
        analysis = _analyzer(server).complete("the analysis prompt")
    assert analysis.parse.valid and analysis.parse.skill == GOOD["episode_skill"] and analysis.attempts == 1
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {api_key}"
    assert request["body"] == {
        "model": "test-model",
        "messages": [{"role": "user", "content": "the analysis prompt"}],
        "temperature": 0,
        "max_tokens": 64,
    }


def test_a_fenced_reply_is_repaired(api_key):
    with ChatServer([("fenced", GOOD)]) as server:
        analysis = _analyzer(server).complete("p")
    assert analysis.parse.valid and analysis.parse.summary == GOOD["episode_summary"] and "```json" in analysis.raw


def test_malformed_json_is_an_invalid_analysis_with_the_raw_reply(api_key):
    with ChatServer([("reply", MALFORMED)]) as server:
        analysis = _analyzer(server).complete("p")
    assert not analysis.parse.valid and analysis.parse.reason and analysis.raw == MALFORMED


def test_429_is_retried_after_retry_after_then_succeeds(api_key):
    slept = []
    script = [
        ("status", 429, {"error": {"message": "slow down"}}, {"Retry-After": "0.05"}),
        ("reply", json.dumps(GOOD)),
    ]
    with ChatServer(script) as server:
        analyzer = _analyzer(server, sleep=slept.append)
        analysis = analyzer.complete("p")
    assert analysis.parse.valid and analysis.attempts == 2 and analyzer.retries == 1 and slept == [0.05]
    assert len(server.requests) == 2


def test_5xx_is_retried_with_doubling_backoff_then_recorded_invalid(api_key):
    slept = []
    with ChatServer(default=("status", 503, {"error": {"message": "overloaded"}})) as server:
        analysis = _analyzer(server, max_retries=3, backoff=0.5, sleep=slept.append).complete("p")
    assert slept == [0.5, 1.0, 2.0] and len(server.requests) == 4
    assert not analysis.parse.valid and analysis.parse.reason == "HTTP 503: overloaded after 4 attempts"


def test_a_timeout_is_retried_then_recorded_invalid(api_key):
    with ChatServer([("sleep", 1.5, json.dumps(GOOD))] * 2) as server:
        analysis = _analyzer(server, timeout=0.3).complete("p")
    assert not analysis.parse.valid and analysis.raw is None and analysis.attempts == 2
    assert analysis.parse.reason == "no reply within 0.3 s after 2 attempts"


def test_401_fails_with_a_clear_error_that_names_the_variable_not_the_key(api_key):
    with ChatServer([("status", 401, {"error": {"message": "Incorrect API key provided"}})]) as server:
        with pytest.raises(AnalyzerError) as caught:
            _analyzer(server).complete("p")
    assert caught.value.code == "analyzer_auth" and len(server.requests) == 1  # never retried
    assert f"${KEY_ENV}" in str(caught.value) and "HTTP 401" in str(caught.value) and api_key not in str(caught.value)


def test_a_malformed_body_is_an_invalid_analysis(api_key):
    with ChatServer([("raw", b"<html>gateway</html>"), ("raw", b'{"choices": []}')]) as server:
        analyzer = _analyzer(server)
        not_json, no_choice = analyzer.complete("p"), analyzer.complete("p")
    assert not_json.parse.reason.startswith("malformed response body: not JSON") and not not_json.parse.valid
    assert "no choices[0].message.content" in no_choice.parse.reason


def test_other_4xx_are_invalid_without_retry_and_404_is_a_setting_error(api_key):
    with ChatServer(
        [("status", 400, {"error": {"message": "prompt too long"}}), ("status", 404, {"error": "no such model"})]
    ) as server:
        analyzer = _analyzer(server)
        too_long = analyzer.complete("p")
        with pytest.raises(AnalyzerError) as caught:
            analyzer.complete("p")
    assert too_long.parse.reason == "HTTP 400: prompt too long" and too_long.attempts == 1
    assert caught.value.code == "analyzer_not_found" and "analyzer.base_url" in str(caught.value)


def test_a_refused_connection_is_retried_then_fails_clearly(api_key):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    analyzer = ExternalAnalyzer(f"http://127.0.0.1:{port}/v1", "m", api_key_env=KEY_ENV, max_retries=2, backoff=0.0)
    with pytest.raises(AnalyzerError) as caught:
        analyzer.complete("p")
    assert caught.value.code == "analyzer_unreachable"
    assert "connection refused after 3 attempts" in str(caught.value)


def test_a_missing_key_variable_is_a_setting_error(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(AnalyzerError, match=f"\\${KEY_ENV}, which is not set") as caught:
        ExternalAnalyzer("http://127.0.0.1:9/v1", "m", api_key_env=KEY_ENV)
    assert caught.value.code == "analyzer_config"


def test_requests_in_flight_never_exceed_the_concurrency_limit(api_key, counter_tasks):
    from seed_trainer.envs.base import Task
    from seed_trainer.rl.rollout import Episode

    episodes = [Episode(Task(f"t{i}", "counting", "set the counter to 1.", "train"), 0, i) for i in range(12)]
    with ChatServer(default=("sleep", 0.1, json.dumps(GOOD))) as server:
        analyses = _analyzer(server, concurrency=3, timeout=5).analyze(episodes)
    assert all(a.parse.valid for a in analyses) and len(server.requests) == 12
    assert server.max_in_flight == 3


def test_oracle_and_self_analyzers_share_the_interface(tiny_policy_dir, tmp_path):
    class Knowing(CounterTasks):
        def oracle_analysis(self, spec, episode):
            return (
                "```json\n"
                + json.dumps({"episode_summary": "s", "episode_skill": f"add one {spec.target} times"})
                + "\n```"
            )

    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ExperimentConfig
    from seed_trainer.rl.rollout import play_episodes

    source = Knowing()
    config = ExperimentConfig.model_validate(
        {"name": "x", "model": {"path": str(tiny_policy_dir)}, "analyzer": {"kind": "oracle", "max_tokens": 4}}
    )
    policy = Policy.load(config.model, with_reference=False)
    episodes = play_episodes(
        policy,
        source,
        source.sample("train", 2, seed=0),
        group_size=1,
        max_steps=1,
        history_length=1,
        max_prompt_tokens=256,
        max_response_tokens=4,
    )
    oracle = make_analyzer(config, task_source=source)
    assert oracle.source == "oracle" and [a.parse.skill for a in oracle.analyze(episodes)] == [
        f"add one {spec.target} times" for spec in source.sample("train", 2, seed=0)
    ]
    mine = make_analyzer(
        config.model_copy(update={"analyzer": config.analyzer.model_copy(update={"kind": "self"})}), policy=policy
    )
    analyses = mine.analyze(episodes)
    assert mine.source == "self" and len(analyses) == 2 and all(isinstance(a.raw, str) for a in analyses)
    with pytest.raises(AnalyzerError, match="has no oracle_analysis"):
        OracleAnalyzer(CounterTasks())


# -- end to end: collection through the external analyzer ----------------------------------------------------------


def _collect_experiment(tmp_path: Path, model_dir: Path, base_url: str, **analyzer) -> Path:
    data = {
        "name": "collect-external",
        "seed": 2,
        "model": {"path": str(model_dir)},
        "environment": {"name": "counter_env:CounterTasks"},
        "rollout": {"max_steps": 2, "history": 1, "max_prompt_tokens": 256, "max_response_tokens": 6},
        "analyzer": {
            "kind": "external",
            "base_url": base_url,
            "model": "test-model",
            "api_key_env": KEY_ENV,
            "timeout": 0.4,
            "max_retries": 1,
            "backoff": 0.0,
            "concurrency": 1,
            **analyzer,
        },
        "collect": {"tasks_per_type": 4, "rollouts_per_task": 2, "tasks_per_batch": 2},
    }
    path = tmp_path / "collect.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _files_holding(root: Path, secret: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_collect_with_the_external_analyzer_records_every_outcome_and_never_the_key(tmp_path, tiny_policy_dir, api_key):
    script = [
        ("reply", json.dumps(GOOD)),  # trajectory 1: valid
        ("fenced", GOOD),  # 2: valid after repair
        ("reply", MALFORMED),  # 3: invalid, parser's reason
        ("status", 429, {"error": {"message": "rate limited"}}),
        ("reply", json.dumps(GOOD)),  # 4: valid, 2 attempts
        ("sleep", 1.2, json.dumps(GOOD)),
        ("sleep", 1.2, json.dumps(GOOD)),  # 5: invalid, timed out twice
    ]
    with ChatServer(script) as server:
        path = _collect_experiment(tmp_path, tiny_policy_dir, server.base_url)
        run_dir = collect(load_experiment(path), path, echo=None)
    assert check_run(run_dir).ok
    reader = RunReader(run_dir)
    skills = reader.skills()
    assert len(skills) == 8 and reader.manifest()["status"] == "completed"
    assert [s["valid"] for s in skills] == [True, True, False, True, False, True, True, True]
    assert skills[2]["raw"] == MALFORMED and skills[2]["reason"]
    assert skills[3]["attempts"] == 2 and skills[4]["attempts"] == 2
    assert skills[4]["reason"] == "no reply within 0.4 s after 2 attempts" and "raw" not in skills[4]
    assert all(
        s["source"] == "external" and s["model"] == "test-model" and s["review"] == {"state": "pending"} for s in skills
    )
    for skill in skills:  # each record points at its trajectory, which carries the same analysis
        trajectory = reader.trajectory(skill["trajectory"]["id"])
        assert trajectory["skill"]["valid"] == skill["valid"] and trajectory["phase"] == "collect"
    rows = [r for r in reader.metrics() if r["kind"] == "collect"]
    assert [r["step"] for r in rows] == [1, 2] and [r["skill/parse_rate"] for r in rows] == [0.75, 0.75]
    assert [r["analyzer/retries"] for r in rows] == [1, 1]  # the 429, then the first timeout
    assert _files_holding(tmp_path, api_key) == []


def test_collect_fails_clearly_on_401_through_the_command_line_and_never_writes_the_key(
    tmp_path, tiny_policy_dir, api_key
):
    with ChatServer(default=("status", 401, {"error": {"message": "invalid key"}})) as server:
        path = _collect_experiment(tmp_path, tiny_policy_dir, server.base_url)
        run_dir = tmp_path / "runs" / "unauthorized"
        run_dir.parent.mkdir()
        done = subprocess.run(
            [sys.executable, "-m", "seed_trainer", "collect", str(path), "--run-dir", str(run_dir)],
            capture_output=True,
            text=True,
            timeout=300,
            env=subprocess_env(),
        )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: analyzer:") and "HTTP 401" in last and f"${KEY_ENV}" in last
    manifest = RunReader(run_dir).manifest()
    assert manifest["status"] == "failed" and "HTTP 401" in manifest["error"]
    assert check_run(run_dir).ok
    assert RunReader(run_dir).skills() == []  # no analysis written for a refused key
    assert api_key not in done.stdout + done.stderr and _files_holding(tmp_path, api_key) == []
