"""The premise check on the shipped household policy: the states it scores, Δ against a direct scoring, and the command's
report (schemas/premise.schema.json) — plus its refusals before torch loads (test_cli_imports covers the import)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from seed_trainer.algo.actions import parse_action
from seed_trainer.algo.prompts import build_step_prompt
from seed_trainer.cli import main
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.premise.household_states import household_states
from seed_trainer.runlog.schemas import SchemaSet


@pytest.fixture(scope="module")
def states():
    return household_states("dev", 4, 0, max_steps=20, history=3)


def test_states_pair_the_expert_step_with_mistakes_that_differ(states):
    source = HouseholdTasks(max_steps=20)
    spec = source.sample("dev", 4, seed=0)[0]
    first = states[0]
    assert first.task_id == source.make(spec).reset()[0].id
    assert all(t.states for t in states)
    for task in states:
        assert task.oracle_skill and f"Task: {task.task}" in task.analysis_prompt
        for state in task.states:
            assert f"Your task is to: {task.task}" in state.prompt
            admissible = state.prompt.split("Your admissible actions for the current situation are: [", 1)[1]
            assert f"'{state.expert.action}'" in admissible
            assert parse_action(state.expert.response).action == state.expert.action
            for mistake in state.mistakes:
                assert mistake.action != state.expert.action
                if mistake.mistake == "invalid":
                    assert f"'{mistake.action}'" not in admissible
    # the first state of attempt B is the environment's first observation with no history
    env = source.make(spec)
    task, observation = env.reset()
    assert first.states[0].step == 0
    assert first.states[0].prompt == build_step_prompt(
        task=task.description, observation=observation.text, admissible_actions=observation.admissible_actions
    )


def test_the_same_arguments_give_the_same_states(states):
    again = household_states("dev", 4, 0, max_steps=20, history=3)
    assert [(t.task_id, t.oracle_skill, t.states) for t in again] == [
        (t.task_id, t.oracle_skill, t.states) for t in states
    ]


def test_memory_gives_the_prompts_their_line_of_places_searched(states):
    remembered = household_states("dev", 4, 0, max_steps=20, history=3, memory=True)
    line = "Places you have searched so far"
    assert not any(line in state.prompt for task in states for state in task.states)
    later = [state for task in remembered for state in task.states if state.step > 0]
    assert later and all(line in state.prompt for state in later)
    # the same states otherwise: the expert steps and their mistakes
    assert [[(s.step, s.expert, s.mistakes) for s in t.states] for t in remembered] == [
        [(s.step, s.expert, s.mistakes) for s in t.states] for t in states
    ]


def test_delta_is_the_teacher_minus_the_plain_scoring(states):
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir
    from seed_trainer.premise.scoring import Scorer
    from seed_trainer.rl.teacher import teacher_prompt_ids

    policy = Policy.load(
        ModelConfig(path=str(ensure_model_dir("builtin:household-tiny")), device="cpu"),
        with_reference=False,
        trainable=False,
    )
    scorer = Scorer(policy, max_prompt_tokens=1024, temperature=1.0, micro_batch_size=4)
    state, skill = states[0].states[1], states[0].oracle_skill
    response = scorer.response(state.expert.response)
    plain, skilled = scorer.plain_prompt(state.prompt), scorer.skill_prompt(state.prompt, skill)
    assert list(skilled) == teacher_prompt_ids(policy, state.prompt, skill, 1024)
    (scored,) = scorer.deltas([(plain, skilled, response)])
    teacher, student = policy.score([list(skilled), list(plain)], [list(response.ids)] * 2, 1.0, 1)
    assert scored.delta == pytest.approx((teacher - student).tolist(), abs=1e-6)
    assert "action" in scored.kinds and scored.kinds[-1] == "format"  # end of turn
    # scored together with other rows, the same numbers; an empty skill leaves the prompt as is: Δ = 0 exactly
    other = scorer.response(state.mistakes[0].response)
    together = scorer.deltas([(plain, skilled, other), (plain, skilled, response), (plain, plain, response)])
    assert together[1].delta == pytest.approx(scored.delta, abs=1e-6)
    assert scorer.skill_prompt(state.prompt, "") == plain and set(together[2].delta) == {0.0}


def test_the_command_writes_a_valid_report(tmp_path):
    out = tmp_path / "premise.json"
    argv = ["premise", "--model", "builtin:household-tiny", "--household-tasks", "3", "--resamples", "50"]
    assert main([*argv, "--no-own", "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    SchemaSet().validate("premise", report, out.name)
    section = report["expert_vs_mistake"]
    assert section["tasks"] == 3 and section["pairs"] > 0
    assert section["sources"]["own"] == {"status": "n/a", "reason": "--no-own"}
    assert section["sources"]["oracle"]["status"] == "ok"
    assert {c["source"] for c in section["contrasts"]} == {"oracle"}
    assert report["timing"]["forward_tokens"] > 0 and report["runs"] == []
    assert set(report["gate_band"]["sources"]["oracle"]) == {"action", "format", "think"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model", "nowhere"], "--model: nowhere is not a model folder"),
        (["--model", "builtin:nothing"], "--model:"),
        (["--model", "builtin:household-tiny", "--split", "nosuch"], "--split: household has no split 'nosuch'"),
        (["--model", "builtin:household-tiny", "--run", "."], "--run: . is not a run folder (no run.json)"),
        (["--model", "builtin:household-tiny", "--household-tasks", "0"], "nothing to check"),
    ],
)
def test_refusals_name_the_option(tmp_path, extra, message):
    done = subprocess.run(
        [sys.executable, "-m", "seed_trainer", "premise", *extra, "--out", str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert not (tmp_path / "r.json").exists()


EVAL_EXPERIMENT = """\
name: premise-eval
seed: 0
algorithm: grpo
runs_dir: {runs}
model: {{path: "builtin:household-tiny", device: cpu}}
environment: {{name: household, options: {{max_steps: 12}}}}
rollout: {{tasks_per_update: 2, group_size: 2, max_steps: 12, history: 3, max_response_tokens: 48, temperature: 0.4}}
eval: {{tasks: 8, temperature: 0.4, splits: [dev]}}
"""


def test_the_command_scores_a_runs_steps_with_own_skills_and_placebos(tmp_path):
    experiment = tmp_path / "eval.seed.yaml"
    experiment.write_text(EVAL_EXPERIMENT.format(runs=tmp_path), encoding="utf-8")
    run = tmp_path / "eval-run"
    assert main(["eval", str(experiment), "--split", "dev", "--run-dir", str(run)]) == 0
    out = tmp_path / "premise.json"
    argv = ["premise", "--model", "builtin:household-tiny", "--household-tasks", "0", "--run", str(run)]
    assert main([*argv, "--max-trajectories", "6", "--resamples", "50", "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    SchemaSet().validate("premise", report, out.name)
    assert report["expert_vs_mistake"] == {"status": "n/a", "reason": "--household-tasks 0"}
    (section,) = report["runs"]
    assert section["run"] == "eval-run" and section["trajectories"] == 6
    assert set(section["sources"]) == {"own", "placebo_own"}
    for source in section["sources"].values():
        if source["status"] == "ok":  # both outcomes among the six episodes
            assert 0.0 <= source["auc"] <= 1.0 and source["steps_success"] + source["steps_failure"] > 0
        else:
            assert "steps of successful" in source["reason"] or "skill" in source["reason"]
