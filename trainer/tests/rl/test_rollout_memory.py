"""`rollout.memory` in the rollout loop: off, the environment's prompt builder is called as before; on, each step's
prompt carries the places the episode searched; an environment whose builder has no memory line refuses it."""

import pytest

from seed_trainer.compute.policy import Generation, Policy
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.experiment.config import ModelConfig
from seed_trainer.rl.rollout import play_episodes


class GoToFirstPlace:
    """Answers every prompt with the same `go to` action, as the vLLM engine would answer (rollout's `generator`)."""

    def __init__(self, action: str):
        self.text = f"<think>search</think><action>{action}</action>"

    def generate(self, prompt_ids, max_new_tokens, **_):
        return [Generation(list(ids), [5, 6], self.text, True) for ids in prompt_ids]


def _play(policy, source, spec, **options):
    env = source.make(spec)
    _, observation = env.reset()
    place = next(a for a in observation.admissible_actions if a.startswith("go to "))
    return place, play_episodes(
        policy,
        source,
        [spec],
        group_size=1,
        max_steps=3,
        history_length=1,
        max_prompt_tokens=4096,
        max_response_tokens=8,
        generator=GoToFirstPlace(place),
        **options,
    )[0]


def test_memory_reaches_the_prompt_only_when_asked(tiny_policy_dir):
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)))
    source = HouseholdTasks(max_steps=3)
    spec = source.sample("train", 1, seed=3)[0]
    place, plain = _play(policy, source, spec)
    _, remembered = _play(policy, source, spec, memory=True)
    assert [s.action for s in remembered.steps] == [place] * 3
    assert not any("Places you have searched" in s.prompt for s in plain.steps)
    assert "Places you have searched" not in remembered.steps[0].prompt  # nothing searched before step 1
    place_name = place[len("go to ") :]
    assert f"Places you have searched so far and what you saw there: {place_name}: " in remembered.steps[1].prompt
    # apart from that line, the prompts are the plain ones
    for a, b in zip(plain.steps, remembered.steps):
        assert "\n".join(line for line in b.prompt.split("\n") if not line.startswith("Places you have")) == a.prompt


def test_an_environment_prompt_without_a_memory_line_refuses_it(tiny_policy_dir, counter_tasks, monkeypatch):
    def fixed_prompt(*, task, observation, admissible_actions, history, history_length):
        return f"{task}: {observation}"

    monkeypatch.setattr(type(counter_tasks), "step_prompt", staticmethod(fixed_prompt), raising=False)
    policy = Policy.load(ModelConfig(path=str(tiny_policy_dir)))
    spec = counter_tasks.sample("train", 1, 0)
    with pytest.raises(ValueError, match=r"rollout\.memory: the environment's prompt \(.*fixed_prompt\) has no memory"):
        play_episodes(
            policy,
            counter_tasks,
            spec,
            group_size=1,
            max_steps=1,
            history_length=1,
            max_prompt_tokens=64,
            max_response_tokens=4,
            memory=True,
        )
