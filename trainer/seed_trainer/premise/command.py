"""`python -m seed_trainer premise`: does a hindsight skill move the model's log-probabilities the right way?

Forward passes only, before any training (docs/premise.md). Two checks, each optional:
- household (the environment knows a* and the mistakes): `household_states` gives attempt A (the skills' subject) and
  attempt B's states; every state's expert and mistake responses are scored plain and with each skill — the oracle
  analyzer's, the model's own (greedy, the Stage-2 analysis prompt), and each one's placebo, the same-outcome skill of
  another task (algo/premise_stats.placebo_donors);
- `--run RUN_DIR` (a collection, evaluation or Stage-2 run): every recorded step's sampled response under the model's
  own skill of its trajectory, the run's recorded skill when it has one, and their placebos; the AUC between steps of
  successful and failed episodes.
The report (schemas/premise.schema.json) is validated before it is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seed_trainer.algo.json_repair import parse_skill_reply
from seed_trainer.algo.premise_stats import placebo_donors
from seed_trainer.premise.household_states import ATTEMPT_A_RATES, ATTEMPT_A_REPEAT, TaskStates, household_states
from seed_trainer.premise.report import PairRow, StepRow, expert_section, gate_band, outcome_section

if TYPE_CHECKING:  # torch loads only once the command runs: `--help` and the CLI stay quick
    from seed_trainer.premise.scoring import Scorer

SCHEMA_KIND = "premise"
COVERS = (
    "seconds: the whole command after the model loaded (states, skill writing, scoring, statistics); forward_seconds: "
    "the scoring passes alone, over forward_tokens prompt + response tokens (each distinct prompt-response pair once)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="a Hugging Face model folder or builtin:NAME")
    p.add_argument("--out", required=True, help="the JSON report to write")
    p.add_argument("--household-tasks", type=int, default=40, help="household tasks for the a*/m check (0: none)")
    p.add_argument("--split", default="dev", help="the household split of those tasks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--run", action="append", default=[], metavar="RUN_DIR", help="a run whose trajectories to score")
    p.add_argument("--max-trajectories", type=int, default=200, help="per --run, the first N trajectories")
    p.add_argument("--no-own", action="store_true", help="do not let the model write skills (oracle / recorded only)")
    p.add_argument("--history", type=int, default=3, help="rollout.history of the step prompt")
    p.add_argument("--memory", action="store_true", help="rollout.memory: the prompt's line of places searched")
    p.add_argument("--max-steps", type=int, default=20)
    p.add_argument("--max-prompt-tokens", type=int, default=1024)
    p.add_argument("--analysis-tokens", type=int, default=192, help="analyzer.max_tokens of the model's own skills")
    p.add_argument("--temperature", type=float, default=1.0, help="of the scored distributions")
    p.add_argument("--beta", type=float, default=5.0, help="opd.beta of the gate g = σ(β·Δ)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (task-clustered)")
    p.add_argument("--micro-batch", type=int, default=16)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"])


def _say(message: str) -> None:
    """A progress line on stderr (stdout only says where the report is)."""
    sys.stderr.write(f"premise: {message}\n")
    sys.stderr.flush()


def _load(args: argparse.Namespace):
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.config import ModelConfig, ensure_model_dir

    folder = ensure_model_dir(args.model) or Path(args.model)
    return Policy.load(
        ModelConfig(path=str(folder), device=args.device, dtype=args.dtype), with_reference=False, trainable=False
    )


def _own_skills(policy, prompts: Sequence[str], args: argparse.Namespace) -> list[str | None]:
    """The model's own skill for each analysis prompt (greedy, as `self_analyze`), None when it does not parse."""
    if args.no_own or not prompts:
        return [None] * len(prompts)
    ids = [policy.encode_chat(p, args.max_prompt_tokens) for p in prompts]
    replies = policy.generate(ids, args.analysis_tokens, greedy=True, batch_size=args.micro_batch)
    parsed = [parse_skill_reply(g.text) for g in replies]
    return [p.skill if p.valid else None for p in parsed]


def _with_placebos(skills: dict[str, list[str | None]], outcomes: list[bool], types: list[str]) -> None:
    """Adds `placebo_<source>`: each item's donor's skill of that source (donors among the items that have one)."""
    for source in list(skills):
        have = [i for i, s in enumerate(skills[source]) if s is not None]
        donors = placebo_donors([outcomes[i] for i in have], [types[i] for i in have])
        placebo: list[str | None] = [None] * len(outcomes)
        for i, d in zip(have, donors):
            placebo[i] = skills[source][have[d]] if d is not None else None
        skills[f"placebo_{source}"] = placebo


