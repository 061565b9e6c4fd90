"""Held-out success of the learning benchmark's start and final weights on many more tasks than its curve uses.

The curve's evaluations (bench/learning/learning.py, 120 tasks per split) cannot resolve a change of a few points: its 95 %
interval is about ±12 points per run. An evaluation episode costs well under a second on one thread, so the start model
and the last checkpoint of every completed train run are cheap to evaluate again on, say, 500 tasks per split. Every
run of a split plays the same tasks, so the differences are taken task by task (`seed_bench.stats.paired_by_task`):

    .venv/bin/python bench/learning/final_eval.py --algorithms grpo seed --tasks 500

It reads the seed folders under --runs (those bench/learning/learning.py made without --stage1, from the weights at --model
only: the start it evaluates is --model), writes the evaluations next to them (`<algorithm>-final<N>-<split>`,
`base-eval<N>-<split>`; reused when there) and prints and writes bench/results/final_eval.json: per algorithm, start
and final success pooled over seeds, the change over start and the difference from GRPO, both task by task. The report
also keeps every evaluation's task-by-task outcomes; evaluations in an earlier report at --out (same start weights, task
count and temperature) whose folders are gone are kept from it, so a later session can add seeds to the table.
`--temperature T` evaluates at T instead of the runs' own temperature (folders `…<N>-t<T>-<split>`; give `--out`).

`--reference REPORT` pairs these finals with another report's, made from the same start weights on the same tasks
(e.g. runs of another `opd.estimator` against bench/results/final_eval.json's GRPO and SEED): every algorithm gets
`against_reference`, its difference from each of that report's algorithms task by task over the seeds both have, and
`against_grpo` from the reference when this report has no GRPO of its own. The start evaluations of the two reports
must agree task for task, or nothing is paired.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml
from seed_bench import REPO
from seed_bench.algorithms import ALGORITHMS, CONTROL_ALGORITHMS, DEFAULT_MODEL, SPLITS
from seed_bench.report import shown_path, write_report
from seed_bench.runs import ensure_run, eval_outcomes, started_from, status_of, weights_fingerprint
from seed_bench.stats import interval, paired_by_task, wilson

from seed_trainer.checkpoints.folder import (
    checkpoint_dirs,
    checkpoint_update,
    latest_checkpoint,
    training_checkpoint_problem,
)


def eval_experiment(
    source: Path, model: Path, tasks: int, out: Path, temperature: float | None = None, greedy: bool = False
) -> Path:
    """The run's own experiment file, with `model` as the weights, `tasks` evaluation tasks and, when given, another
    sampling temperature than the run's evaluations, or greedy decoding."""
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    data["name"] = out.name.removesuffix(".seed.yaml")
    data["model"] = {**data["model"], "path": str(model)}
    data["eval"] = {**data["eval"], "tasks": tasks}
    if temperature is not None:
        data["eval"]["temperature"] = temperature
    if greedy:
        data["eval"]["greedy"] = True
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


def jobs_of(args, fingerprint: str) -> list[tuple[str, int, str, Path, Path, Path]]:
    """(kind, seed, split, experiment, run dir, log) of every evaluation to have: kind "start" or an algorithm."""
    jobs = []
    # absolute paths: an experiment file's relative paths are read from its own folder
    for folder in sorted(Path(args.runs).resolve().glob("seed-*")):
        seed = int(folder.name.removeprefix("seed-"))
        if started_from(folder) != fingerprint:
            print(
                f"[final_eval] {folder.name}: left out, its runs did not record starting from {fingerprint}", flush=True
            )
            continue
        finals = {a: latest_checkpoint(folder / a) for a in args.algorithms if status_of(folder / a) == "completed"}
        for algorithm in [a for a, checkpoint in finals.items() if checkpoint is None]:
            print(f"[final_eval] {folder.name}/{algorithm}: left out, the run kept no complete checkpoint", flush=True)
            del finals[algorithm]
        if not finals:
            continue
        # one experiment file per model (start, each algorithm's final), evaluated on every split
        tag = decoding_tag(args)
        experiments = {
            "start": (
                eval_experiment(
                    folder / f"base-eval-s{seed}.seed.yaml",
                    Path(args.model).resolve(),
                    args.tasks,
                    folder / f"base-eval{tag}-s{seed}.seed.yaml",
                    args.temperature,
                    args.greedy,
                ),
                f"base-eval{tag}",
            )
        }
        for algorithm, checkpoint in finals.items():
            for update, kept in kept_checkpoints(folder / algorithm, args.checkpoints or [], checkpoint).items():
                name = f"{algorithm}@{update}"
                experiments[name] = (
                    eval_experiment(
                        folder / f"{algorithm}-s{seed}.seed.yaml",
                        kept,
                        args.tasks,
                        folder / f"{algorithm}-step{update}{tag}-s{seed}.seed.yaml",
                        args.temperature,
                        args.greedy,
                    ),
                    f"{algorithm}-step{update}{tag}",
                )
            experiments[algorithm] = (
                eval_experiment(
                    folder / f"{algorithm}-s{seed}.seed.yaml",
                    checkpoint,
                    args.tasks,
                    folder / f"{algorithm}-final{tag}-s{seed}.seed.yaml",
                    args.temperature,
                    args.greedy,
                ),
                f"{algorithm}-final{tag}",
            )
        for split in args.splits:
            for kind, (experiment, prefix) in experiments.items():
                jobs.append((kind, seed, split, experiment, folder / f"{prefix}-{split}", folder / "final_eval.log"))
    return jobs


