"""How hard does the distillation term pull, against the policy-gradient term, on one Stage-2 batch?

The learning benchmark found that even the oracle's skills in the teacher slot (`seed_oracle`) do not beat GRPO on the
embedded default (docs/embedded-default.md). This measures why, on one batch of the demo's Stage-2 settings (the
committed tiny policy, household, B tasks × 8 at temperature 1.0 or --temperature, oracle skills, the trainer's own
teacher pass):

- the gradient of each term over the whole batch, as the update computes it (token-means, the PPO surrogate at
  ratio 1): ‖∇L_pg‖ and ‖λ·∇L_opd‖ at the paper's λ, and their ratio;
- how much of ∇L_opd carries the teacher's information. Its gradient is −Σ g·∇ℓ_θ / n; split g into its mean ḡ
  over the active tokens and the rest: ḡ·(−Σ ∇ℓ_θ / n) is a plain likelihood push on the policy's own samples, the
  same whatever the skill says, and −Σ (g − ḡ)·∇ℓ_θ / n is the part that depends on the teacher. Their norms, for
  β = 5 (the paper's) and larger β, and the cosine of the informative part with ∇L_pg;
- per token: the share with |Δ| > 0.1 and with |g − 0.5| > 0.1, all response tokens and the tokens inside
  <action>…</action>;
- where the likelihood push goes: its cosine with ∇L_pg, and the part of it that comes from the tokens of failed
  episodes (their share of the OPD tokens, and the cosine of each outcome's part with ∇L_pg). A negative cosine means
  the push undoes the policy-gradient step.

Prints one JSON object (and writes it with --out). Not part of `npm test`; about two CPU minutes per 4 tasks.

    .venv/bin/python bench/learning/opd_signal.py [--tasks 4] [--group 8] [--betas 5 20 50] [--seed 0] [--temperature 1.0]
                                         [--out FILE]

With `--estimators` it measures instead the `opd.estimator` settings (docs/trainer.md, "OPD estimator") over
`--batches` resampled Stage-2 batches per skill source (`--skill-sources oracle self`; `self`: the policy's own greedy
analyses, as SEED): one teacher pass with the full distributions (b(s) and the weights π_old(v)·g(v) of the tiny
vocabulary), then on the same batch ∇L_pg and each estimator's ∇L_opd at θ = π_old, the OPD term over its fixed token
count. Per estimator: the signal-to-noise of its batch gradient across batches, √(‖ḡ‖² − tr Σ̂/R) / √(tr Σ̂) (ḡ the
mean over the R batches, tr Σ̂ the summed per-coordinate variance; the subtraction removes the noise's share of ‖ḡ‖²),
its cosine with ∇L_pg and with the `expected` gradient of the same batch, and λ = ‖∇L_pg‖ / ‖∇L_opd‖, the weight at
which the term is as large as the policy gradient. Each batch's gradients are kept in `--work` so an interrupted run
resumes; the summary is rewritten after every batch (`"complete": false` until all are done).

    OMP_NUM_THREADS=1 .venv/bin/python bench/learning/opd_signal.py --estimators sample centred baseline expected \
        --batches 8 --temperature 0.4 --skill-sources oracle self --work SCRATCH_DIR \
        --out bench/results/opd_estimator.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import torch
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

from seed_bench.diagnostics import action_token_mask  # noqa: E402 — the learning report's own split of the action tokens

from seed_trainer.algo.estimator_table import ESTIMATORS, estimator_row  # noqa: E402
from seed_trainer.algo.losses import masked_mean, opd_gate, opd_loss, ppo_clip_loss  # noqa: E402
from seed_trainer.analyzers import ANALYSIS_PROMPT_TOKENS  # noqa: E402
from seed_trainer.analyzers.oracle import OracleAnalyzer  # noqa: E402
from seed_trainer.analyzers.self_analysis import self_analyze  # noqa: E402
from seed_trainer.compute.policy import Policy  # noqa: E402
from seed_trainer.compute.response_scoring import pack, response_logprobs, response_logprobs_with_targets  # noqa: E402
from seed_trainer.envs import make_task_source  # noqa: E402
from seed_trainer.experiment.loading import load_experiment  # noqa: E402
from seed_trainer.rl.rollout import play_episodes  # noqa: E402
from seed_trainer.rl.teacher import teacher_pass  # noqa: E402
from seed_trainer.rl.update import _padded, soft_targets  # noqa: E402
from seed_trainer.stages.train import assign_advantages  # noqa: E402

MODEL = REPO / "trainer" / "seed_trainer" / "assets" / "household-tiny"
SETTINGS = {  # examples/household-demo-stage2.seed.yaml's Stage-2 settings, the teacher from the oracle analyzer
    "algorithm": "seed",
    "environment": {"name": "household", "options": {"max_steps": 20}},
    "rollout": {
        "group_size": 8,
        "max_steps": 20,
        "history": 3,
        "max_prompt_tokens": 1024,
        "max_response_tokens": 48,
        "temperature": 1.0,
    },
    "rl": {"micro_batch_size": 16},
    "opd": {"lambda": 0.01, "beta": 5.0, "skill_source": "oracle"},
}


def batch_gradient(policy: Policy, steps, weight_of, temperature: float, micro_batch_size: int) -> torch.Tensor:
    """∇ of Σ_rows loss(row) as one flat vector; `weight_of(rows, logp, mask)` gives the micro-batch's loss."""
    model = policy.model
    model.zero_grad(set_to_none=True)
    for start in range(0, len(steps), micro_batch_size):
        rows = steps[start : start + micro_batch_size]
        batch = pack([s.prompt_ids for s in rows], [s.response_ids for s in rows], policy.pad_id, policy.device)
        logp, _ = response_logprobs(model, batch, temperature, with_entropy=False)
        weight_of(rows, logp, batch.response_mask).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]).clone()


