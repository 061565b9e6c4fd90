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

    .venv/bin/python bench/opd_signal.py [--tasks 4] [--group 8] [--betas 5 20 50] [--seed 0] [--temperature 1.0]
                                         [--out FILE]
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "trainer"))
sys.path.insert(0, str(REPO / "bench"))

from learning import action_token_mask  # noqa: E402 — the learning report's own split of the action tokens

from seed_trainer.algo.losses import masked_mean, opd_gate, ppo_clip_loss  # noqa: E402
from seed_trainer.analyzers.oracle import OracleAnalyzer  # noqa: E402
from seed_trainer.config import load_experiment  # noqa: E402
from seed_trainer.envs import make_task_source  # noqa: E402
from seed_trainer.policy import Policy, pack, response_logprobs  # noqa: E402
from seed_trainer.rollout import play_episodes  # noqa: E402
from seed_trainer.stages.train import assign_advantages  # noqa: E402
from seed_trainer.teacher import teacher_pass  # noqa: E402

MODEL = REPO / "trainer" / "seed_trainer" / "assets" / "household-tiny"
SETTINGS = {  # examples/household-demo-stage2.seed.yaml's Stage-2 settings, the teacher from the oracle analyzer
    "algorithm": "seed",
    "environment": {"name": "household", "options": {"max_steps": 20}},
    "rollout": {"group_size": 8, "max_steps": 20, "history": 3, "max_prompt_tokens": 1024, "max_response_tokens": 48,
                "temperature": 1.0},
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
    parser.add_argument("--temperature", type=float, default=1.0,
                        help="the rollouts' sampling temperature, which the log-probs and so Δ are also taken at")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.process_time()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "opd.seed.yaml"
        rollout = {**SETTINGS["rollout"], "tasks_per_update": args.tasks, "group_size": args.group,
                   "temperature": args.temperature}
        data = {"name": "opd-signal", "seed": args.seed, "model": {"path": str(Path(args.model).resolve()), "device": "cpu"},
                **SETTINGS, "rollout": rollout}
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        config = load_experiment(path)
    ro, lam = config.rollout, config.opd.lambda_
    source = make_task_source(config.environment.name, **config.environment.options)
    policy = Policy.load(config.resolved_model(), with_reference=False)

    # one Stage-2 batch as the loop makes it: rollout, advantages, oracle skills, teacher pass
    specs = source.sample("train", args.tasks, seed=args.seed * 1_000_003 + 1)
    episodes = play_episodes(policy, source, specs, group_size=ro.group_size, max_steps=ro.max_steps,
                             history_length=ro.history, max_prompt_tokens=ro.max_prompt_tokens,
                             max_response_tokens=ro.max_response_tokens, temperature=ro.temperature, with_logprobs=True)
    assign_advantages(episodes, config)
    for episode, analysis in zip(episodes, OracleAnalyzer(source).analyze(episodes)):
        episode.skill = analysis.parse
    teacher_pass(policy, episodes, max_prompt_tokens=ro.max_prompt_tokens, temperature=ro.temperature,
                 micro_batch_size=config.rl.micro_batch_size)
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
        "setup": {"model": str(Path(args.model).resolve().relative_to(REPO)) if Path(args.model).resolve().is_relative_to(REPO) else Path(args.model).name,
                  "tasks": args.tasks, "group_size": args.group, "lambda": lam, "seed": args.seed,
                  "temperature": ro.temperature,
                  "steps": len(steps), "response_tokens": int(tokens), "opd_tokens": int(opd_tokens)},
        "success": sum(e.won for e in episodes) / len(episodes),
        "nonzero_advantage_steps": share([s.advantage for s in steps], lambda a: abs(a) > 1e-8),
        "delta": {"share_abs_gt_0.1": share(deltas, lambda d: abs(d) > 0.1),
                  "share_abs_gt_0.1_action_tokens": share(action_deltas, lambda d: abs(d) > 0.1),
                  "mean": sum(deltas) / len(deltas), "tokens": len(deltas), "action_tokens": len(action_deltas)},
        "grad_norm": {"pg": pg_norm}, "by_beta": {},
    }
    likelihood = None  # ∇(−Σ ℓ_θ / n) on the active tokens: the same for every β
    for beta in args.betas:
        gates = [1 / (1 + math.exp(-beta * d)) for d in deltas]
        gate_mean = sum(gates) / len(gates)
        if likelihood is None:
            likelihood = batch_gradient(policy, skilled, opd(0.0, False, 1.0), ro.temperature, config.rl.micro_batch_size)
        informative = batch_gradient(policy, skilled, opd(beta, True, gate_mean), ro.temperature, config.rl.micro_batch_size)
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
    from_failed = (batch_gradient(policy, skilled_failed, opd(0.0, False, 1.0), ro.temperature, config.rl.micro_batch_size)
                   if skilled_failed else torch.zeros_like(likelihood))
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


if __name__ == "__main__":
    raise SystemExit(main())
