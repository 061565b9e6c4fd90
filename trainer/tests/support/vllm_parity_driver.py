"""Every vLLM engine check in one process and one engine, in the interpreter that has vLLM (test_vllm_engine.py).

usage: python vllm_parity_driver.py WORK_DIR OUT_JSON

Starting vLLM is most of the cost of these checks (imports, the model-class inspection on a machine's first start, the
engine itself), so the engine starts once: the Stage-2 run starts it, through the CLI's own path, and the parity checks
then use the same engine. The model is the committed household policy widened to head_dim 32 (`widen_heads`: vLLM's
CPU attention has no kernel for its 24-wide heads; same function, so its replies are real, well-formed actions).
OUT_JSON holds, per check, the tokens both sides produced (the test compares them), the log-prob differences, any
error of a check (the others still run), and where the time went:
- stage2: `seed_trainer train` (in this process) of a short SEED run with `rollout.engine: vllm`; its run directory;
- greedy: HF and vLLM play the same tasks greedily (same weights, same seed);
- sampled: vLLM samples at temperatures 1.0 and 0.7 with log-probs; the trainer scores the same tokens;
- update: one AdamW step on the policy; the engine's greedy tokens before the push (stale weights), after it, and HF's
  after the step;
- lora: a LoRA policy over the same base, its adapters moved by one step, pushed as merged weights.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import traceback
from pathlib import Path

STARTED = time.perf_counter()

import torch  # noqa: E402
from widen_heads import widen_policy  # noqa: E402

from seed_trainer.compute.policy import Policy  # noqa: E402
from seed_trainer.compute.vllm_engine import VllmEngine, _import_vllm  # noqa: E402
from seed_trainer.envs import make_task_source  # noqa: E402
from seed_trainer.experiment.config import builtin_model_dir  # noqa: E402
from seed_trainer.experiment.loading import experiment_from_data  # noqa: E402
from seed_trainer.rl.rollout import play_episodes  # noqa: E402

TASKS, MAX_STEPS, RESPONSE_TOKENS = 6, 6, 48

# The Stage-2 run: rollouts, self-analysis, evaluation by the engine; weights pushed after each update.
STAGE2_EXPERIMENT = """\
name: vllm-run
seed: 0
algorithm: seed
updates: 2
runs_dir: runs
model: {path: policy, dtype: float32, device: cpu}
environment: {name: household}
rollout: {engine: vllm, tasks_per_update: 2, group_size: 2, max_steps: 4, history: 3, max_response_tokens: 32}
analyzer: {max_tokens: 48}
rl: {lr: 3.0e-4, mini_batch_size: 16, micro_batch_size: 8}
eval: {every: 2, tasks: 2, splits: [valid_seen]}
"""


def log(message: str) -> None:
    print(f"[vllm driver {time.perf_counter() - STARTED:6.1f} s] {message}", file=sys.stderr, flush=True)


def experiment(policy_dir: Path, lora: bool):
    data = {
        "name": "vllm-parity",
        "seed": 0,
        "algorithm": "seed",
        "updates": 1,
        "model": {
            "path": str(policy_dir),
            "dtype": "float32",
            "device": "cpu",
            **({"lora": {"r": 4, "alpha": 8}} if lora else {}),
        },
        "environment": {"name": "household"},
        "rollout": {"engine": "vllm", "max_response_tokens": RESPONSE_TOKENS, "max_steps": MAX_STEPS},
    }
    return experiment_from_data(data, policy_dir, "vllm-parity")


def play(policy, source, specs, generator, **settings):
    started = time.perf_counter()
    episodes = play_episodes(
        policy,
        source,
        specs,
        group_size=1,
        max_steps=MAX_STEPS,
        history_length=5,
        max_prompt_tokens=2048,
        max_response_tokens=RESPONSE_TOKENS,
        generator=generator,
        **settings,
    )
    seconds = time.perf_counter() - started
    tokens = [[step.response_ids for step in episode.steps] for episode in episodes]
    return episodes, tokens, seconds


def greedy_tokens(policy, source, specs, generator):
    return play(policy, source, specs, generator, greedy=True)[1]


def one_step(policy: Policy, lr: float) -> None:
    """One AdamW step raising the log-prob of a fixed reply to a fixed prompt: the weights move visibly."""
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr)
    prompt = policy.encode_chat("Your task is to: put a clean mug in the cabinet.", 256)
    reply = policy.tokenizer.encode("<action>go to cabinet 1</action>") + policy.stop_ids[:1]
    ids = torch.tensor([prompt + reply])
    policy.model.train()
    logits = policy.model(input_ids=ids).logits[0, len(prompt) - 1 : -1]
    loss = torch.nn.functional.cross_entropy(logits.float(), torch.tensor(reply))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()


class Report(dict):
    """OUT_JSON's content; `check(name)` times a check and records its error instead of stopping the others."""

    def __init__(self):
        super().__init__(seconds={}, errors={}, engine_starts=0)

    @contextlib.contextmanager
    def check(self, name: str):
        started = time.perf_counter()
        try:
            yield
        except Exception:
            self["errors"][name] = traceback.format_exc()[-4000:]
            log(f"{name}: FAILED\n{self['errors'][name]}")
        finally:
            self["seconds"][name] = round(time.perf_counter() - started, 2)
            log(f"{name}: {self['seconds'][name]:.1f} s")


