"""The placebo controls of "is it the skill?" (docs/research/skill-controls-plan.md): which skill each control puts in
the teacher's prompt, the proximal control (`grpo_opsd` with `expected`), the refusals at the field, a negative
entropy coefficient, and what the own skills are about."""

import math
from types import SimpleNamespace

import pytest
import torch
import yaml
from testenv import counter_experiment as _experiment

from seed_trainer.algo.estimators import soft_target_loss, vocabulary_gate_weights
from seed_trainer.algo.skill_controls import (
    UNRELATED_TEXTS,
    TeacherSkill,
    Written,
    derangement,
    other_task_skills,
    teacher_skills,
    unrelated_text,
)
from seed_trainer.algo.skill_relevance import (
    relevance_metrics,
    skill_names_target,
    summary_names_task,
    task_terms,
)
from seed_trainer.compute.policy import Policy
from seed_trainer.experiment.config import ExperimentError, ModelConfig
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.rl.teacher import teacher_prompt_ids
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.stages.train import train


def W(group, index, won, skill):
    return Written(group, index, won, skill)


# --- which skill each control inserts ------------------------------------------------------------------------------

# Two groups of four copies. Group 0: copies 0, 1 won; 2, 3 failed. Group 1: copies 0, 3 won; 1, 2 failed, and
# copy 2's analysis was invalid.
TWO_GROUPS = [
    W(0, 0, True, "a0"),
    W(0, 1, True, "a1"),
    W(0, 2, False, "a2"),
    W(0, 3, False, None),  # its own analysis failed: no distillation under any control
    W(1, 0, True, "b0"),
    W(1, 1, False, "b1"),
    W(1, 2, False, None),
    W(1, 3, True, "b3"),
]


def test_other_task_takes_the_same_outcome_from_the_other_group_at_the_nearest_index():
    got = [(t.text, t.group, t.index) if t else None for t in other_task_skills(TWO_GROUPS)]
    assert got == [
        ("b0", 1, 0),  # won, index 0: group 1's winners are 0 and 3; 0 is nearest
        ("b0", 1, 0),  # won, index 1: |1-0| = 1 < |1-3| = 2
        ("b1", 1, 1),  # failed, index 2: group 1's failures are 1 (invalid 2 is one of them): nearest is 2, which is
        #               invalid, so the next valid one cyclically — 1
        None,  # own skill invalid
        ("a0", 0, 0),  # group 1 → group 0 (σ of the last is the first): winners 0, 1; nearest to 0 is 0
        ("a2", 0, 2),  # failed, index 1: group 0's failures are 2 and 3 (invalid); nearest 2
        None,  # own skill invalid
        ("a1", 0, 1),  # won, index 3: winners 0, 1; nearest is 1
    ]


def test_other_task_walks_on_to_the_next_group_when_the_donor_group_has_no_such_outcome():
    written = [
        W(0, 0, True, "a0"),
        W(1, 0, False, "b0"),  # group 1 has no winner
        W(2, 0, True, None),  # group 2's winner has no valid skill
        W(2, 1, False, "c1"),
    ]
    # σ: 0 → 1 → 2 → 0. Group 0's winner: group 1 has none, group 2's is invalid, and group 0 is its own: no donor.
    assert other_task_skills(written) == [
        None,
        TeacherSkill("c1", 2, 1),  # group 1's failure from group 2
        None,
        TeacherSkill("b0", 1, 0),  # group 2's failure: group 0 has no failure, then group 1
    ]


def test_the_derangement_moves_every_group_and_needs_two():
    sigma = derangement([4, 1, 7, 1, 4])
    assert sigma == {1: 4, 4: 7, 7: 1}
    with pytest.raises(ValueError, match="at least two task groups"):
        derangement([3, 3])


