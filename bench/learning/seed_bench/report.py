"""The learning report (bench/results/learning.json): its settings, the completed entries kept from an earlier report,
each run's entry and curve, the summary across seeds, and writing it."""

from __future__ import annotations

import json
from pathlib import Path

from seed_bench import REPO
from seed_bench.algorithms import needs_stage1, seeds_of
from seed_bench.diagnostics import diagnostics
from seed_bench.experiments import model_settings, shared_settings
from seed_bench.runs import eval_outcomes, eval_success, started_from, status_of, weights_fingerprint
from seed_bench.stats import change_over_start, difference, interval, mean, paired_by_task, paired_difference, wilson
from seed_trainer.runlog import RunReader
from seed_trainer.runlog.environment import RunEnvironment


def shown_path(path: Path) -> str:
    """A path as the report shows it: relative to the repository when inside it; outside it, only its last three parts
    (reports are committed, and the folders of one machine mean nothing on another)."""
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else "…/" + "/".join(path.parts[-3:])


def report_settings(args) -> dict:
    """What a report's runs were made with (the seeds aside): entries of another report are kept only when equal."""
    return {
        **shared_settings(args),
        "model": shown_path(Path(args.model)),
        "weights": weights_fingerprint(Path(args.model)),
        "stage1_for": sorted(a for a in args.algorithms if needs_stage1(a, args)),
        "splits": list(args.splits),
        **({"model_settings": model_settings(args)} if model_settings(args) != {"device": "cpu"} else {}),
    }


def previous_entries(path: Path, args) -> dict[tuple[str, int], dict]:
    """The completed runs of an earlier report at `path` made with these settings, by (algorithm, seed)."""
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    settings = dict(earlier.get("settings") or {})
    settings.pop("seeds", None)
    if settings != report_settings(args):
        return {}
    return {
        (algorithm, int(seed)): entry
        for algorithm, per_seed in (earlier.get("algorithms") or {}).items()
        for seed, entry in per_seed.items()
        if entry.get("status") == "completed"
    }


def curve(eval_rows: list[dict], start: dict[str, tuple[float, int] | None], splits) -> dict[str, list[list[float]]]:
    """Success vs update per split: update 0 from the starting model's eval run, then the train run's eval rows."""
    out = {split: ([[0, start[split][0]]] if start.get(split) else []) for split in splits}
    for row in eval_rows:
        if row.get("split") in out and row.get("success/overall") is not None:
            out[row["split"]].append([row["step"], row["success/overall"]])
    return out


def bench_code() -> dict:
    """The benchmark checkout's commit and whether it had uncommitted changes (None outside a git checkout)."""
    environment = RunEnvironment.detect(repo_dir=REPO, device={})
    return {"git_commit": environment.git_commit, "git_dirty": environment.git_dirty}