def run_stage2(work_dir: Path, report: Report, engines: list) -> None:
    """`seed_trainer train` as the CLI runs it, here in-process, so that the engine it starts stays for the parity
    checks. `VllmEngine.start` is wrapped only to keep the engine and time its start."""
    from seed_trainer import cli

    start = VllmEngine.__dict__["start"].__func__

    def start_and_keep(cls, policy, config):
        started = time.perf_counter()
        engine = start(cls, policy, config)
        report["seconds"]["engine_start"] = round(time.perf_counter() - started, 2)
        report["engine_starts"] += 1
        engines.append(engine)
        return engine

    experiment_file = work_dir / "exp.seed.yaml"
    experiment_file.write_text(STAGE2_EXPERIMENT)
    VllmEngine.start = classmethod(start_and_keep)
    try:
        report["stage2"] = {"exit": cli.main(["train", str(experiment_file)]), "runs": str(work_dir / "runs")}
    finally:
        VllmEngine.start = classmethod(start)


def main(work: str, out: str) -> None:
    work_dir = Path(work)
    report = Report()
    report["seconds"]["imports"] = round(time.perf_counter() - STARTED, 2)
    started = time.perf_counter()
    _import_vllm()
    report["seconds"]["import_vllm"] = round(time.perf_counter() - started, 2)
    log(f"imports {report['seconds']['imports']:.1f} s, vLLM's {report['seconds']['import_vllm']:.1f} s")
    policy_dir = widen_policy(builtin_model_dir("builtin:household-tiny"), work_dir / "policy")

    engines: list[VllmEngine] = []
    with report.check("stage2"):
        run_stage2(work_dir, report, engines)

    source = make_task_source("household")
    specs = source.sample("train", TASKS, seed=7)
    config = experiment(policy_dir, lora=False)
    policy = Policy.load(config.resolved_model(), with_reference=False)
    if engines:  # the Stage-2 run's engine, given this policy's (the untrained) weights
        engine = VllmEngine(engines[0].llm, policy, sleep=False)
        engine.push_weights()
    else:  # the run failed before its engine started (its test says why): the parity checks start their own
        started = time.perf_counter()
        engine = VllmEngine.start(policy, config)
        report["seconds"]["engine_start"] = round(time.perf_counter() - started, 2)
        report["engine_starts"] += 1

    # greedy parity, and the wall time of each side on the same work
    with report.check("greedy"):
        torch.manual_seed(0)
        hf_episodes, hf_tokens, hf_seconds = play(policy, source, specs, None, greedy=True)
        torch.manual_seed(0)
        vllm_episodes, vllm_tokens, vllm_seconds = play(policy, source, specs, engine, greedy=True)
        report["greedy"] = {
            "hf": hf_tokens,
            "vllm": vllm_tokens,
            "hf_s": hf_seconds,
            "vllm_s": vllm_seconds,
            "hf_won": [e.won for e in hf_episodes],
            "vllm_won": [e.won for e in vllm_episodes],
            "hf_valid": sum(s.valid for e in hf_episodes for s in e.steps)
            / max(1, sum(len(e.steps) for e in hf_episodes)),
        }

    # sampled log-probs against the trainer's scoring of the same tokens
    with report.check("sampled"):
        report["sampled"] = {}
        for temperature in (1.0, 0.7):
            torch.manual_seed(1)
            episodes, tokens, _ = play(policy, source, specs, engine, temperature=temperature, with_logprobs=True)
            steps = [s for e in episodes for s in e.steps]
            scored = policy.score(
                [s.prompt_ids for s in steps], [s.response_ids for s in steps], temperature=temperature
            )
            diffs = torch.cat([(s.sample_logp - logp).abs() for s, logp in zip(steps, scored)])
            report["sampled"][str(temperature)] = {
                "tokens": int(diffs.numel()),
                "max_abs_diff": float(diffs.max()),
                "mean_abs_diff": float(diffs.mean()),
                "distinct_replies": len({tuple(s.response_ids) for s in steps}),
            }

    # one update: stale before the push, the updated weights after it (compared with the greedy check's HF tokens)
    with report.check("update"):
        hf_before = greedy_tokens(policy, source, specs, None)
        one_step(policy, lr=3e-3)
        report["update"] = {
            "hf_before": hf_before,
            "engine_before_push": greedy_tokens(policy, source, specs, engine),
            "hf_after": greedy_tokens(policy, source, specs, None),
        }
        started = time.perf_counter()
        engine.push_weights()
        report["update"]["push_s"] = time.perf_counter() - started
        report["update"]["engine_after_push"] = greedy_tokens(policy, source, specs, engine)

    # LoRA over the same base: adapters moved by a step, pushed merged into the same engine
    with report.check("lora"):
        lora_config = experiment(policy_dir, lora=True)
        lora_policy = Policy.load(lora_config.resolved_model(), with_reference=False)
        for name, param in lora_policy.model.named_parameters():
            if "lora_B" in name:  # PEFT starts B at zero (a no-op adapter): give the step something to move
                torch.nn.init.normal_(param, std=0.05)
        one_step(lora_policy, lr=3e-3)
        lora_engine = VllmEngine(engine.llm, lora_policy, sleep=False)
        lora_engine.push_weights()
        base = Policy.load(config.resolved_model(), with_reference=False)  # the base as loaded (`policy` has moved)
        report["lora"] = {
            "base_hf": greedy_tokens(base, source, specs, None),
            "hf": greedy_tokens(lora_policy, source, specs, None),
            "vllm": greedy_tokens(lora_policy, source, specs, lora_engine),
        }

    report["seconds"]["total"] = round(time.perf_counter() - STARTED, 2)
    Path(out).write_text(json.dumps(report))
    log(f"done: {json.dumps(report['seconds'])}")
    # vLLM's teardown at interpreter exit takes ~14 s on a busy 2-core machine, and has nothing to do: the engine runs
    # in this process, without workers, and the one file it leaves (its process group's store) is in TMPDIR, which the
    # test points into WORK_DIR.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
