"""What each `opd.estimator` costs per update: the teacher pass and the update step, time and memory, at three vocabularies.

Models of the right shape, randomly initialised except the committed tiny policy (its trained weights, so its tail
mass means something):

- 4 096: the committed household-tiny policy (Qwen3, hidden 96, 4 layers);
- 49 152: SmolLM2-135M's shape (Llama, hidden 576, 30 layers);
- 151 936: Qwen2.5-0.5B's shape (Qwen2, hidden 896, 24 layers).

One batch of `--rows` step samples (prompt `--prompt` tokens, the teacher prompt `--skill` tokens longer, `--response`
response tokens of random ids), on the CPU in fp32 with the trainer's own functions:

- teacher pass: `Policy.score` of the teacher prompts (sample, centred) against `Policy.score_gate_targets` (baseline:
  b(s); expected: b(s) and the kept weights — whole at 4 096, top-k beyond);
- update: one forward and backward of `seed_loss` with the estimator's inputs (`update.soft_targets` for expected);
- times are the main thread's CPU seconds (torch on one thread), the fastest of `--repeats` runs: on a shared machine
  wall time measures the neighbours;
- memory: peak resident memory over the phase (sampled every 2 ms, minus the resident memory before it), and what the
  estimator stores per response token until the update (b: 4 bytes; expected: 4·V whole, 8·k + 4 with top-k). Run it
  with MALLOC_MMAP_THRESHOLD_=65536 (as the command below): glibc then returns every freed large block to the system,
  so the resident memory follows what is alive instead of what an earlier phase left in the heap;
- for expected, the share of Σ_v π_old(v)·g(v) left out by the top-k (random weights give near-uniform distributions,
  so only the tiny policy's value says anything about a trained model).

Prints one JSON object and writes it with --out. About ten CPU minutes with the defaults.

    MALLOC_MMAP_THRESHOLD_=65536 OMP_NUM_THREADS=1 .venv/bin/python bench/speed/opd_estimator_cost.py [--rows 4] [--prompt 192] [--skill 32]
        [--response 32] [--top-k 256] [--vocabs 4096 49152 151936] [--out bench/results/opd_estimator_cost.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

import psutil
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

from seed_trainer.algo.estimator_table import OPD_ESTIMATORS  # noqa: E402
from seed_trainer.algo.estimators import resolved_top_k  # noqa: E402
from seed_trainer.algo.losses import seed_loss  # noqa: E402
from seed_trainer.compute.policy import Policy  # noqa: E402
from seed_trainer.compute.response_scoring import pack, response_logprobs, response_logprobs_with_targets  # noqa: E402
from seed_trainer.rl.rollout import Step  # noqa: E402
from seed_trainer.rl.update import _padded, soft_targets  # noqa: E402

TINY = REPO / "trainer" / "seed_trainer" / "assets" / "household-tiny"
BETA = 5.0


def shaped_model(vocab: int):
    """(name, model) of the given vocabulary: the tiny policy, or a randomly initialised model of a real shape."""
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config

    torch.manual_seed(0)
    if vocab == 4096:
        return "household-tiny (trained)", AutoModelForCausalLM.from_pretrained(TINY, dtype=torch.float32)
    if vocab == 49152:
        config = LlamaConfig(
            vocab_size=49152,
            hidden_size=576,
            intermediate_size=1536,
            num_hidden_layers=30,
            num_attention_heads=9,
            num_key_value_heads=3,
            tie_word_embeddings=True,
            max_position_embeddings=2048,
        )
        return "SmolLM2-135M shape (random)", AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    if vocab == 151936:
        config = Qwen2Config(
            vocab_size=151936,
            hidden_size=896,
            intermediate_size=4864,
            num_hidden_layers=24,
            num_attention_heads=14,
            num_key_value_heads=2,
            tie_word_embeddings=True,
            max_position_embeddings=2048,
        )
        return "Qwen2.5-0.5B shape (random)", AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    raise SystemExit(f"no model shape for vocabulary {vocab} (4096, 49152, 151936)")


def bare_policy(model) -> Policy:
    """A Policy around `model` without a tokenizer (the scoring paths need none)."""
    policy = object.__new__(Policy)
    policy.model, policy.tokenizer, policy.device = model, None, torch.device("cpu")
    policy.compute_dtype, policy._reference, policy.inference_model = torch.float32, None, None
    policy.pad_id, policy.stop_ids = 0, []
    return policy


class PeakMemory:
    """Peak resident memory of this process over a `with` block, above what it held at the start (MiB)."""

    def __enter__(self):
        self.process, self.stop = psutil.Process(os.getpid()), threading.Event()
        self.start = self.peak = self.process.memory_info().rss
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()
        self.clock, self.wall = time.thread_time(), time.perf_counter()
        return self

    def _watch(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(0.002)

    def __exit__(self, *exc):
        # CPU time of this thread (torch runs single-threaded here): less sensitive to a shared, loaded machine
        self.seconds, self.wall = time.thread_time() - self.clock, time.perf_counter() - self.wall
        self.stop.set()
        self.thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)
        self.mib = (self.peak - self.start) / 2**20


def make_steps(rows: int, prompt: int, skill: int, response: int, vocab: int, generator) -> tuple[list[Step], list]:
    steps, teacher_prompts = [], []
    for _ in range(rows):
        ids = torch.randint(1, vocab, (prompt + skill + response,), generator=generator).tolist()
        student_prompt, response_ids = ids[:prompt], ids[prompt + skill :]
        teacher_prompts.append(ids[: prompt + skill])  # the skill block inserted: a longer prompt
        steps.append(
            Step(
                t=0,
                observation="",
                admissible_actions=[],
                prompt="",
                prompt_ids=student_prompt,
                response_ids=response_ids,
                response="",
                action="",
                valid=True,
                invalid_reason=None,
                truncated=False,
                advantage=float(torch.randn((), generator=generator)),
            )
        )
    return steps, teacher_prompts


def measure(vocab: int, args) -> dict:
    name, model = shaped_model(vocab)
    policy = bare_policy(model)
    generator = torch.Generator().manual_seed(1)
    steps, teacher_prompts = make_steps(args.rows, args.prompt, args.skill, args.response, vocab, generator)
    prompts, responses = [s.prompt_ids for s in steps], [s.response_ids for s in steps]
    for step, logp in zip(steps, policy.score(prompts, responses, micro_batch_size=args.rows)):
        step.old_logp = logp
    kept = resolved_top_k(vocab, args.top_k)
    tokens = args.rows * args.response
    # one unmeasured teacher pass and update first: one-time allocations and lazy initialisation land there
    teacher_phase(policy, steps, prompts, teacher_prompts, responses, "sample", kept, args)
    update_phase(policy, steps, prompts, responses, "sample")
    out = {
        "model": name,
        "vocab": vocab,
        "parameters": sum(p.numel() for p in model.parameters()),
        "response_tokens": tokens,
        "expected_kept_per_token": kept or vocab,
        "estimators": {},
    }
    for estimator, kind in OPD_ESTIMATORS.items():
        row: dict = {}
        teacher_runs, update_runs = [], []
        for _ in range(args.repeats):  # the fastest run and the highest peak (the first also warms up)
            teacher_runs.append(
                teacher_phase(policy, steps, prompts, teacher_prompts, responses, estimator, kept, args)
            )
            update_runs.append(update_phase(policy, steps, prompts, responses, estimator))
        row["teacher_pass_s"] = round(min(r.seconds for r in teacher_runs), 3)
        row["teacher_pass_peak_mib"] = round(max(r.mib for r in teacher_runs), 1)
        stored = {  # by what the estimator keeps from the teacher pass (its memory class)
            "nothing": 0,
            "baseline": 4,
            "soft_targets": 4 + (4 * vocab if kept is None else 8 * kept + 4),
        }
        row["stored_bytes_per_token"] = stored[kind.keeps]
        if kind.keeps == "soft_targets":
            tail = sum(float(s.target_tail.sum()) for s in steps)
            mass = sum(float(s.gate_baseline.sum()) for s in steps)
            row["tail_mass_share"] = tail / mass
        row["update_s"] = round(min(r.seconds for r in update_runs), 3)
        row["update_peak_mib"] = round(max(r.mib for r in update_runs), 1)
        out["estimators"][estimator] = row
        print(f"vocab {vocab} {estimator}: {row}", file=sys.stderr, flush=True)
    base = out["estimators"]["sample"]
    for row in out["estimators"].values():
        row["teacher_pass_vs_sample"] = round(row["teacher_pass_s"] / base["teacher_pass_s"], 2)
        row["update_vs_sample"] = round(row["update_s"] / base["update_s"], 2)
    del model, policy
    return out


def teacher_phase(policy, steps, prompts, teacher_prompts, responses, estimator, kept, args) -> PeakMemory:
    """The teacher pass as `teacher.teacher_pass` runs it for `estimator` (prompts already built)."""
    with PeakMemory() as teacher:
        kind = OPD_ESTIMATORS[estimator]
        if kind.needs_distributions:
            keep = "baseline" if kind.keeps == "baseline" else ("full" if kept is None else "top_k")
            scored = policy.score_gate_targets(
                prompts, teacher_prompts, responses, beta=BETA, keep=keep, top_k=kept, micro_batch_size=args.rows
            )
            for step, result in zip(steps, scored):
                step.teacher_logp, step.gate_baseline = result.teacher_logp, result.baseline
                step.target_ids, step.target_weights = result.target_ids, result.target_weights
                step.target_tail = result.target_tail
        else:
            for step, logp in zip(steps, policy.score(teacher_prompts, responses, micro_batch_size=args.rows)):
                step.teacher_logp = logp
                step.gate_baseline = step.target_ids = step.target_weights = step.target_tail = None
    return teacher


def update_phase(policy, steps, prompts, responses, estimator) -> PeakMemory:
    """One forward and backward of the update's loss for `estimator` over the whole batch."""
    model = policy.model
    model.zero_grad(set_to_none=True)
    with PeakMemory() as update:
        batch = pack(prompts, responses, policy.pad_id, policy.device)
        width = batch.response_length
        extra = {}
        keeps = OPD_ESTIMATORS[estimator].keeps
        if keeps == "soft_targets":
            ids, extra["target_weights"] = soft_targets(steps, width, policy.device)
            logp, entropy, extra["target_logp"] = response_logprobs_with_targets(model, batch, ids, with_entropy=True)
        else:
            logp, entropy = response_logprobs(model, batch, with_entropy=True)
        if keeps == "baseline":
            extra["gate_baseline"] = _padded([s.gate_baseline for s in steps], width, policy.device)
        result = seed_loss(
            logp,
            _padded([s.old_logp for s in steps], width, policy.device),
            torch.tensor([s.advantage for s in steps]).unsqueeze(-1) * batch.response_mask,
            batch.response_mask,
            entropy=entropy,
            teacher_logp=_padded([s.teacher_logp for s in steps], width, policy.device),
            opd_estimator=estimator,
            **extra,
        )
        result.loss.backward()
    model.zero_grad(set_to_none=True)
    return update


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=4)
    parser.add_argument("--prompt", type=int, default=192)
    parser.add_argument("--skill", type=int, default=32)
    parser.add_argument("--response", type=int, default=32)
    parser.add_argument("--top-k", type=int, default=None, help="opd.expected_top_k (default: its default)")
    parser.add_argument("--vocabs", nargs="+", type=int, default=[4096, 49152, 151936])
    parser.add_argument("--repeats", type=int, default=1, help="runs of each phase; the fastest counts")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    started = time.process_time()
    result = {
        "benchmark": "opd_estimator_cost",
        "command": (
            f"MALLOC_MMAP_THRESHOLD_={os.environ.get('MALLOC_MMAP_THRESHOLD_', '(unset)')} OMP_NUM_THREADS=1 "
            ".venv/bin/python bench/speed/opd_estimator_cost.py " + " ".join(argv or sys.argv[1:])
        ),
        "setup": {
            "rows": args.rows,
            "prompt_tokens": args.prompt,
            "teacher_prompt_tokens": args.prompt + args.skill,
            "response_tokens_per_row": args.response,
            "top_k": args.top_k,
            "device": "cpu",
            "dtype": "float32",
            "threads": args.threads,
            "repeats": args.repeats,
            "torch": torch.__version__,
        },
        "by_vocab": [],
    }
    for vocab in args.vocabs:  # the file is rewritten after each vocabulary, so a long run leaves what it measured
        result["by_vocab"].append(measure(vocab, args))
        result["cpu_seconds"] = round(time.process_time() - started, 1)
        if args.out:
            Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
