"""The equal-batch check of the peer comparison (issue 53): on one batch — the same prompts, completions and rewards —
TRL's GRPO loss and gradients against ours, in fp32, once the settings are mapped (peer_settings.py).

Both sides run their own code on that batch. TRL: a `GRPOTrainer` whose `rollout_func` (TRL's hook for custom
generation) returns the fixed completions, then its own `_generate_and_score_completions` (rewards through the reward
function, group advantages, reference log-probs) and `compute_loss`, backward. Ours: the episodes through the trainer's
`assign_advantages`, `old_and_reference_logprobs` and the update's `micro_batch_loss` (packing, scoring, `seed_loss`),
backward. The completions are sampled from the policy, except that the first of each group is the right answer
(so every group has a reward to normalise against).

Where the two GRPO definitions differ by definition, the check measures it instead of hiding it:
- advantages: TRL divides by std + 1e-4, ours by std + 1e-6, so |ΔA| ≤ |A|·(1e-4 − 1e-6)/std. The loss and gradients
  are therefore compared twice: as each trainer computes them, and with TRL's advantages given to ours (the
  loss definitions alone: this is the comparison held to the fp32 tolerance);
- TRL's default `use_bias_correction_kl` (off in the mapping) is also measured: its gradient differs from ours even
  at ratio 1;
- π_old: TRL on-policy takes its own log-probs detached, ours scores π_old again (`rl.old_logprobs: recompute`): ratio 1
  up to rounding on both;
- the KL clamp: ours clamps r = ref − logp to ±20 and k3 to ±10 (verl's), TRL neither. The policy is moved off the
  reference (`perturb`) so that the KL term is live, but not so far that a token reaches the clamp; the check counts
  such tokens and the loss the clamp takes away.
Imports TRL inside the functions: run it in bench/.venv-peer (peer_venv.sh).
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import replace
from pathlib import Path

import torch
from peer_settings import PeerSettings, ours_experiment, trl_config_kwargs, work_of_ours, work_of_trl
from peer_task import reward, sample_specs, sum_reward, update_seed

# fp32 tolerances of the check with equal advantages: the two sides compute the same sums in different orders (TRL's
# fused LM head takes log-softmax and entropy in chunks), so agreement is to rounding, relative to each tensor's size.
LOSS_TOLERANCE = 1e-5  # absolute, on a loss of order 0.1-1
GRADIENT_TOLERANCE = 1e-4  # per parameter: max |Δg| ≤ this × max |g| of that parameter
# The trained policy's distance from the reference, in each weight's std: on SmolLM2-135M 0.02 puts 29 of 128 tokens
# past the clip (|log-ratio| > 0.18) and none at our KL clamp (max |r| 1.7; at 0.05 two tokens pass it, r up to 4.0).
PERTURBATION = 0.02


def make_batch(policy, settings: PeerSettings) -> dict:
    """Prompts (our chat-templated ids), completions and rewards of the first update's prompts: each group's first
    completion the right answer and its end-of-turn token, the others sampled from `policy` (seeded)."""
    specs = sample_specs("train", settings.prompts, update_seed(settings.seed, 1))
    prompt_ids = [policy.encode_chat(spec.question, 4096) for spec in specs]
    torch.manual_seed(settings.seed)
    repeated = [ids for ids in prompt_ids for _ in range(settings.group)]
    sampled = policy.generate(repeated, settings.max_new_tokens, temperature=settings.temperature)
    completions = [list(g.response_ids) for g in sampled]
    stop = policy.stop_ids[0]
    for p, spec in enumerate(specs):
        completions[p * settings.group] = policy.tokenizer.encode(str(spec.answer), add_special_tokens=False) + [stop]
    texts = [policy.tokenizer.decode(c, skip_special_tokens=True) for c in completions]
    answers = [spec.answer for spec in specs for _ in range(settings.group)]
    return {
        "specs": specs,
        "prompt_ids": prompt_ids,
        "completions": completions,
        "texts": texts,
        "rewards": [reward(t, a) for t, a in zip(texts, answers)],
    }


def perturb(model, seed: int, scale: float = PERTURBATION) -> None:
    """Moves every trainable weight by `scale` × its own std × N(0, 1) noise, in name order from one seeded generator:
    the same move on both sides. At the reference weights the k3 term and its gradient are zero, so an unperturbed
    policy would leave the KL term unchecked."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, param in sorted(model.named_parameters()):
            noise = torch.randn(param.shape, generator=generator, dtype=torch.float32)
            param.add_(noise.to(param.dtype) * scale * param.float().std())