def padded(rows, width: int) -> torch.Tensor:
    out = torch.zeros(len(rows), width)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def share(values: list[float], test) -> float | None:
    return sum(1 for v in values if test(v)) / len(values) if values else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(MODEL))
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--betas", nargs="+", type=float, default=[5.0, 20.0, 50.0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--temperature",
        type=float,
        default=1.0,
        help="the rollouts' sampling temperature, which the log-probs and so Δ are also taken at",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--estimators",
        nargs="+",
        choices=ESTIMATORS,
        default=None,
        help="measure these opd.estimator settings over resampled batches instead (see above)",
    )
    parser.add_argument("--batches", type=int, default=6, help="--estimators: resampled batches per skill source")
    parser.add_argument("--skill-sources", nargs="+", choices=["oracle", "self"], default=["oracle", "self"])
    parser.add_argument("--work", default=None, help="--estimators: folder for each batch's gradients (resume)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.process_time()
    if args.estimators:
        return estimator_signal(args, argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "opd.seed.yaml"
        rollout = {
            **SETTINGS["rollout"],
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "temperature": args.temperature,
        }
        data = {
            "name": "opd-signal",
            "seed": args.seed,
            "model": {"path": str(Path(args.model).resolve()), "device": "cpu"},
            **SETTINGS,
            "rollout": rollout,
        }
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        config = load_experiment(path)
    ro, lam = config.rollout, config.opd.lambda_
    source = make_task_source(config.environment.name, **config.environment.options)
    policy = Policy.load(config.resolved_model(), with_reference=False)

    # one Stage-2 batch as the loop makes it: rollout, advantages, oracle skills, teacher pass
    specs = source.sample("train", args.tasks, seed=args.seed * 1_000_003 + 1)
    episodes = play_episodes(
        policy,
        source,
        specs,
        group_size=ro.group_size,
        max_steps=ro.max_steps,
        history_length=ro.history,
        max_prompt_tokens=ro.max_prompt_tokens,
        max_response_tokens=ro.max_response_tokens,
        temperature=ro.temperature,
        with_logprobs=True,
    )
    assign_advantages(episodes, config)
    for episode, analysis in zip(episodes, OracleAnalyzer(source).analyze(episodes)):
        episode.skill = analysis.parse
    teacher_pass(
        policy,
        episodes,
        max_prompt_tokens=ro.max_prompt_tokens,
        temperature=ro.temperature,
        micro_batch_size=config.rl.micro_batch_size,
    )
    steps = [s for e in episodes for s in e.steps]
    skilled = [s for e in episodes if e.skill is not None and e.skill.valid for s in e.steps]
    skilled_failed = [s for e in episodes if e.skill is not None and e.skill.valid and not e.won for s in e.steps]
    tokens = float(sum(len(s.response_ids) for s in steps))
    opd_tokens = float(sum(len(s.response_ids) for s in skilled))
    if not skilled:
        raise SystemExit("no step has a valid oracle skill")

    # per-token Δ and gates (from the rollout's own log-probs: the student before the update)
    deltas, in_action = [], []
    for step in skilled:
        deltas.extend((step.teacher_logp - step.sample_logp).tolist())
        in_action.extend(action_token_mask([policy.tokenizer.decode([t]) for t in step.response_ids]))
    action_deltas = [d for d, keep in zip(deltas, in_action) if keep]

    # gradients: the PPO surrogate at ratio 1 over every response token; the OPD term, and its likelihood part
    def pg(rows, logp, mask):
        adv = torch.tensor([s.advantage for s in rows]).unsqueeze(-1) * mask
        return ppo_clip_loss(logp, logp.detach(), adv, mask, token_count=tokens).loss

    def opd(beta: float, centred: bool, gate_mean: float = 0.0):
        def loss(rows, logp, mask):
            teacher = padded([s.teacher_logp for s in rows], logp.shape[1])
            _, gate = opd_gate(teacher, logp, beta)
            weight = (gate - gate_mean) if centred else torch.full_like(gate, gate_mean)
            return masked_mean(weight * (teacher - logp), mask, opd_tokens)

        return loss

    g_pg = batch_gradient(policy, steps, pg, ro.temperature, config.rl.micro_batch_size)
    pg_norm = float(g_pg.norm())
    result: dict = {
        "benchmark": "opd_signal",
        "setup": {
            "model": str(Path(args.model).resolve().relative_to(REPO))
            if Path(args.model).resolve().is_relative_to(REPO)
            else Path(args.model).name,
            "tasks": args.tasks,
            "group_size": args.group,
            "lambda": lam,
            "seed": args.seed,
            "temperature": ro.temperature,
            "steps": len(steps),
            "response_tokens": int(tokens),
            "opd_tokens": int(opd_tokens),
        },
        "success": sum(e.won for e in episodes) / len(episodes),
        "nonzero_advantage_steps": share([s.advantage for s in steps], lambda a: abs(a) > 1e-8),
        "delta": {
            "share_abs_gt_0.1": share(deltas, lambda d: abs(d) > 0.1),
            "share_abs_gt_0.1_action_tokens": share(action_deltas, lambda d: abs(d) > 0.1),
            "mean": sum(deltas) / len(deltas),
            "tokens": len(deltas),
            "action_tokens": len(action_deltas),
        },
        "grad_norm": {"pg": pg_norm},
        "by_beta": {},
    }
    likelihood = None  # ∇(−Σ ℓ_θ / n) on the active tokens: the same for every β
    for beta in args.betas:
        gates = [1 / (1 + math.exp(-beta * d)) for d in deltas]
        gate_mean = sum(gates) / len(gates)
        if likelihood is None:
            likelihood = batch_gradient(
                policy, skilled, opd(0.0, False, 1.0), ro.temperature, config.rl.micro_batch_size
            )
        informative = batch_gradient(
            policy, skilled, opd(beta, True, gate_mean), ro.temperature, config.rl.micro_batch_size
        )
        total = gate_mean * likelihood + informative  # ∇L_opd = ḡ·∇(likelihood) + ∇(centred part)
        cos = float(torch.nn.functional.cosine_similarity(informative, g_pg, dim=0))
        result["by_beta"][str(beta)] = {
            "gate_mean": gate_mean,
            "share_gate_far_from_half": share(gates, lambda g: abs(g - 0.5) > 0.1),
            "opd_grad_norm_at_lambda": lam * float(total.norm()),
            "opd_over_pg_at_lambda": lam * float(total.norm()) / pg_norm,
            "likelihood_part_norm_at_lambda": lam * gate_mean * float(likelihood.norm()),
            "informative_part_norm_at_lambda": lam * float(informative.norm()),
            "informative_share_of_opd": float(informative.norm()) / float(total.norm()),
            "informative_over_pg_at_lambda": lam * float(informative.norm()) / pg_norm,
            "cosine_informative_vs_pg": cos,
            "lambda_for_informative_equal_to_pg": pg_norm / float(informative.norm()),
        }
    # the likelihood push by episode outcome: with the fixed token count as the denominator, the parts add up
    cosine = torch.nn.functional.cosine_similarity
    from_failed = (
        batch_gradient(policy, skilled_failed, opd(0.0, False, 1.0), ro.temperature, config.rl.micro_batch_size)
        if skilled_failed
        else torch.zeros_like(likelihood)
    )
    from_won = likelihood - from_failed
    failed_tokens = sum(len(s.response_ids) for s in skilled_failed)
    result["likelihood_push"] = {
        "cosine_vs_pg": float(cosine(likelihood, g_pg, dim=0)),
        "failed_episodes_token_share": failed_tokens / opd_tokens,
        "failed_part_norm_share": float(from_failed.norm()) / float(likelihood.norm()),
        "cosine_failed_part_vs_pg": float(cosine(from_failed, g_pg, dim=0)) if skilled_failed else None,
        "cosine_won_part_vs_pg": float(cosine(from_won, g_pg, dim=0)) if failed_tokens < opd_tokens else None,
    }
    result["cpu_seconds"] = round(time.process_time() - started, 1)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


def stage2_config(args, skill_source: str):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "opd.seed.yaml"
        rollout = {
            **SETTINGS["rollout"],
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "temperature": args.temperature,
        }
        data = {
            "name": "opd-signal",
            "seed": args.seed,
            "model": {"path": str(Path(args.model).resolve()), "device": "cpu"},
            **SETTINGS,
            "rollout": rollout,
            "opd": {**SETTINGS["opd"], "skill_source": skill_source},
            "analyzer": {"max_tokens": 192},
        }  # the demo's Stage-2 analyses
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        return load_experiment(path)


def estimator_batch(policy, source, config, skill_source: str, batch: int, estimators, seed: int) -> dict:
    """One resampled Stage-2 batch: its ∇L_pg and each estimator's ∇L_opd (flat vectors) and its gate statistics."""
    ro, beta, mbs = config.rollout, config.opd.beta, config.rl.micro_batch_size
    torch.manual_seed(seed * 1_000_003 + 7919 * batch)
    specs = source.sample("train", ro.tasks_per_update, seed=seed * 1_000_003 + 1 + batch)
    episodes = play_episodes(
        policy,
        source,
        specs,
        group_size=ro.group_size,
        max_steps=ro.max_steps,
        history_length=ro.history,
        max_prompt_tokens=ro.max_prompt_tokens,
        max_response_tokens=ro.max_response_tokens,
        temperature=ro.temperature,
        with_logprobs=True,
    )
    assign_advantages(episodes, config)
    if skill_source == "oracle":
        for episode, analysis in zip(episodes, OracleAnalyzer(source).analyze(episodes)):
            episode.skill = analysis.parse
    else:  # the policy's own greedy hindsight analyses, as SEED's loop writes them
        self_analyze(
            policy,
            episodes,
            max_tokens=config.analyzer.max_tokens,
            max_prompt_tokens=ANALYSIS_PROMPT_TOKENS,
            batch_size=ro.generation_batch_size,
        )
    steps = [s for e in episodes for s in e.steps]
    for step in steps:
        step.old_logp = step.sample_logp  # fp32 on the CPU: the rollout's own log-probs are π_old's
    # the full-distribution teacher pass gives what every estimator needs: ℓ^skill, b(s) and the weights
    teacher_pass(
        policy,
        episodes,
        max_prompt_tokens=ro.max_prompt_tokens,
        temperature=ro.temperature,
        micro_batch_size=mbs,
        estimator="expected",
        beta=beta,
    )
    skilled = [s for e in episodes if e.skill is not None and e.skill.valid for s in e.steps]
    tokens = float(sum(len(s.response_ids) for s in steps))
    opd_tokens = float(sum(len(s.response_ids) for s in skilled))
    model = policy.model

    def flat() -> torch.Tensor:
        return torch.cat(
            [p.grad.flatten() if p.grad is not None else torch.zeros(p.numel()) for p in model.parameters()]
        )

    def gradient(estimator: str | None) -> torch.Tensor:
        rows_of = steps if estimator is None else skilled
        model.zero_grad(set_to_none=True)
        for start in range(0, len(rows_of), mbs):
            rows = rows_of[start : start + mbs]
            batch = pack([s.prompt_ids for s in rows], [s.response_ids for s in rows], policy.pad_id, policy.device)
            width, mask = batch.response_length, batch.response_mask
            extra = {}
            keeps = "nothing" if estimator is None else estimator_row(estimator).keeps
            if keeps == "soft_targets":
                ids, extra["target_weights"] = soft_targets(rows, width, policy.device)
                logp, _, extra["target_logp"] = response_logprobs_with_targets(model, batch, ids, ro.temperature)
            else:
                logp, _ = response_logprobs(model, batch, ro.temperature, with_entropy=False)
            if estimator is None:  # the PPO surrogate at ratio 1 over every response token
                adv = torch.tensor([s.advantage for s in rows]).unsqueeze(-1) * mask
                loss = ppo_clip_loss(logp, logp.detach(), adv, mask, token_count=tokens).loss
            else:
                if keeps == "baseline":
                    extra["gate_baseline"] = _padded([s.gate_baseline for s in rows], width, policy.device)
                teacher = _padded([s.teacher_logp for s in rows], width, policy.device)
                loss = opd_loss(
                    logp,
                    teacher,
                    mask,
                    torch.ones(len(rows)),
                    beta=beta,
                    token_count=opd_tokens,
                    estimator=estimator,
                    **extra,
                ).loss
            loss.backward()
        return flat().clone()

    out = {
        "steps": len(steps),
        "response_tokens": int(tokens),
        "opd_tokens": int(opd_tokens),
        "success": sum(e.won for e in episodes) / len(episodes),
        "skill_valid": sum(bool(e.skill and e.skill.valid) for e in episodes) / len(episodes),
    }
    if not skilled:
        return {**out, "grads": None}
    gates = torch.cat([opd_gate(s.teacher_logp, s.old_logp, beta)[1] for s in skilled])
    baselines = torch.cat([s.gate_baseline for s in skilled])
    out.update(
        {
            "gate_mean": float(gates.mean()),
            "gate_baseline_mean": float(baselines.mean()),
            "mean_abs_gate_minus_half": float((gates - 0.5).abs().mean()),
            "mean_abs_gate_minus_baseline": float((gates - baselines).abs().mean()),
        }
    )
    grads = {"pg": gradient(None)}
    for estimator in estimators:
        grads[estimator] = gradient(estimator)
    for step in steps:  # the full weights are 16 KiB a token: drop them before the next batch
        step.target_weights = None
    return {**out, "grads": grads}


def summarise(batches: list[dict], estimators) -> dict:
    """Across the batches of one skill source: each estimator's signal-to-noise, cosines and equalising λ."""
    cosine = torch.nn.functional.cosine_similarity
    usable = [b for b in batches if b["grads"] is not None]
    out: dict = {
        "batches": len(batches),
        "batches_with_skills": len(usable),
        "per_batch": [{k: v for k, v in b.items() if k != "grads"} for b in batches],
    }
    if not usable:
        return out

    def stats(values: list[float]) -> dict:
        if not values:
            return {"mean": None, "sd": None, "median": None, "min": None, "max": None, "values": []}
        t = torch.tensor(values, dtype=torch.float64)
        return {
            "mean": float(t.mean()),
            "sd": float(t.std()) if len(values) > 1 else None,
            "median": float(t.median()),
            "min": float(t.min()),
            "max": float(t.max()),
            "values": [round(v, 6) for v in values],
        }

    def signal(vectors: list[torch.Tensor]) -> dict:
        stack = torch.stack(vectors).double()
        mean = stack.mean(0)
        r = len(vectors)
        if r < 2:
            return {"norm_of_mean": float(mean.norm()), "snr": None}
        noise = float(((stack - mean) ** 2).sum() / (r - 1))  # tr Σ̂ of one batch's gradient
        signal_sq = float(mean.norm() ** 2) - noise / r
        return {
            "norm_of_mean": float(mean.norm()),
            "noise_norm": noise**0.5,
            "snr": (max(signal_sq, 0.0) / noise) ** 0.5 if noise > 0 else None,
            "snr_uncorrected": float(mean.norm()) / noise**0.5 if noise > 0 else None,
        }

    pg = [b["grads"]["pg"] for b in usable]
    out["pg"] = {**signal(pg), "norm": stats([float(g.norm()) for g in pg])}
    mean_pg = torch.stack(pg).mean(0)
    # a batch whose groups all won or all failed has no policy gradient: cosines and λ against it are undefined
    with_pg = [i for i, g in enumerate(pg) if float(g.norm()) > 0]
    out["batches_with_policy_gradient"] = len(with_pg)
    expected = [b["grads"].get("expected") for b in usable]
    out["estimators"] = {}
    for estimator in estimators:
        grads = [b["grads"][estimator] for b in usable]
        norms = [float(g.norm()) for g in grads]
        row = {
            **signal(grads),
            "norm": stats(norms),
            "cosine_vs_pg": stats([float(cosine(grads[i], pg[i], dim=0)) for i in with_pg]),
            "cosine_of_means_vs_pg": float(cosine(torch.stack(grads).mean(0), mean_pg, dim=0)),
            "lambda_equal_to_pg": stats([float(pg[i].norm()) / norms[i] for i in with_pg if norms[i] > 0]),
            # λ at which the term's mean batch norm equals ∇L_pg's (every batch, the zero ones included)
            "lambda_equal_to_pg_mean_norms": out["pg"]["norm"]["mean"] / (sum(norms) / len(norms)),
        }
        if all(e is not None for e in expected):
            row["cosine_vs_expected"] = stats([float(cosine(g, e, dim=0)) for g, e in zip(grads, expected)])
        out["estimators"][estimator] = row
    if "sample" in estimators and "centred" in estimators:  # sample − centred = ½·(−∇Σℓ_θ/n): the constant push
        push = [b["grads"]["sample"] - b["grads"]["centred"] for b in usable]
        out["likelihood_push"] = {
            "norm": stats([float(v.norm()) for v in push]),
            "share_of_sample_norm": stats(
                [float(v.norm() / b["grads"]["sample"].norm()) for v, b in zip(push, usable)]
            ),
            "cosine_vs_pg": stats([float(cosine(push[i], pg[i], dim=0)) for i in with_pg]),
        }
    return out


def _portable(argv: list[str]) -> list[str]:
    """The command line without this machine's folders: the value of --work (a scratch folder) as WORK."""
    return [("WORK" if i > 0 and argv[i - 1] == "--work" else a) for i, a in enumerate(argv)]


def estimator_signal(args, argv) -> int:
    started = time.process_time()
    work = Path(args.work) if args.work else None
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
    result: dict = {
        "benchmark": "opd_estimator",
        "command": "OMP_NUM_THREADS=1 .venv/bin/python bench/learning/opd_signal.py "
        + " ".join(_portable(argv if argv is not None else sys.argv[1:])),
        "setup": {
            "model": str(Path(args.model).resolve().relative_to(REPO))
            if Path(args.model).resolve().is_relative_to(REPO)
            else Path(args.model).name,
            "tasks": args.tasks,
            "group_size": args.group,
            "temperature": args.temperature,
            "seed": args.seed,
            "beta": SETTINGS["opd"]["beta"],
            "batches": args.batches,
            "estimators": args.estimators,
            "opd_token_divisor": "the batch's OPD-active tokens (fixed per batch)",
            "gradients_at": "θ = π_old (the first mini-batch of an update)",
        },
        "by_skill_source": {},
        "complete": False,
    }
    policy = None
    for skill_source in args.skill_sources:
        config = stage2_config(args, skill_source)
        source = make_task_source(config.environment.name, **config.environment.options)
        batches = []
        for batch in range(args.batches):
            saved = work / f"{skill_source}-seed{args.seed}-batch{batch}.pt" if work else None
            if saved is not None and saved.exists():
                batches.append(torch.load(saved))
            else:
                if policy is None:
                    policy = Policy.load(config.resolved_model(), with_reference=False)
                batches.append(estimator_batch(policy, source, config, skill_source, batch, args.estimators, args.seed))
                if saved is not None:
                    torch.save(batches[-1], saved)
            print(
                f"{skill_source} batch {batch + 1}/{args.batches} done ({time.process_time() - started:.0f} CPU s)",
                file=sys.stderr,
                flush=True,
            )
            result["by_skill_source"][skill_source] = summarise(batches, args.estimators)
            result["cpu_seconds_this_process"] = round(time.process_time() - started, 1)
            if args.out:
                Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    result["complete"] = True
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