def report(args, root: Path, previous: dict[tuple[str, int], dict] | None = None) -> dict:
    """Per algorithm and seed, from the runs under `root`; a run that is not there but completed in `previous` (the
    committed report) keeps its entry."""
    seeds = seeds_of(args)
    previous = previous or {}
    results: dict = {
        "settings": {**report_settings(args), "seeds": seeds},
        # the benchmark's own checkout: a run's run.json names the commit of its experiment file's folder, which for
        # these runs (experiments written beside the runs) is no repository
        "bench_code": bench_code(),
        "algorithms": {},
        "summary": {},
    }
    for algorithm in args.algorithms:
        per_seed = {}
        for seed in seeds[algorithm]:
            folder = root / f"seed-{seed}"
            train_run = folder / algorithm
            status = status_of(train_run)
            recorded = started_from(folder)
            if status is not None and recorded not in (None, results["settings"]["weights"]):
                print(
                    f"[bench] {algorithm} seed {seed}: left out, its runs started from weights {recorded}, not "
                    f"{results['settings']['weights']}",
                    flush=True,
                )
                status = None
            if status != "completed" and (algorithm, seed) in previous:
                per_seed[str(seed)] = previous[(algorithm, seed)]
                continue
            if status is None:
                continue
            label = "sft" if needs_stage1(algorithm, args) else "base"
            start = {split: eval_success(folder / f"{label}-eval-{split}", split) for split in args.splits}
            reader = RunReader(train_run)
            manifest = reader.manifest()
            metrics = reader.metrics()
            rows = [r for r in metrics if r.get("kind") == "update"]
            eval_rows = [r for r in metrics if r.get("kind") == "eval"]
            entry = {
                "run": shown_path(train_run),
                # an unfinished run is reported (its curve so far) but kept out of the summary's finals
                "status": status,
                # which code on which machine: runs of one commit repeat bit for bit on one machine, not across
                # CPUs (docs/research/distillation-term.md, "The re-runs are not the stored runs")
                "made_with": {key: manifest.get(key) for key in ("git_commit", "git_dirty", "versions", "device")},
                "updates_done": max((r["step"] for r in rows), default=0),
                "curve": curve(eval_rows, start, args.splits),
                "final": {split: eval_success(train_run, split) for split in args.splits},
                "start": start,
                "final_outcomes": {split: eval_outcomes(train_run, split) for split in args.splits},
                "start_outcomes": {
                    split: eval_outcomes(folder / f"{label}-eval-{split}", split) for split in args.splits
                },
                "invalid_action_rate_train_last5": mean([1 - r["episode/valid_action_ratio"] for r in rows[-5:]]),
                "train_success_first10": mean([r["success/overall"] for r in rows[:10]]),
                "train_success_last10": mean([r["success/overall"] for r in rows[-10:]]),
                "train_success_last5": mean([r["success/overall"] for r in rows[-5:]]),
                "admissible_action_ratio_train_first10": mean(
                    [r.get("episode/admissible_action_ratio") for r in rows[:10]]
                ),
                "admissible_action_ratio_train_last10": mean(
                    [r.get("episode/admissible_action_ratio") for r in rows[-10:]]
                ),
                "seconds_per_update": mean([r.get("time/total") for r in rows]),
            }
            last_step = max((r["step"] for r in eval_rows), default=None)
            final_eval = [r for r in eval_rows if r["step"] == last_step]
            entry["invalid_action_rate_eval_final"] = mean(
                [
                    1 - r["episode/valid_action_ratio"]
                    for r in final_eval
                    if r.get("episode/valid_action_ratio") is not None
                ]
            )
            entry["admissible_action_ratio_eval"] = {
                split: [
                    [r["step"], r["episode/admissible_action_ratio"]]
                    for r in eval_rows
                    if r.get("split") == split and r.get("episode/admissible_action_ratio") is not None
                ]
                for split in args.splits
            }
            if algorithm != "grpo":  # the GRPO controls too: their entropy is what they are compared by
                entry["diagnostics"] = diagnostics(train_run, rows, faithfulness=args.env == "household")
            per_seed[str(seed)] = entry
        results["algorithms"][algorithm] = per_seed
    # summary: final success with intervals, and updates to reach GRPO's final mean
    grpo_final = {}

    def completed_finals_by_seed(algorithm: str, split: str) -> dict[int, tuple[float, int]]:
        return {
            int(seed): e["final"][split]
            for seed, e in results["algorithms"].get(algorithm, {}).items()
            if e["final"][split] and e["status"] == "completed"
        }

    for algorithm, per_seed in results["algorithms"].items():
        summary = {}
        done = [e for e in per_seed.values() if e["status"] == "completed"]  # as the finals: the same runs throughout
        for split in args.splits:
            by_seed = completed_finals_by_seed(algorithm, split)
            finals = list(by_seed.values())
            if not finals:
                continue
            summary[split] = {
                "final_across_seeds": interval([f[0] for f in finals]),
                "final_pooled_episodes": wilson(sum(f[0] * f[1] for f in finals), sum(f[1] for f in finals)),
                "start_mean": mean([e["start"][split][0] for e in done if e["start"].get(split)]),
            }
            started = [
                (e["final"][split], e["start"][split]) for e in done if e["final"][split] and e["start"].get(split)
            ]
            if started:
                summary[split]["over_start"] = {
                    **change_over_start(started),
                    "paired_tasks": paired_by_task(
                        [(e.get("final_outcomes", {}).get(split), e.get("start_outcomes", {}).get(split)) for e in done]
                    ),
                }
            if algorithm == "grpo":
                grpo_final[split] = summary[split]["final_across_seeds"]["mean"]
            elif grpo_by_seed := completed_finals_by_seed("grpo", split):
                grpo_runs = results["algorithms"]["grpo"]
                summary[split]["against_grpo"] = {
                    **difference(finals, list(grpo_by_seed.values())),
                    "paired_seeds": paired_difference(by_seed, grpo_by_seed),
                    "paired_tasks": paired_by_task(
                        [
                            (
                                per_seed[str(seed)].get("final_outcomes", {}).get(split),
                                grpo_runs[str(seed)].get("final_outcomes", {}).get(split),
                            )
                            for seed in sorted(by_seed)
                            if seed in grpo_by_seed
                        ]
                    ),
                }
        summary["invalid_action_rate_eval_final"] = mean([e["invalid_action_rate_eval_final"] for e in done])
        results["summary"][algorithm] = summary
    for algorithm, per_seed in results["algorithms"].items():
        for split in args.splits:
            if split not in grpo_final:
                continue
            reached = []
            for entry in per_seed.values():
                hit = next((u for u, s in entry["curve"][split] if u > 0 and s >= grpo_final[split]), None)
                entry.setdefault("updates_to_grpo_final", {})[split] = hit
                if entry["status"] == "completed":  # as the finals: an unfinished run has not had its updates yet
                    reached.append(hit)
            if split in results["summary"].get(algorithm, {}):
                results["summary"][algorithm][split]["updates_to_grpo_final"] = reached
    return results


def write_report(results: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
