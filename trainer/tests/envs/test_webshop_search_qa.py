"""WebShop over its AgentGym server protocol and search-QA with a Search-R1 retriever, against small local servers:
prompts, action projections, rewards, the task score, and failures of the retriever."""

from __future__ import annotations

import json

import pytest
import torch
from benchmark_servers import MiniRetriever, MiniWebShop
from env_servers import served

from seed_trainer.compute.policy import Policy
from seed_trainer.envs import EnvironmentFailure, make_task_source
from seed_trainer.envs.env_server import EnvServerTasks
from seed_trainer.envs.search_qa import INVALID, exact_match, normalize_answer, parse_search_response
from seed_trainer.envs.webshop import DEFAULT_SPLITS
from seed_trainer.envs.webshop_text import format_page, parse_webshop_response
from seed_trainer.experiment.config import ModelConfig
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.stages.common import rollout_metrics

THINK = "<think>I should look.</think>"


# --- WebShop ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "response, action, reason",
    [
        (f"{THINK}<action>search[red mug]</action>", "search[red mug]", None),
        (f"{THINK}<action>Click[Buy Now]</action>", "click[buy now]", None),
        (f"{THINK}<action>buy the mug</action>", "buy the mug", "the action is neither search[…] nor click[…]"),
        ("<action>click[b01]</action>", "click[b01]", "no <think>…</think> block"),
        (f"{THINK} search[red mug]", f"{THINK} search[red mug]"[-30:].lower(), "no <action>…</action> block"),
    ],
)
def test_webshop_action_projection(response, action, reason):
    assert parse_webshop_response(response) == (action, reason)


def test_webshop_page_loses_the_instruction_the_task_line_repeats():
    page = "WebShop [SEP] Instruction: [SEP] i need a red mug [SEP] Search"
    assert format_page(page, "i need a red mug") == "WebShop | Search"
    assert format_page(page) == "WebShop | Instruction: | i need a red mug | Search"


def _webshop(server, **options):
    return make_task_source("webshop", url=server.url, max_retries=0, **options)


def test_a_webshop_episode_searches_clicks_and_buys_for_reward_1():
    with MiniWebShop() as server:
        source = _webshop(server)
        assert source.splits == {k: tuple(v) for k, v in DEFAULT_SPLITS.items()}
        (spec,) = source.sample("valid_seen", 1, seed=0)
        assert 0 <= spec.index < 500
        env = source.make(spec)
        task, observation = env.reset()
        assert task.type == "webshop" and task.description.startswith("i need a red ceramic mug")
        assert observation.admissible_actions == ["search[<your query>]"]
        result = env.step("search[red ceramic mug]")
        assert result.observation.admissible_actions == [
            "click[back to search]",
            "click[b01]",
            "click[b02]",
            "click[b03]",
        ]
        assert not env.step("click[b01]").done
        env.step("click[red]")
        last = env.step("click[buy now]")
        assert last.done and last.won and last.info["score"] == 1.0
        prompt = source.step_prompt(
            task=task.description,
            observation=result.observation.text,
            admissible_actions=result.observation.admissible_actions,
            history=[],
            history_length=2,
        )
        assert (
            prompt.startswith("You are an expert shopping agent") and f"Your task is to: {task.description}" in prompt
        )
        assert "Instruction:" not in prompt and "'click[b01]'" in prompt
    reset = next(body for path, body in server.requests if path == "/reset")
    assert reset == {"env_idx": 0, "session_id": spec.index}


def test_a_partial_purchase_is_not_won_but_its_score_is_logged():
    with MiniWebShop() as server:
        env = _webshop(server).make(_webshop(server).sample("train", 1, seed=2)[0])
        env.reset()
        for action in ("search[red ceramic mug]", "click[b01]", "click[blue]"):
            env.step(action)
        last = env.step("click[buy now]")
    assert last.done and not last.won and last.info["score"] == 0.5


def test_a_webshop_rollout_logs_the_task_score(tiny_policy_dir):
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir), device="cpu"), with_reference=False)
    with MiniWebShop() as server:
        source = _webshop(server)
        torch.manual_seed(0)
        episodes = play_episodes(
            policy,
            source,
            source.sample("train", 2, seed=0),
            group_size=1,
            max_steps=2,
            history_length=2,
            max_prompt_tokens=256,
            max_response_tokens=6,
        )
    step = episodes[0].steps[0]
    assert step.prompt.startswith("You are an expert shopping agent") and "search[<your query>]" in step.prompt
    assert all(e.score == 0.0 and not e.won and e.error is None for e in episodes)
    assert rollout_metrics(episodes)["episode/task_score"] == 0.0