def test_unrelated_is_the_fixed_text_nearest_the_skill_length_and_none_is_the_own_skill():
    skill = "x" * 90
    chosen = teacher_skills([W(0, 0, True, skill), W(0, 1, False, None)], "unrelated")
    text = chosen[0].text
    assert text in UNRELATED_TEXTS and chosen[1] is None
    assert abs(len(text) - 90) == min(abs(len(t) - 90) for t in UNRELATED_TEXTS)
    assert unrelated_text(0) == min(UNRELATED_TEXTS, key=len)
    # no text of the list names a household object or place: it is task-free
    from seed_trainer.envs.household.catalogue import FOUND_IN, TARGETS

    places = {p for found in FOUND_IN.values() for p in found} | set(TARGETS) | {"desklamp", "floorlamp"}
    for text in UNRELATED_TEXTS:
        assert not set(task_terms(text)) & (set(FOUND_IN) | places), text
    assert teacher_skills(TWO_GROUPS, "none")[0] == TeacherSkill("a0", 0, 0)
    with pytest.raises(ValueError, match="unknown skill control"):
        teacher_skills(TWO_GROUPS, "shuffle")


# --- through the Stage-2 loop --------------------------------------------------------------------------------------


def _numbered_skills(monkeypatch, invalid=()):
    """Every analysis of the update parses as a valid skill "skill N" (N: its order), except the orders in `invalid`."""
    import seed_trainer.analyzers.self_analysis as analysis
    from seed_trainer.algo.json_repair import parse_skill_reply

    calls = iter(range(10**6))

    def parse(reply):
        n = next(calls)
        if n in invalid:
            return parse_skill_reply("no json")
        return parse_skill_reply(f'{{"episode_summary": "s{n}", "episode_skill": "skill {n} then finish"}}')

    monkeypatch.setattr(analysis, "parse_skill_reply", parse)


def test_other_task_teacher_reads_the_donor_skill_and_the_event_says_whose(tmp_path, tiny_policy_dir, monkeypatch):
    _numbered_skills(monkeypatch, invalid={1})
    path = _experiment(tmp_path, tiny_policy_dir, "seed", opd={"skill_control": "other_task"})
    run_dir = train(load_experiment(path), path, echo=None)
    check = check_run(run_dir)
    assert check.ok, [str(e) for e in check.errors]
    reader = RunReader(run_dir)
    (event,) = [e for e in reader.events() if e["type"] == "skill_control"]
    assert event["control"] == "other_task" and event["step"] == 1
    trajectories = [reader.trajectory(row["id"]) for row in reader.trajectory_index()]
    by_key = {(t["group"], t["sample"]): t for t in trajectories}
    written = [
        W(g, i, t["success"], t["skill"]["text"] if t["skill"]["valid"] else None)
        for (g, i), t in sorted(by_key.items())
    ]
    want = other_task_skills(written)
    got = {(d["group"], d["index"]): (d["donor_group"], d["donor_index"]) for d in event["donors"]}
    assert got == {(w.group, w.index): (c.group, c.index) for w, c in zip(written, want) if c is not None}
    assert all(g != dg for (g, _), (dg, _) in got.items())  # never the own task group
    # the teacher log-probs of a receiver are π_old's (the start weights: one update) under the donor's skill
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)))
    checked = 0
    for (g, i), (dg, di) in got.items():
        receiver, donor = by_key[(g, i)], by_key[(dg, di)]
        assert donor["success"] == receiver["success"] and receiver["skill"]["valid"]
        for step in receiver["steps"]:
            tokens = RunReader.tokens(step)
            ids = teacher_prompt_ids(policy, step["prompt"], donor["skill"]["text"], 256)
            (want_logp,) = policy.score([ids], [list(tokens.ids)])
            assert list(tokens.teacher_logp) == pytest.approx(want_logp.tolist(), abs=1e-5)
            checked += 1
    assert checked > 0
    # the invalid own analysis keeps the trajectory out of the distillation
    invalid = [t for t in trajectories if not t["skill"]["valid"]]
    assert invalid and all(RunReader.tokens(s).gate is None for t in invalid for s in t["steps"])