def kept_checkpoints(run_dir: Path, updates: list[int], final: Path) -> dict[int, Path]:
    """The run's complete checkpoints of the given updates (`--checkpoints`) other than its final one, which is
    evaluated as the algorithm itself; a missing one is said and left out."""
    found = {checkpoint_update(d): d for d in checkpoint_dirs(run_dir) if training_checkpoint_problem(d) is None}
    out = {}
    for update in sorted(set(updates)):
        if update == checkpoint_update(final):
            continue
        if update not in found:
            print(f"[final_eval] {run_dir}: no complete checkpoint of update {update} (--keep-checkpoints)", flush=True)
            continue
        out[update] = found[update]
    return out


def decoding_tag(args) -> str:
    """What the evaluation folders of these arguments are called after their task count: `500`, `500-t1`, `500-greedy`."""
    return (
        f"{args.tasks}"
        + (f"-t{args.temperature:g}" if args.temperature is not None else "")
        + ("-greedy" if args.greedy else "")
    )


def summary(
    outcomes: dict[tuple[str, int, str], dict | None],
    algorithms: list[str],
    splits: list[str],
    reference: dict[tuple[str, int, str], dict] | None = None,
) -> dict:
    reference = reference or {}
    references = sorted({a for a, _, _ in reference if a != "start"})
    # GRPO of this report, else the (first) reference's (the same tasks: checked in reference_outcomes)
    grpo_name = next((a for a in references if a == "grpo" or a.endswith(":grpo")), "grpo")
    grpo_of = outcomes if any(a == "grpo" for a, _, _ in outcomes) else reference
    out: dict = {}
    for algorithm in algorithms:
        seeds = sorted({s for a, s, _ in outcomes if a == algorithm})
        if not seeds:
            continue
        out[algorithm] = {"seeds": seeds}
        for split in splits:
            finals = [outcomes.get((algorithm, s, split)) for s in seeds]
            starts = [outcomes.get(("start", s, split)) for s in seeds]
            entry = {
                "start": _pooled(starts),
                "final": _pooled(finals),
                "over_start": paired_by_task(list(zip(finals, starts))),
            }
            # each seed's change, and their t-interval: the spread between training seeds, which the task-by-task
            # interval does not hold
            by_seed = [paired_by_task([(f, s)])["d"] for f, s in zip(finals, starts)]
            entry["over_start_by_seed"] = by_seed
            if None not in by_seed:
                entry["over_start_across_seeds"] = interval(by_seed)
            if algorithm != "grpo":
                entry["against_grpo"] = _against(
                    finals, seeds, grpo_of, "grpo" if grpo_of is outcomes else grpo_name, split
                )
            if references:
                entry["against_reference"] = {r: _against(finals, seeds, reference, r, split) for r in references}
            out[algorithm][split] = entry
    return out