def ours_side(model_path: str, settings: PeerSettings, batch: dict, trl: dict, perturbation: float) -> dict:
    """Our loss and gradients on `batch` against TRL's (`trl_side`): on-policy with our own advantages and with TRL's,
    and off-policy (π_old = the reference weights) with TRL's."""
    from seed_trainer.compute.policy import Policy
    from seed_trainer.envs.base import Task
    from seed_trainer.experiment.loading import experiment_from_data
    from seed_trainer.rl.rollout import Episode, Step
    from seed_trainer.rl.update import LossSettings
    from seed_trainer.stages.train import assign_advantages, old_and_reference_logprobs
    from seed_trainer.stages.train_settings import loop_settings

    data = ours_experiment(settings, model_path, updates=1)
    data["rl"]["old_logprobs"] = "recompute"
    config = experiment_from_data(data, Path.cwd(), "the equal-batch check")
    policy = Policy.load(config.resolved_model())
    perturb(policy.model, settings.seed, perturbation)
    loss_settings = LossSettings.for_algorithm(config)
    episodes = []
    for k, (ids, text, value) in enumerate(
        zip(_repeat(batch["prompt_ids"], settings.group), batch["texts"], batch["rewards"])
    ):
        spec = batch["specs"][k // settings.group]
        step = Step(
            0, spec.question, [], spec.question, list(ids), batch["completions"][k], text, text, True, None, False
        )
        task = Task(f"sum-{spec.index}", "sum", spec.question, "train")
        episodes.append(Episode(task, k // settings.group, k % settings.group, [step], won=value == 1.0))
    assign_advantages(episodes, config)
    loop = loop_settings(
        config, loss_settings, None, engine=False, device=policy.device, compute_dtype=policy.compute_dtype
    )
    old_and_reference_logprobs(policy, episodes, loop, None, reference=True)
    steps = [e.steps[0] for e in episodes]
    clamp = kl_clamp(steps, settings.beta)
    own_advantages, scores = [s.advantage for s in steps], [s.score for s in steps]
    own = _ours_loss(policy, steps, config, loss_settings)
    for step, value in zip(steps, trl["advantages"]):
        step.advantage = value
    same = _ours_loss(policy, steps, config, loss_settings)
    for step in steps:
        step.old_logp = step.ref_logp
    off = _ours_loss(policy, steps, config, loss_settings)
    return {
        "work": work_of_ours(config),
        "kl_clamp": clamp,
        "advantages": own_advantages,
        "scores": scores,
        "own": {"loss": own["loss"], "gradients": compare_grads(own["grads"], trl["on_policy"][1])},
        "on_policy": {"loss": same["loss"], "gradients": compare_grads(same["grads"], trl["on_policy"][1])},
        "off_policy": {
            "loss": off["loss"],
            "gradients": compare_grads(off["grads"], trl["off_policy"][1]),
            "clip_frac": off["clip_frac"],
            "approx_kl": off["approx_kl"],
        },
        "against_kl_ratio_correction": compare_grads(same["grads"], trl["bias_corrected"][1]),
    }


def kl_clamp(steps, beta: float) -> dict:
    """Where our k3 term departs from TRL's by definition: ours clamps r = ref − logp to ±20 and k3 to ±10 (as verl's
    low_var_kl), TRL clamps neither. Counted at π_old (= θ on-policy) over the batch's tokens, with the loss that the
    clamp takes away: β · Σ (k3 − clamped k3) / tokens."""
    from seed_trainer.algo.losses import KL_CLAMP, LOG_RATIO_CLAMP, k3_kl

    r = torch.cat([s.ref_logp - s.old_logp for s in steps])
    raw = torch.exp(r) - r - 1.0
    clamped = k3_kl(torch.cat([s.old_logp for s in steps]), torch.cat([s.ref_logp for s in steps]))
    return {
        "tokens_clamped": int(((raw > KL_CLAMP) | (r.abs() > LOG_RATIO_CLAMP)).sum()),
        "tokens": r.numel(),
        "max_abs_r": float(r.abs().max()),
        "loss_taken_by_clamp": float(beta * (raw - clamped).sum() / r.numel()),
    }


def _ours_loss(policy, steps, config, loss_settings) -> dict:
    from seed_trainer.rl.update import Sample, micro_batch_loss

    policy.model.train()
    policy.model.zero_grad(set_to_none=True)
    tokens = float(sum(len(s.response_ids) for s in steps))
    result, _ = micro_batch_loss(
        policy,
        [Sample(s, False) for s in steps],
        config,
        loss_settings,
        use_teacher=False,
        tokens=tokens,
        opd_tokens=0.0,
    )
    result.loss.backward()
    return {
        "loss": float(result.loss.detach()),
        "grads": _grads(policy.model),
        "clip_frac": float(result.clip_frac),
        "approx_kl": float(result.approx_kl),
    }


def trl_side(model_path: str, settings: PeerSettings, batch: dict, perturbation: float) -> dict:
    """TRL's loss and gradients on `batch`: on-policy (its own π_old, the detached log-probs), off-policy (π_old = its
    reference's log-probs), and on-policy with its default KL ratio correction."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    rows = [
        {"prompt": [{"role": "user", "content": spec.question}], "answer": spec.answer}
        for spec in batch["specs"]
        for _ in range(settings.group)
    ]
    seen_rewards: list[float] = []
    tokenized: list[list[int]] = []

    def rewards(completions, answer, **kwargs):
        values = sum_reward(completions, answer, **kwargs)
        seen_rewards.extend(values)
        return values

    def rollout(prompts, trainer):
        questions = [p[-1]["content"] for p in prompts]
        if questions != [r["prompt"][0]["content"] for r in rows]:
            raise RuntimeError("TRL handed the rollout function its prompts in another order than the batch's")
        tokenized.extend(list(ids) for ids in trainer._tokenize_prompts(prompts)[0])
        return {
            "prompt_ids": list(_repeat(batch["prompt_ids"], settings.group)),
            "completion_ids": batch["completions"],
            "logprobs": None,
        }

    with tempfile.TemporaryDirectory(prefix="peer-check-") as out:
        args = GRPOConfig(**trl_config_kwargs(settings, out, updates=1))
        trainer = GRPOTrainer(
            model=model_path,
            reward_funcs=rewards,
            args=args,
            train_dataset=Dataset.from_list(rows),
            rollout_func=rollout,
        )
        model = trainer.model
        perturb(model, settings.seed, perturbation)
        model.train()
        trainer.current_gradient_accumulation_steps = 1  # what Trainer's loop sets before each step
        scored = trainer._generate_and_score_completions(rows)
        result = {
            "work": work_of_trl(trainer.args),
            "prompt_ids": tokenized,
            "rewards": seen_rewards,
            "advantages": scored["advantages"].tolist(),
            "num_items_in_batch": int(scored["num_items_in_batch"]),
            "on_policy": _trl_loss(trainer, model, scored),
        }
        trainer.args.use_bias_correction_kl = True
        result["bias_corrected"] = _trl_loss(trainer, model, scored)
        trainer.args.use_bias_correction_kl = False
        result["off_policy"] = _trl_loss(
            trainer, model, {**scored, "old_per_token_logps": scored["ref_per_token_logps"]}
        )
    return result


def _trl_loss(trainer, model, scored: dict) -> tuple[float, dict[str, torch.Tensor]]:
    model.zero_grad(set_to_none=True)
    loss = trainer.compute_loss(model, scored)
    loss.backward()
    return float(loss.detach()), _grads(model)


def _grads(model) -> dict[str, torch.Tensor]:
    return {n: p.grad.detach().float().clone() for n, p in model.named_parameters() if p.grad is not None}


def _repeat(items: list, times: int):
    return (item for item in items for _ in range(times))


def compare_grads(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> dict:
    """Per parameter: max |Δg| and max |g| (of `b`), and the largest of the ratios, over the parameters both have."""
    if set(a) != set(b):
        raise RuntimeError(f"the two models' parameters differ: {sorted(set(a) ^ set(b))[:5]}")
    per = {}
    for name in sorted(a):
        diff = float((a[name] - b[name]).abs().max())
        scale = float(b[name].abs().max())
        per[name] = {"max_abs_diff": diff, "max_abs_grad": scale, "relative": diff / scale if scale > 0 else diff}
    worst = max(per, key=lambda n: per[n]["relative"])
    return {
        "parameters": len(per),
        "max_abs_diff": max(v["max_abs_diff"] for v in per.values()),
        "max_relative": per[worst]["relative"],
        "worst_parameter": worst,
        "per_parameter": per,
    }


def equal_batch_check(model_path: str, settings: PeerSettings, perturbation: float = PERTURBATION) -> dict:
    """The whole check in fp32 (what it compares and the verdict), as the JSON `peer_trl.py --check-only` writes."""
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ModelConfig

    torch.set_num_threads(settings.threads)
    settings = replace(settings, dtype="fp32")
    sampler = Policy.load(ModelConfig(path=model_path, device="cpu", dtype="float32"), with_reference=False)
    batch = make_batch(sampler, settings)
    del sampler
    trl = trl_side(model_path, settings, batch, perturbation)
    ours = ours_side(model_path, settings, batch, trl, perturbation)
    std = _group_stds(batch["rewards"], settings.group)
    predicted = max((abs(a) * (1e-4 - 1e-6) / s for a, s in zip(ours["advantages"], std) if s > 0), default=0.0)
    advantage_diff = max(_diffs(ours["advantages"], trl["advantages"]))
    held = {
        name: {
            "loss_ours": ours[name]["loss"],
            "loss_trl": trl[name][0],
            "loss_abs_diff": abs(ours[name]["loss"] - trl[name][0]),
            **{k: v for k, v in ours[name].items() if k != "loss"},
        }
        for name in ("on_policy", "off_policy")
    }
    checks = {
        "work_matches": ours["work"] == trl["work"],
        "prompt_ids_equal": trl["prompt_ids"] == [list(p) for p in _repeat(batch["prompt_ids"], settings.group)],
        "rewards_equal": trl["rewards"] == ours["scores"] == batch["rewards"],
        "advantages_within_eps_bound": advantage_diff <= predicted * 1.01 + 1e-6,
        **{f"{name}_loss_equal": held[name]["loss_abs_diff"] <= LOSS_TOLERANCE for name in held},
        **{f"{name}_gradients_equal": held[name]["gradients"]["max_relative"] <= GRADIENT_TOLERANCE for name in held},
        "off_policy_clip_exercised": held["off_policy"]["clip_frac"] > 0,
        "kl_clamp_inactive": ours["kl_clamp"]["tokens_clamped"] == 0,
    }
    return {
        "passed": all(checks.values()),
        "checks": checks,
        "tolerance": {
            "loss_abs": LOSS_TOLERANCE,
            "gradient_relative": GRADIENT_TOLERANCE,
            "meaning": "with TRL's advantages given to ours: |L_ours − L_TRL| ≤ loss_abs, and for every parameter "
            "max|g_ours − g_TRL| ≤ gradient_relative × max|g_TRL|; fp32 on both",
        },
        "batch": {
            "prompts": settings.prompts,
            "group": settings.group,
            "completion_tokens": trl["num_items_in_batch"],
            "rewards": batch["rewards"],
            "completions": batch["texts"],
            "forced_right_answers": "the first completion of each group",
            "policy": f"the model's weights moved by {perturbation} × each weight's std × N(0, 1) noise (seed "
            f"{settings.seed}, the same on both sides); the reference keeps the model's own weights",
        },
        "kl_clamp": {
            **ours["kl_clamp"],
            "why": "ours clamps r = ref − logp to ±20 and k3 to ±10 (verl's low_var_kl), TRL neither: equal only "
            "while no token reaches them, which the perturbation is chosen for",
        },
        "advantages": {
            "trl": trl["advantages"],
            "ours": ours["advantages"],
            "max_abs_diff": advantage_diff,
            "predicted_bound": predicted,
            "why": "TRL: (r − mean)/(std + 1e-4); ours: (r − mean)/(std + 1e-6); both the unbiased group std",
        },
        "on_policy": {**held["on_policy"], "pi_old": "TRL: its log-probs detached; ours: recomputed (ratio 1)"},
        "off_policy": {
            **held["off_policy"],
            "pi_old": "the reference's log-probs on both: the ratio and clip are live",
        },
        "each_with_its_own_advantages": {
            "loss_ours": ours["own"]["loss"],
            "loss_trl": trl["on_policy"][0],
            "loss_abs_diff": abs(ours["own"]["loss"] - trl["on_policy"][0]),
            "gradients": _summary(ours["own"]["gradients"]),
        },
        "trl_default_kl_ratio_correction": {
            "loss_trl": trl["bias_corrected"][0],
            "gradients_against_ours": _summary(ours["against_kl_ratio_correction"]),
            "why": "use_bias_correction_kl (TRL's default) multiplies the k3 term by π/π_old; its gradient adds "
            "k3·∇log π even at ratio 1, which our loss has not: the mapping turns it off",
        },
        "work": ours["work"],
        "settings": settings.as_dict(),
    }


def _summary(compared: dict) -> dict:
    return {k: v for k, v in compared.items() if k != "per_parameter"}


def _diffs(a: list[float], b: list[float]) -> list[float]:
    return [abs(x - y) for x, y in zip(a, b)] or [0.0]


def _group_stds(rewards: list[float], group: int) -> list[float]:
    """Each sample's group std (unbiased), as both trainers normalise by."""
    stds = []
    for start in range(0, len(rewards), group):
        values = rewards[start : start + group]
        mean = sum(values) / len(values)
        std = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
        stds.extend([std] * len(values))
    return stds