def _skill_counts(skills: dict[str, list[str | None]]) -> dict[str, dict[str, int]]:
    return {name: {"items": len(v), "with_skill": sum(s is not None for s in v)} for name, v in skills.items()}


def _missing(skills: dict[str, list[str | None]], args: argparse.Namespace) -> dict[str, str]:
    """The skill sources with no skill at all, and why."""
    missing = {}
    for name, texts in skills.items():
        if any(t is not None for t in texts):
            continue
        if name.endswith("own"):
            missing[name] = "--no-own" if args.no_own else "the model wrote no parseable skill"
        else:
            missing[name] = "no item with a skill of this source"
    return missing


def household_check(policy, scorer: Scorer, args: argparse.Namespace) -> tuple[dict, list]:
    tasks: list[TaskStates] = household_states(
        args.split,
        args.household_tasks,
        args.seed,
        max_steps=args.max_steps,
        history=args.history,
        memory=args.memory,
    )
    _say(f"{len(tasks)} household tasks, {sum(len(t.states) for t in tasks)} states; the model writes its skills")
    own = _own_skills(policy, [t.analysis_prompt for t in tasks], args)
    skills = {"oracle": [t.oracle_skill for t in tasks], "own": own}
    _with_placebos(skills, [t.attempt_a_won for t in tasks], [t.task_type for t in tasks])
    keys, scored_rows = [], []  # per pair (task, step, mistake kind, skill source); its a* row and its m row
    for i, task in enumerate(tasks):
        for state in task.states:
            plain = scorer.plain_prompt(state.prompt)
            expert = scorer.response(state.expert.response)
            mistakes = [(m.mistake, scorer.response(m.response)) for m in state.mistakes]
            for source, texts in skills.items():
                if texts[i] is None:
                    continue
                skilled = scorer.skill_prompt(state.prompt, texts[i])
                for kind, mistake in mistakes:
                    keys.append((task.task_id, state.step, kind, source))
                    scored_rows += [(plain, skilled, expert), (plain, skilled, mistake)]
    scored = scorer.deltas(scored_rows)
    rows, band = [], {}  # band: each scored response once (a* is in every pair of its state)
    for n, (task_id, step, kind, source) in enumerate(keys):
        expert_delta, mistake_delta = scored[2 * n], scored[2 * n + 1]
        rows.append(PairRow(task_id, step, kind, source, expert_delta, mistake_delta))
        band[(task_id, step, source, "expert")] = (source, expert_delta)
        band[(task_id, step, source, kind)] = (source, mistake_delta)
    section = expert_section(
        rows, _missing(skills, args), states=sum(len(t.states) for t in tasks), resamples=args.resamples, seed=args.seed
    )
    section |= {
        "split": args.split,
        "tasks": len(tasks),
        "attempt_a": {
            "mistake_rates": ATTEMPT_A_RATES,
            "repeat_invalid": ATTEMPT_A_REPEAT,
            "won": sum(t.attempt_a_won for t in tasks),
        },
        "skills": _skill_counts(skills),
        "examples": [
            {"task": t.task, "won": t.attempt_a_won, "oracle": skills["oracle"][i], "own": skills["own"][i]}
            for i, t in enumerate(tasks[:3])
        ],
    }
    return section, list(band.values())