def checkpoint_summary(
    outcomes: dict[tuple[str, int, str], dict | None], algorithms: list[str], splits: list[str]
) -> dict:
    """Per algorithm with `<algorithm>@<update>` evaluations (--checkpoints): each update's success pooled over the
    seeds that have every update's evaluation on every split (a seed whose checkpoints were not all evaluated is left
    out of every row, so the rows compare the same runs), then the final's over those seeds, and the first of them at or
    above GRPO's final success pooled over the same seeds and splits (`reaches_grpo_final`; None when none does)."""

    def pooled(kind: str, seeds: list[int]) -> dict | None:
        return _pooled([outcomes.get((kind, seed, split)) for seed in seeds for split in splits])

    out: dict = {}
    for algorithm in algorithms:
        updates = sorted({int(a.split("@")[1]) for a, _, _ in outcomes if a.startswith(f"{algorithm}@")})
        if not updates:
            continue
        seeds = sorted(
            s
            for s in {s for a, s, _ in outcomes if a == algorithm}
            if all(outcomes.get((f"{algorithm}@{u}", s, split)) for u in updates for split in splits)
        )
        if not seeds:
            continue
        rows = [(str(u), pooled(f"{algorithm}@{u}", seeds)) for u in updates] + [("final", pooled(algorithm, seeds))]
        grpo_seeds = [s for s in seeds if all(outcomes.get(("grpo", s, split)) for split in splits)]
        target = pooled("grpo", grpo_seeds) if grpo_seeds == seeds else None
        reached = next((u for u, p in rows if p and target and p["p"] >= target["p"]), None)
        out[algorithm] = {
            "seeds": seeds,
            "success": {u: p for u, p in rows},
            "grpo_final": target,
            "reaches_grpo_final": reached,
        }
    return out


def _against(finals: list[dict | None], seeds: list[int], others: dict, other: str, split: str) -> dict:
    """The finals' difference from algorithm `other`'s finals in `others`, task by task over the seeds both have."""
    theirs = [others.get((other, s, split)) for s in seeds]
    entry = {
        **paired_by_task(list(zip(finals, theirs))),
        "seeds": [s for s in seeds if (other, s, split) in others],
    }
    # each seed's difference, and their t-interval: the spread between training seeds, which the task-by-task one lacks
    by_seed = [paired_by_task([(f, t)])["d"] for f, t in zip(finals, theirs) if f and t]
    if len(by_seed) >= 2:
        entry["by_seed"], entry["across_seeds"] = by_seed, interval(by_seed)
    return entry


def reference_outcomes(
    paths: list[Path], fingerprint: str, args, ours: dict[tuple[str, int, str], dict | None]
) -> dict[tuple[str, int, str], dict]:
    """The outcomes of the reports at `paths`, to pair with ours: refused (SystemExit, saying why) unless each was made
    from the same start weights, task count and decoding and its start evaluations played the same tasks as ours.
    With one report its algorithms keep their names; with several each is `<report stem>:<algorithm>` (two reports
    may both hold a `seed`)."""
    outcomes: dict[tuple[str, int, str], dict] = {}
    for path in paths:
        report = earlier_report(path)
        if report is None or report.get("benchmark") != "final_eval":
            raise SystemExit(f"--reference {path}: not a final_eval report")
        theirs = (
            report.get("weights"),
            report.get("tasks_per_split"),
            report.get("temperature"),
            report.get("greedy", False),
        )
        wanted = (fingerprint, args.tasks, args.temperature, args.greedy)
        if theirs != wanted:
            raise SystemExit(
                f"--reference {path}: made from weights {theirs[0]}, {theirs[1]} tasks per split, temperature "
                f"{theirs[2]}, greedy {theirs[3]}; these are {', '.join(map(str, wanted))}: their outcomes do not pair"
            )
        for key, outcome in (report.get("outcomes") or {}).items():
            kind, seed, split = key.split("/")
            if (kind, int(seed), split) in ours and kind == "start" and ours[(kind, int(seed), split)]:
                if ours[(kind, int(seed), split)] != outcome:
                    raise SystemExit(f"--reference {path}: its start evaluation {key} differs from ours")
            name = kind if len(paths) == 1 or kind == "start" else f"{path.stem}:{kind}"
            outcomes.setdefault((name, int(seed), split), outcome)
    return outcomes


def outcome_key(kind: str, seed: int, split: str) -> str:
    return f"{kind}/{seed}/{split}"


def kept_outcomes(
    previous: dict | None, fingerprint: str, args, have: set[tuple[str, int, str]]
) -> dict[tuple[str, int, str], dict]:
    """The evaluations of an earlier report that this one does not make again: only from a report of the same start
    weights, task count and decoding, since outcomes of other settings do not pair with these."""
    wanted = (fingerprint, args.tasks, args.temperature, args.greedy)
    if (
        not previous
        or (
            previous.get("weights"),
            previous.get("tasks_per_split"),
            previous.get("temperature"),
            previous.get("greedy", False),
        )
        != wanted
    ):
        return {}
    kept = {}
    for key, outcome in (previous.get("outcomes") or {}).items():
        kind, seed, split = key.split("/")
        if (kind, int(seed), split) not in have and outcome:
            kept[(kind, int(seed), split)] = outcome
    return kept