def test_empty_control_has_g_one_half_on_the_same_tokens_as_seed(tmp_path, tiny_policy_dir, monkeypatch):
    """`grpo_opsd` with `expected` (the proximal control): the same rollouts, the same analyses, the same OPD mask as
    SEED, and g = ½ exactly on every distilled token."""
    runs = {}
    for algorithm in ("seed", "grpo_opsd"):
        _numbered_skills(monkeypatch, invalid={0, 3})
        path = _experiment(tmp_path, tiny_policy_dir, algorithm, opd={"estimator": "expected", "lambda": 0.1})
        runs[algorithm] = RunReader(train(load_experiment(path), path, echo=None))
    masks = {}
    for algorithm, reader in runs.items():
        masks[algorithm] = []
        for row in reader.trajectory_index():
            trajectory = reader.trajectory(row["id"])
            for step in trajectory["steps"]:
                tokens = RunReader.tokens(step)
                masks[algorithm].append((trajectory["group"], trajectory["sample"], tokens.gate is not None))
                if algorithm == "grpo_opsd" and tokens.gate is not None:
                    assert set(tokens.gate) == {0.5}
    assert masks["seed"] == masks["grpo_opsd"]
    assert {m for *_, m in masks["seed"]} == {True, False}
    (row,) = runs["grpo_opsd"].metrics()
    assert row["gate/mean"] == 0.5 and row["loss/opd"] != 0.0
    assert row["opd/active_ratio"] == (runs["seed"].metrics()[0]["opd/active_ratio"])


def test_a_constant_gate_expected_term_is_zero_only_at_pi_old():
    """The proximal pull: with g ≡ ½, −Σ_v ½·π_old(v)·∇log π_θ(v) is 0 at θ = π_old and points back to π_old after a
    step away (an update's second mini-batch on)."""
    old_logits = torch.tensor([[1.0, 0.2, -0.5, 0.0]], dtype=torch.float64)
    old_logp = torch.log_softmax(old_logits, -1)
    weights = vocabulary_gate_weights(old_logp, old_logp, beta=0.0)  # Δ = 0 for β = 0 anyway: g = ½
    assert torch.allclose(weights, 0.5 * old_logp.exp())
    for shift, zero in ((0.0, True), (0.3, False)):
        theta = (old_logits + torch.tensor([[shift, 0.0, 0.0, 0.0]], dtype=torch.float64)).requires_grad_(True)
        logp = torch.log_softmax(theta, -1)
        soft_target_loss(logp.unsqueeze(0), weights.unsqueeze(0)).sum().backward()
        if zero:
            assert torch.allclose(theta.grad, torch.zeros_like(theta.grad), atol=1e-15)
        else:  # ½·(π_θ − π_old): descending it lowers the logit that moved up
            assert theta.grad[0, 0] > 0
            assert torch.allclose(theta.grad, 0.5 * (logp.exp() - old_logp.exp()).detach())


# --- what the config refuses, at the field -------------------------------------------------------------------------


def _write(tmp_path, data):
    path = tmp_path / "x.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("algorithm", ["grpo", "sdar"])
@pytest.mark.parametrize("control", ["other_task", "unrelated"])
def test_a_skill_control_is_refused_at_the_field_without_self_written_skills(tmp_path, algorithm, control):
    data = {"name": "x", "model": {"path": "m"}, "algorithm": algorithm, "opd": {"skill_control": control}}
    if algorithm == "sdar":
        data["sdar"] = {"skill_bank": "bank"}
    path = _write(tmp_path, data)
    with pytest.raises(ExperimentError) as error:
        load_experiment(path)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "skill_control" in t)
    assert f"{path}:{line}:" in str(error.value)
    assert f"opd.skill_control: `{control}` replaces the policy's own skills" in str(error.value)
    for ok in ("seed", "grpo_opsd", "opsd"):
        load_experiment(_write(tmp_path, {**data, "algorithm": ok, "sdar": {}}))