def run_check(policy, scorer: Scorer, run_dir: str, args: argparse.Namespace) -> tuple[dict, list]:
    from seed_trainer.analyzers.self_analysis import analysis_prompt_from_record
    from seed_trainer.runlog.reader import RunReader

    reader = RunReader(run_dir)
    trajectories = []
    records = (record for file in reader.trajectory_files() for _line, record in reader.iter_trajectories(file))
    for record in records:  # the first --max-trajectories with recorded tokens (the scored response ids)
        if record.get("steps") and all(RunReader.tokens(s) is not None for s in record["steps"]):
            trajectories.append(record)
            if len(trajectories) >= args.max_trajectories:
                break
    _say(f"{run_dir}: {len(trajectories)} trajectories; the model writes its skills")
    own = _own_skills(policy, [analysis_prompt_from_record(t) for t in trajectories], args)
    recorded = [
        (t.get("skill") or {}).get("text") if (t.get("skill") or {}).get("valid") else None for t in trajectories
    ]
    skills = {"own": own} | ({"recorded": recorded} if any(recorded) else {})
    outcomes, types = [bool(t["success"]) for t in trajectories], [t["task"].get("type", "") for t in trajectories]
    _with_placebos(skills, outcomes, types)
    plan = []
    for i, t in enumerate(trajectories):
        for step in t["steps"]:
            plain = scorer.plain_prompt(step["prompt"])
            response = scorer.response_of_ids(RunReader.tokens(step).ids)
            for source, texts in skills.items():
                if texts[i] is not None:
                    plan.append((i, step["t"], source, plain, scorer.skill_prompt(step["prompt"], texts[i]), response))
    scored = scorer.deltas([(p, s, r) for *_, p, s, r in plan])
    rows = [
        StepRow(trajectories[i]["task"]["id"], trajectories[i]["id"], t, outcomes[i], source, d)
        for (i, t, source, *_), d in zip(plan, scored)
    ]
    section = outcome_section(rows, _missing(skills, args), resamples=args.resamples, seed=args.seed)
    section |= {
        "run": Path(run_dir).name,
        "trajectories": len(trajectories),
        "successes": sum(outcomes),
        "skills": _skill_counts(skills),
    }
    return section, [(r.source, r.scored) for r in rows]


def build_report(args: argparse.Namespace) -> dict[str, Any]:
    from seed_trainer.premise.scoring import Scorer

    policy = _load(args)
    started = time.perf_counter()
    scorer = Scorer(
        policy,
        max_prompt_tokens=args.max_prompt_tokens,
        temperature=args.temperature,
        micro_batch_size=args.micro_batch,
        progress=_say,
    )
    report: dict[str, Any] = {
        "format": 1,
        "model": args.model,
        "settings": {
            "history": args.history,
            "memory": args.memory,
            "max_steps": args.max_steps,
            "max_prompt_tokens": args.max_prompt_tokens,
            "analysis_tokens": args.analysis_tokens,
            "temperature": args.temperature,
            "beta": args.beta,
            "resamples": args.resamples,
            "level": 0.95,
            "seed": args.seed,
            "dtype": str(policy.compute_dtype).removeprefix("torch."),
        },
    }
    band = []
    if args.household_tasks > 0:
        report["expert_vs_mistake"], scored = household_check(policy, scorer, args)
        band += scored
    else:
        report["expert_vs_mistake"] = {"status": "n/a", "reason": "--household-tasks 0"}
    report["runs"] = []
    for run_dir in args.run:
        section, scored = run_check(policy, scorer, run_dir, args)
        report["runs"].append(section)
        band += scored
    report["gate_band"] = gate_band(band, args.beta)
    report["timing"] = {
        "seconds": time.perf_counter() - started,
        "forward_seconds": scorer.seconds,
        "forward_tokens": scorer.tokens,
        "covers": COVERS,
    }
    return report


def check_arguments(args: argparse.Namespace) -> None:
    """Refuses what cannot work before torch loads: a ValueError naming the option."""
    from seed_trainer.envs.household import HouseholdTasks
    from seed_trainer.experiment.config import builtin_model_dir
    from seed_trainer.models import holds_model
    from seed_trainer.runlog import layout

    try:
        builtin = builtin_model_dir(args.model)
    except ValueError as exc:
        raise ValueError(f"--model: {exc}") from exc
    if builtin is None and not holds_model(Path(args.model)):
        raise ValueError(f"--model: {args.model} is not a model folder (no config.json with weights) nor builtin:NAME")
    if args.household_tasks < 0:
        raise ValueError("--household-tasks: must be 0 or more")
    if args.household_tasks and args.split not in HouseholdTasks.splits:
        raise ValueError(f"--split: household has no split {args.split!r} ({', '.join(HouseholdTasks.splits)})")
    for run_dir in args.run:
        if not (Path(run_dir) / layout.MANIFEST).is_file():
            raise ValueError(f"--run: {run_dir} is not a run folder (no {layout.MANIFEST})")
    if not args.household_tasks and not args.run:
        raise ValueError("nothing to check: --household-tasks 0 and no --run")
    if not Path(args.out).parent.is_dir():
        raise ValueError(f"--out: the folder of {args.out} does not exist")


def write_report(args: argparse.Namespace) -> dict[str, Any]:
    """Builds the report, validates it against its schema and writes it to `args.out`."""
    from seed_trainer.runlog.schemas import SchemaSet

    check_arguments(args)
    report = build_report(args)
    SchemaSet().validate(SCHEMA_KIND, report, Path(args.out).name)
    Path(args.out).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.stdout.write(f"premise report: {args.out}\n")
    return report