# --- search-QA ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "response, action, reason",
    [
        ("<think>need facts</think><search> capital of France </search>", "<search>capital of France</search>", None),
        ("<think>known</think><answer>Paris</answer> trailing", "<answer>Paris</answer>", None),
        ("<SEARCH>nile</SEARCH>", "<search>nile</search>", None),
        ("<answer>  </answer>", "<answer></answer>", "empty <answer> block"),
        ("I think it is Paris.", "i think it is paris.", "no <search>…</search> or <answer>…</answer> block"),
        (
            "<search>x</search><answer>y</answer>",
            "<search>x</search><answer>y</answer>"[-30:].lower(),
            "both a <search> and an <answer> block",
        ),
    ],
)
def test_search_action_projection(response, action, reason):
    assert parse_search_response(response) == (action, reason)


def test_exact_match_normalises_like_squad():
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert exact_match("the Paris", ["Paris", "City of Light"]) and not exact_match("Paris, France", ["Paris"])


@pytest.fixture
def questions(tmp_path):
    path = tmp_path / "questions.jsonl"
    rows = [
        {"question": "What is the capital of France?", "golden_answers": ["Paris"], "data_source": "nq"},
        {"question": "Which river flows north through Africa?", "answer": "the Nile", "data_source": "hotpotqa"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_a_search_episode_retrieves_then_answers_by_exact_match(questions):
    with MiniRetriever() as retriever:
        source = make_task_source("search_qa", data={"train": str(questions)}, retriever_url=retriever.url, topk=2)
        assert source.task_types == ["hotpotqa", "nq"]
        (spec,) = source.sample("train", 1, seed=0, task_types=["nq"])
        env = source.make(spec)
        task, observation = env.reset()
        assert task.description == "answer the question: What is the capital of France?" and task.type == "nq"
        result = env.step("<search>capital of France</search>")
        assert result.observation.text.startswith("<information>Doc 1 (Title: Paris) Paris is the capital")
        assert "Doc 2 (Title:" in result.observation.text and not result.done
        invalid = env.step("i think it is paris.")
        assert invalid.observation.text == INVALID and not invalid.done and not invalid.info["valid_command"]
        answered = env.step("<answer>paris</answer>")
        assert answered.done and answered.won and answered.info["score"] == 1.0
    assert retriever.requests[0] == ("/retrieve", {"queries": ["capital of France"], "topk": 2, "return_scores": True})


def test_a_wrong_answer_ends_unwon_and_the_step_limit_ends_the_search(questions):
    with MiniRetriever() as retriever:
        source = make_task_source("search_qa", data={"train": str(questions)}, retriever_url=retriever.url, max_steps=2)
        (spec,) = source.sample("train", 1, seed=0, task_types=["hotpotqa"])
        env = source.make(spec)
        env.reset()
        wrong = env.step("<answer>the Amazon</answer>")
        assert wrong.done and not wrong.won
        env.reset()
        assert not env.step("<search>river</search>").done and env.step("<search>africa</search>").done


def test_a_broken_retriever_fails_the_episode_with_its_name(questions):
    with MiniRetriever(broken=True) as retriever:
        source = make_task_source("search_qa", data={"train": str(questions)}, retriever_url=retriever.url)
        env = source.make(source.sample("train", 1, seed=0)[0])
        task, _ = env.reset()
        with pytest.raises(EnvironmentFailure, match=rf"episode {task.id}: retriever at {retriever.url}: expected"):
            env.step("<search>anything</search>")


def test_bad_question_files_are_located_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "ok?", "golden_answers": ["yes"]}\n{"question": 3}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: needs a string `question`"):
        make_task_source("search_qa", data={"train": str(bad)}, retriever_url="http://127.0.0.1:9")
    with pytest.raises(ValueError, match=r"options.data.train: cannot read"):
        make_task_source("search_qa", data={"train": str(tmp_path / "none.jsonl")}, retriever_url="http://127.0.0.1:9")


def test_search_qa_served_over_the_protocol_keeps_its_prompt_and_format(questions, tiny_policy_dir):
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir), device="cpu"), with_reference=False)
    with MiniRetriever() as retriever:
        options = {"data": {"valid_seen": str(questions)}, "retriever_url": retriever.url}
        with served("search_qa", "valid_seen=2", options=options) as (_, url):
            remote = EnvServerTasks(url, agent="search_qa", max_retries=0)
            assert remote.task_types == ["hotpotqa", "nq"]
            env = remote.make(remote.sample("valid_seen", 1, seed=0)[0])
            task, observation = env.reset()
            assert task.description.startswith("answer the question: ") and observation.text.startswith("Question: ")
            assert env.step("<search>capital of France</search>").observation.text.startswith("<information>Doc 1")
            torch.manual_seed(0)
            episodes = play_episodes(
                policy,
                remote,
                remote.sample("valid_seen", 2, seed=0),
                group_size=1,
                max_steps=2,
                history_length=4,
                max_prompt_tokens=256,
                max_response_tokens=6,
            )
    step = episodes[0].steps[0]
    assert step.prompt.startswith("You are an expert research agent") and "<search> </search>" in step.prompt
    assert all(e.error is None for e in episodes)
    assert step.valid == (parse_search_response(step.response)[1] is None)
