"""The analysis prompt and self-analysis (DESIGN §2 Stage 2 step 3): the current policy writes one hindsight skill per
trajectory.

Greedy decoding with the same analysis prompt as Stage 1; every reply goes through the same format verification
(`json_repair.parse_skill_reply`). A trajectory whose reply is invalid keeps its RL signal but gets no distillation.

What is where: this module builds the prompt (the `external` analyzer and Stage-1 SFT use it too) and runs the policy
on it; `analyzers/` chooses who writes a trajectory's skill (`self` is this module behind the Analyzer interface);
"oracle" means the environment's ground truth (`envs/household/oracle_analysis.py`, `envs/textworld_oracle.py`). The
module keeps its path because bench/ scripts import it and patch its `parse_skill_reply`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from seed_trainer.algo.json_repair import SkillParse, parse_skill_reply
from seed_trainer.algo.skills import AnalysisStep, build_analysis_prompt
from seed_trainer.compute.policy import Policy
from seed_trainer.rl.rollout import Episode

if TYPE_CHECKING:
    from seed_trainer.compute.engines import Generator


def analysis_prompt(episode: Episode) -> str:
    steps = [AnalysisStep(step.observation, step.response, step.valid) for step in episode.steps]
    # The analyzer sees the outcome on the 0/1 scale: success iff the episode was won.
    return build_analysis_prompt(episode.task.description, 1.0 if episode.won else 0.0, steps)


def analysis_prompt_from_record(trajectory: Mapping[str, Any]) -> str:
    """The same prompt, rebuilt from a trajectory record of a run directory (what Stage-1 SFT trains on)."""
    steps = [AnalysisStep(step["observation"], step["response"], bool(step["valid"])) for step in trajectory["steps"]]
    task = trajectory["task"].get("description") or ""
    return build_analysis_prompt(task, 1.0 if trajectory["success"] else 0.0, steps)


def self_analyze(
    policy: Policy,
    episodes: Sequence[Episode],
    *,
    max_tokens: int,
    max_prompt_tokens: int,
    batch_size: int = 32,
    generator: Generator | None = None,
) -> list[tuple[str, SkillParse]]:
    """Writes `episode.skill` for every episode; returns each (raw reply, parse) in order. `generator`: the engine
    that generates instead of the policy (`rollout.engine: vllm`)."""
    prompt_ids = [policy.encode_chat(analysis_prompt(episode), max_prompt_tokens) for episode in episodes]
    generations = (generator or policy).generate(prompt_ids, max_tokens, greedy=True, batch_size=batch_size)
    results = []
    for episode, generation in zip(episodes, generations):
        parsed = parse_skill_reply(generation.text)
        episode.skill = parsed
        episode.skill_reply = generation.text
        results.append((generation.text, parsed))
    return results