def test_grpo_opsd_takes_expected_and_still_refuses_the_estimators_that_cancel_its_gate(tmp_path):
    base = {"name": "x", "model": {"path": "m"}, "algorithm": "grpo_opsd"}
    assert load_experiment(_write(tmp_path, {**base, "opd": {"estimator": "expected"}})).opd.estimator == "expected"
    for estimator in ("centred", "baseline"):
        with pytest.raises(ExperimentError, match="`centred` and `baseline` subtract all of it"):
            load_experiment(_write(tmp_path, {**base, "opd": {"estimator": estimator}}))


# --- a negative entropy coefficient ---------------------------------------------------------------------------------


def _mean_entropy(policy, steps):
    from seed_trainer.compute.response_scoring import pack, response_logprobs

    batch = pack([s.prompt_ids for s in steps], [s.response_ids for s in steps], policy.pad_id, policy.device)
    with torch.no_grad():
        _, entropy = response_logprobs(policy.model, batch, 1.0, with_entropy=True)
    return float((entropy * batch.response_mask).sum() / batch.response_mask.sum())


@pytest.mark.parametrize("coef", [-0.001, 0.001])
def test_the_entropy_coefficient_moves_the_entropy_its_way(tmp_path, tiny_policy_dir, counter_tasks, coef):
    """Advantages, KL and OPD all zero: the only gradient is the entropy term's, so −0.001 lowers the entropy and
    +0.001 raises it (Adam's step does not depend on the coefficient's size)."""
    import random

    from seed_trainer.experiment.config import ExperimentConfig
    from seed_trainer.rl.rollout import play_episodes
    from seed_trainer.rl.update import LossSettings, Sample, ppo_update

    torch.manual_seed(0)
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)))
    episodes = play_episodes(
        policy,
        counter_tasks,
        counter_tasks.sample("train", 2, 0),
        group_size=2,
        max_steps=2,
        history_length=1,
        max_prompt_tokens=200,
        max_response_tokens=6,
    )
    steps = [s for e in episodes for s in e.steps]
    for step, logp in zip(steps, policy.score([s.prompt_ids for s in steps], [s.response_ids for s in steps])):
        step.old_logp, step.advantage = logp, 0.0
    config = ExperimentConfig.model_validate(
        {
            "name": "x",
            "algorithm": "grpo",
            "model": {"path": str(tiny_policy_dir)},
            "rl": {"lr": 1e-3, "kl_coef": 0.0, "entropy_coef": coef, "mini_batch_size": 64, "micro_batch_size": 4},
        }
    )
    before = _mean_entropy(policy, steps)
    optimizer = torch.optim.AdamW(policy.model.parameters(), lr=1e-3, weight_decay=0.0)
    settings = LossSettings.for_algorithm(config)
    for _ in range(3):
        ppo_update(policy, optimizer, [Sample(s, False) for s in steps], config, settings, random.Random(0))
    after = _mean_entropy(policy, steps)
    assert (after < before) if coef < 0 else (after > before), (before, after)


def test_entropy_is_logged_when_its_coefficient_is_zero(tmp_path, tiny_policy_dir):
    path = _experiment(tmp_path, tiny_policy_dir, "grpo", rl={"entropy_coef": 0.0, "mini_batch_size": 4, "lr": 1e-4})
    (row,) = RunReader(train(load_experiment(path), path, echo=None)).metrics()
    assert row["loss/entropy"] > 0.0 and math.isfinite(row["loss/total"])


def test_a_negative_entropy_coefficient_is_accepted_by_the_schema(tmp_path):
    config = load_experiment(_write(tmp_path, {"name": "x", "model": {"path": "m"}, "rl": {"entropy_coef": -0.001}}))
    assert config.rl.entropy_coef == -0.001


# --- what the own skills are about ---------------------------------------------------------------------------------


def test_task_terms_are_the_object_and_the_place_of_each_phrasing():
    assert task_terms("put a hot apple in fridge.") == ["apple", "fridge"]
    assert task_terms("find two pencil and put them in drawer.") == ["pencil", "drawer"]
    assert task_terms("examine the pillow with the desklamp.") == ["pillow", "desklamp"]
    assert task_terms("cool some lettuce and put it in garbagecan.") == ["lettuce", "garbagecan"]