def reference_names(paths: list[Path] | None) -> str | list[str] | None:
    """The report's `reference`: one path as before, several as a list."""
    if not paths:
        return None
    shown = [shown_path(path) for path in paths]
    return shown[0] if len(shown) == 1 else shown


def earlier_report(path: Path) -> dict | None:
    """The report an earlier run left at `path`, or None when there is none or it cannot be read (then nothing is
    kept from it, and it is said)."""
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"[final_eval] {path}: not read ({exc}); no earlier evaluations are kept from it", flush=True)
        return None


def _pooled(outcomes: list[dict | None]) -> dict | None:
    played = "".join(o["success"] for o in outcomes if o)
    if not played:
        return None
    return wilson(played.count("1"), len(played))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", default=str(REPO / "bench" / "results" / "runs"))
    p.add_argument("--model", default=str(DEFAULT_MODEL), help="the weights the runs started from")
    p.add_argument("--algorithms", nargs="+", default=["grpo", "seed"], choices=ALGORITHMS + CONTROL_ALGORITHMS)
    p.add_argument("--splits", nargs="+", default=list(SPLITS))
    p.add_argument("--tasks", type=int, default=500, help="evaluation tasks per split")
    p.add_argument(
        "--temperature",
        type=float,
        help="evaluate at this sampling temperature instead of the runs' (0.4): e.g. 1.0, the rollouts', to "
        "see whether what the policy learned at its training temperature holds at the evaluation one",
    )
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "final_eval.json"))
    p.add_argument(
        "--checkpoints",
        nargs="+",
        type=int,
        metavar="UPDATE",
        help="also evaluate each run's kept checkpoints of these updates (runs made with learning.py "
        "--keep-checkpoints), as `<algorithm>@<update>`; `checkpoints` in the report says when each algorithm first "
        "reaches GRPO's final success",
    )
    p.add_argument(
        "--greedy",
        action="store_true",
        help="evaluate with greedy decoding (eval.greedy) instead of sampling (folders `…<N>-greedy-<split>`; give --out)",
    )
    p.add_argument(
        "--reference",
        nargs="+",
        type=Path,
        help="final_eval reports on the same start weights, tasks and decoding, to pair these finals with (e.g. "
        "bench/results/final_eval.json for runs of another opd.estimator); with several, their algorithms are "
        "named `<report stem>:<algorithm>`",
    )
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    fingerprint = weights_fingerprint(Path(args.model))
    out = Path(args.out)
    previous = earlier_report(out)  # read before the evaluations: they take minutes and the file is rewritten after
    jobs = jobs_of(args, fingerprint)
    started = time.time()

    def run(job):
        _kind, _seed, split, experiment, run_dir, log = job
        return ensure_run("eval", experiment, run_dir, log, args.threads, ["--split", split])

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(run, jobs))
    outcomes = {(kind, seed, split): eval_outcomes(run_dir, split) for kind, seed, split, _, run_dir, _ in jobs}
    kept = kept_outcomes(previous, fingerprint, args, set(outcomes))
    if kept:
        print(f"[final_eval] {len(kept)} evaluations kept from {out} (their run folders are not here)", flush=True)
    outcomes.update(kept)
    reference = reference_outcomes(args.reference, fingerprint, args, outcomes) if args.reference else None
    result = {
        "benchmark": "final_eval",
        "weights": fingerprint,
        "tasks_per_split": args.tasks,
        "temperature": args.temperature,  # null: the runs' own evaluation temperature
        **({"greedy": True} if args.greedy else {}),  # only when set: the reports made before the option compare equal
        "evaluations": len(jobs),
        "kept_evaluations": len(kept),
        "seconds": round(time.time() - started),
        "reference": reference_names(args.reference),
        "algorithms": summary(outcomes, args.algorithms, args.splits, reference),
        **({"checkpoints": checkpoint_summary(outcomes, args.algorithms, args.splits)} if args.checkpoints else {}),
        "outcomes": {outcome_key(*key): outcome for key, outcome in sorted(outcomes.items(), key=str)},
    }
    write_report(result, out)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
