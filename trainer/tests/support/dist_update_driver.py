"""One Stage-2 update under torchrun (or alone), for test_distributed.py: the same building blocks and order as
stages/train.py, except that each task group is rolled out on its own with a seed of its own, so one process and
several produce the same episodes and the updates can be compared number for number.

usage: python dist_update_driver.py JOBS_JSON
JOBS_JSON lists the updates to make, one after the other in the same processes (one interpreter start and one process
group for all: starting them costs more than the updates): [{"experiment": FILE, "out": OUT_JSON, "poison": bool}].
`poison`: the first sample's first π_old log-prob is NaN, so its micro-batch's loss is not finite (the step that
holds it must be skipped on every rank).
Rank 0 writes {metrics, weights: {name: flat list}, groups: [...], samples} to each OUT_JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from seed_trainer.analyzers import ANALYSIS_PROMPT_TOKENS
from seed_trainer.analyzers.oracle import OracleAnalyzer
from seed_trainer.analyzers.self_analysis import self_analyze
from seed_trainer.compute import distributed as dist
from seed_trainer.compute import sharding
from seed_trainer.compute.policy import Policy
from seed_trainer.envs import make_task_source
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.rl.rollout import play_episodes
from seed_trainer.rl.teacher import teacher_pass
from seed_trainer.rl.update import LossSettings, Sample, ppo_update
from seed_trainer.stages.common import seed_everything
from seed_trainer.stages.train import assign_advantages


def update(ranks: dist.Ranks, experiment: str, out: str, poison: bool = False) -> None:
    config = load_experiment(experiment)
    rng = seed_everything(config.seed)
    source = make_task_source(config.environment.name, **config.environment.options)
    policy = Policy.load(config.resolved_model())
    dist.copy_weights_from_main(ranks, policy.model)
    sharded = ranks.distributed and config.distributed.strategy == "fsdp"
    if sharded:
        sharding.shard_policy(policy)
    optimizer = torch.optim.AdamW(
        [p for p in policy.model.parameters() if p.requires_grad], lr=config.rl.lr, weight_decay=config.rl.weight_decay
    )
    ro, rl = config.rollout, config.rl
    specs = source.sample("train", ro.tasks_per_update, seed=config.seed * 1_000_003 + 1)
    first_group, mine = ranks.share(specs)
    episodes = []
    for offset, spec in enumerate(mine):
        torch.manual_seed(10_000 + first_group + offset)  # the group's own stream, whichever rank plays it
        for episode in play_episodes(
            policy,
            source,
            [spec],
            group_size=ro.group_size,
            max_steps=ro.max_steps,
            history_length=ro.history,
            max_prompt_tokens=ro.max_prompt_tokens,
            max_response_tokens=ro.max_response_tokens,
            temperature=ro.temperature,
        ):
            episode.group = offset
            episodes.append(episode)
    steps = [s for e in episodes for s in e.steps]
    assign_advantages(episodes, config)
    scoring = dict(temperature=ro.temperature, micro_batch_size=rl.micro_batch_size, max_tokens=rl.micro_batch_tokens)
    prompts, responses = [s.prompt_ids for s in steps], [s.response_ids for s in steps]
    for step, logp in zip(steps, policy.score(prompts, responses, **scoring)):
        step.old_logp = logp
    for step, logp in zip(steps, policy.score(prompts, responses, reference=True, **scoring)):
        step.ref_logp = logp
    if config.opd.skill_source == "oracle":  # the environment's own skills: OPD active whatever the tiny policy writes
        for episode, analysis in zip(episodes, OracleAnalyzer(source).analyze(episodes)):
            episode.skill = analysis.parse
    else:
        self_analyze(
            policy,
            episodes,
            max_tokens=config.analyzer.max_tokens,
            max_prompt_tokens=ANALYSIS_PROMPT_TOKENS,
            batch_size=ro.generation_batch_size,
        )
    teacher_pass(
        policy,
        episodes,
        max_prompt_tokens=ro.max_prompt_tokens,
        temperature=ro.temperature,
        micro_batch_size=rl.micro_batch_size,
        max_tokens=rl.micro_batch_tokens,
    )

    episodes = dist.gather_episodes(ranks, episodes, first_group)
    samples = [Sample(s, e.skill is not None and e.skill.valid) for e in episodes for s in e.steps]
    if poison:
        samples[0].step.old_logp = samples[0].step.old_logp.clone()
        samples[0].step.old_logp[0] = float("nan")
    result = ppo_update(policy, optimizer, samples, config, LossSettings.for_algorithm(config), rng, ranks=ranks)
    if sharded:  # every rank takes part in gathering the shards; the inference copy must follow the update
        weights = {name: t.reshape(-1).tolist() for name, t in sharding.full_named_parameters(policy.model)}
        sharding.refresh_inference_copy(policy)
        copy = dict(policy.inference_model.named_parameters())
        assert all(torch.equal(copy[n].reshape(-1), torch.tensor(v, dtype=copy[n].dtype)) for n, v in weights.items())
    if ranks.main:
        if not sharded:
            weights = {
                name: p.detach().reshape(-1).tolist() for name, p in policy.model.named_parameters() if p.requires_grad
            }
        Path(out).write_text(
            json.dumps(
                {
                    "world": ranks.world,
                    "metrics": result.metrics,
                    "groups": [[e.group, e.index, [s.response_ids for s in e.steps]] for e in episodes],
                    "advantages": [s.advantage for e in episodes for s in e.steps],
                    "weights": weights,
                    "sharded": sharded,
                }
            ),
            encoding="utf-8",
        )
    elif not sharded:  # every rank took the same step: its weights must be rank 0's
        mine = torch.cat([p.detach().reshape(-1) for p in policy.model.parameters() if p.requires_grad])
        theirs = dist.broadcast(ranks, None, "comparing weights")
        assert torch.equal(mine, theirs), f"rank {ranks.rank}'s weights differ from rank 0's after the update"
    if ranks.main and ranks.distributed and not sharded:
        dist.broadcast(
            ranks,
            torch.cat([p.detach().reshape(-1) for p in policy.model.parameters() if p.requires_grad]),
            "comparing weights",
        )


def main(jobs_file: str) -> None:
    ranks = dist.start("cpu")
    for job in json.loads(Path(jobs_file).read_text(encoding="utf-8")):
        update(ranks, job["experiment"], job["out"], poison=job.get("poison", False))
    dist.stop(ranks)


if __name__ == "__main__":
    main(sys.argv[1])