def test_relevance_metrics_on_matching_and_mismatched_skills():
    task = "cool some lettuce and put it in garbagecan."
    skills = [
        # the demo's mismatch: another task's summary and skill
        (
            task,
            "Task: find two pencil and put them in drawer. Outcome: failure after 24 action(s).",
            "Clean the pan with the fridge before you put it in the cabinet.",
        ),
        (task, "Task: cool some lettuce and put it in garbagecan. Outcome: success.", "Cool the lettuce first."),
        (task, "Task: cool some lettuce. Outcome: failure.", "Put it in the garbagecan, not the garbagecans."),
        (task, "lettuces in garbagecan", "lettuces go in a can"),  # whole words only
    ]
    assert relevance_metrics(skills) == {"skill/summary_names_task": 0.25, "skill/names_task_target": 0.5}
    assert summary_names_task(skills[1][1], task) and not summary_names_task(skills[2][1], task)
    assert skill_names_target(skills[2][2], task) and not skill_names_target(skills[0][2], task)
    assert relevance_metrics([]) == {"skill/summary_names_task": None, "skill/names_task_target": None}


def test_each_analysis_prompt_holds_its_own_trajectory(tiny_policy_dir):
    """A mix-up between trajectories and their analysis prompts would be a defect: batched greedy generation sorts
    prompts by length, so every prompt must come back to its own episode, with its task and its steps."""
    from seed_trainer.analyzers.self_analysis import analysis_prompt, self_analyze
    from seed_trainer.envs.household import HouseholdTasks
    from seed_trainer.rl.rollout import play_episodes

    torch.manual_seed(1)
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)))
    source = HouseholdTasks(max_steps=3)
    episodes = play_episodes(
        policy,
        source,
        source.sample("train", 4, seed=5),
        group_size=2,
        max_steps=3,
        history_length=1,
        max_prompt_tokens=512,
        max_response_tokens=8,
    )
    assert len({e.task.description for e in episodes}) == 4
    seen = []
    generate = policy.generate

    def recording(prompt_ids, *args, **kwargs):
        generations = generate(prompt_ids, *args, **kwargs)
        seen.extend(zip(prompt_ids, generations))
        return generations

    policy.generate = recording
    self_analyze(policy, episodes, max_tokens=4, max_prompt_tokens=8192, batch_size=3)  # several length buckets
    assert len(seen) == len(episodes)
    for episode, (asked, generation) in zip(episodes, seen):
        assert list(generation.prompt_ids) == list(asked)  # each generation answers the prompt at its position
        text = policy.tokenizer.decode(asked)
        prompt = analysis_prompt(episode)
        assert episode.task.description in prompt and episode.task.description in text
        for step in episode.steps:
            assert step.response in prompt and step.observation.splitlines()[0] in prompt
        others = {e.task.description for e in episodes} - {episode.task.description}
        assert not any(other in prompt for other in others)


def test_the_update_metrics_carry_the_relevance_of_the_valid_skills():
    from seed_trainer.rl.update import LossSettings
    from seed_trainer.stages.train_records import update_metrics

    def episode(description, valid, summary, skill):
        parse = SimpleNamespace(valid=valid, summary=summary, skill=skill)
        return SimpleNamespace(
            task=SimpleNamespace(description=description, type="t"),
            skill=parse,
            steps=[],
            won=False,
            error=None,
            score=None,
        )

    episodes = [
        episode("put a apple in fridge.", True, "apple to fridge", "take the apple"),
        episode("put a apple in fridge.", True, "pencil to drawer", "open the drawer"),
        episode("put a apple in fridge.", False, "apple fridge", "apple"),  # invalid: not counted
    ]
    settings = LossSettings(pg_coef=1.0, opd_lambda=0.01, opd_beta=5.0, use_teacher=True)
    values = update_metrics(episodes, None, settings, 1e-4, {}, {})
    assert values["skill/summary_names_task"] == 0.5 and values["skill/names_task_target"] == 0.5
