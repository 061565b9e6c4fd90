"""Analyzers: who writes the hindsight skill of a finished trajectory (DESIGN §2, Stage 1).

One interface (`Analyzer.analyze(episodes) -> [Analysis]`), four kinds, chosen by `analyzer.kind`:
- `self` — the policy itself, greedy (`policy_analyzer.PolicyAnalyzer` over `seed_trainer.analyzers.self_analysis.self_analyze`, the
  analysis prompt and greedy generation, which Stage 2 calls too);
- `external` — any OpenAI-compatible chat-completions endpoint (`external.ExternalAnalyzer`), as the paper's Stage 1;
- `oracle` — an environment that knows the ground truth (`TaskSource.oracle_analysis`: the household's is
  `envs/household/oracle_analysis.py`, TextWorld's `envs/textworld_oracle.py`);
- `static` — a static skill bank, the same text for every task of a type (`static_bank.StaticBankAnalyzer`; Stage 2
  under `sdar`). `stage2_analyzer` picks Stage 2's analyzer from the algorithm.

Every reply goes through the same format verification (`algo.json_repair.parse_skill_reply`). A request that got no
usable reply is an invalid analysis with the reason; only a problem that makes every request fail (a refused key, an
unreachable endpoint) raises `AnalyzerError` and ends the stage.
"""

from __future__ import annotations

from typing import Any

from seed_trainer.algo.variants import ALGORITHM_VARIANTS
from seed_trainer.analyzers.base import Analysis, Analyzer, AnalyzerError
from seed_trainer.experiment.config import ExperimentConfig

ANALYSIS_PROMPT_TOKENS = 8192  # the SFT max length: the analyzer reads whole episodes


def make_analyzer(config: ExperimentConfig, *, policy: Any = None, task_source: Any = None) -> Analyzer:
    """The analyzer `config.analyzer.kind` asks for. `self` needs the policy; `oracle` needs the task source."""
    settings = config.analyzer
    if settings.kind == "external":
        from seed_trainer.analyzers.external import ExternalAnalyzer

        return ExternalAnalyzer.from_config(settings)
    if settings.kind == "oracle":
        from seed_trainer.analyzers.oracle import OracleAnalyzer

        return OracleAnalyzer(task_source)
    from seed_trainer.analyzers.policy_analyzer import PolicyAnalyzer

    if policy is None:
        raise AnalyzerError("analyzer_config", "analyzer `self` needs the policy")
    return PolicyAnalyzer(
        policy, max_tokens=settings.max_tokens, max_prompt_tokens=ANALYSIS_PROMPT_TOKENS, model=config.model.path
    )


def stage2_analyzer(
    config: ExperimentConfig, *, policy: Any, task_source: Any, generator: Any = None
) -> Analyzer | None:
    """Who writes the skills of every Stage-2 update: the policy itself (SEED and its OPD baselines; `generator`: the
    rollout engine, which generates instead of the policy), the static bank (SDAR), or the environment's oracle
    (`opd.skill_source: oracle`, the upper-bound diagnostic). None: the algorithm uses no skills (GRPO)."""
    skills = ALGORITHM_VARIANTS[config.algorithm].skills
    if skills == "static":
        from seed_trainer.analyzers.static_bank import SkillBank, StaticBankAnalyzer

        return StaticBankAnalyzer(SkillBank.load(config.resolve_path(config.sdar.skill_bank)))
    if skills == "self" and config.opd.skill_source == "oracle":
        from seed_trainer.analyzers.oracle import OracleAnalyzer

        return OracleAnalyzer(task_source)
    if skills == "self":
        from seed_trainer.analyzers.policy_analyzer import PolicyAnalyzer

        return PolicyAnalyzer(
            policy,
            max_tokens=config.analyzer.max_tokens,
            max_prompt_tokens=ANALYSIS_PROMPT_TOKENS,
            batch_size=config.rollout.generation_batch_size,
            generator=generator,
        )
    return None


__all__ = ["ANALYSIS_PROMPT_TOKENS", "Analysis", "Analyzer", "AnalyzerError", "make_analyzer", "stage2_analyzer"]
