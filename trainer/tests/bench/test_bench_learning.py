"""The learning benchmark's bookkeeping (bench/learning/seed_bench, and learning.py's command line): a run is reused
only with the settings asked for, the committed report keeps completed runs across checkouts, seeds per algorithm; the
Wilson interval."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from seed_bench import algorithms, experiments, runs, stats
from seed_bench import report as reports
from testenv import bench_module


@pytest.fixture(scope="module")
def learning():
    """learning.py, the benchmark's command line (its parser and main)."""
    return bench_module("learning")


def _run(tmp_path: Path, config: dict) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"status": "completed", "config": config}), encoding="utf-8")
    return run


def test_a_run_made_with_another_learning_rate_is_named(tmp_path):
    run = _run(
        tmp_path, {"name": "grpo-s0", "updates": 60, "rl": {"lr": 3e-4, "kl_coef": 0.01}, "eval": {"splits": ["dev"]}}
    )
    experiment = tmp_path / "grpo-s0.seed.yaml"
    experiment.write_text(
        yaml.safe_dump(
            {"name": "other", "runs_dir": ".", "updates": 60, "rl": {"lr": 1e-4}, "eval": {"splits": ["dev"]}}
        ),
        encoding="utf-8",
    )
    assert experiments.settings_mismatch(experiment, run) == ["rl.lr: 0.0003 ≠ 0.0001"]
    with pytest.raises(SystemExit, match="rl.lr: 0.0003 ≠ 0.0001"):
        runs.ensure_run("train", experiment, run, tmp_path / "log", threads=1)


def test_the_same_settings_reuse_the_completed_run(tmp_path):
    run = _run(tmp_path, {"updates": 60, "rl": {"lr": 1e-4, "kl_coef": 0.01}, "eval": {"splits": ["dev"]}})
    experiment = tmp_path / "e.seed.yaml"
    experiment.write_text(
        yaml.safe_dump({"updates": 60, "rl": {"lr": 1e-4}, "eval": {"splits": ["dev"]}}), encoding="utf-8"
    )
    assert experiments.settings_mismatch(experiment, run) == []
    assert runs.ensure_run("train", experiment, run, tmp_path / "log", threads=1) == run  # reused, nothing run


def test_wilson_interval_by_hand():
    # 30 of 100: centre (0.3 + 1.96²/200) / (1 + 1.96²/100), half-width 1.96·√(0.0021 + 1.96²/40000) / (1 + 1.96²/100)
    w = stats.wilson(30, 100)
    assert w["lo"] == pytest.approx(0.21895, abs=1e-4) and w["hi"] == pytest.approx(0.39586, abs=1e-4)


def test_difference_from_grpo_by_hand():
    seed, grpo = [(0.40, 120), (0.30, 120)], [(0.25, 120), (0.35, 120), (0.30, 120)]
    diff = stats.difference(seed, grpo)
    # across seeds: 0.35 − 0.30; Welch se² = 0.005/2 + 0.0025/3, df = 1.68 → 1, t = 12.706, half 12.706·0.05774
    across = diff["across_seeds"]
    assert across["d"] == pytest.approx(0.05) and across["seeds"] == [2, 3]
    assert across["lo"] == pytest.approx(0.05 - 0.73358, abs=1e-4) and across["hi"] == pytest.approx(
        0.05 + 0.73358, abs=1e-4
    )
    # pooled: 84/240 against 108/360; Wilson [0.29245, 0.41228] and [0.25498, 0.34925];
    # Newcombe: 0.05 ∓ √(0.05755² + 0.04925²) / √(0.06228² + 0.04502²)
    pooled = diff["pooled_episodes"]
    assert pooled["lo"] == pytest.approx(-0.02575, abs=1e-4) and pooled["hi"] == pytest.approx(0.12685, abs=1e-4)
    assert pooled["episodes"] == [240, 360]
    one_seed = stats.difference([(0.4, 120)], grpo)["across_seeds"]
    assert one_seed["lo"] is None and one_seed["hi"] is None and one_seed["d"] == pytest.approx(0.1)


def test_change_over_start_by_hand():
    pairs = [((0.30, 120), (0.25, 120)), ((0.35, 120), (0.25, 120))]
    change = stats.change_over_start(pairs)
    # paired across seeds: changes 0.05 and 0.10, mean 0.075, sd 0.035355, se 0.025, t(1) = 12.706, half 0.31765
    across = change["across_seeds"]
    assert across["d"] == pytest.approx(0.075) and across["seeds"] == 2
    assert across["lo"] == pytest.approx(0.075 - 0.31765, abs=1e-4) and across["hi"] == pytest.approx(
        0.075 + 0.31765, abs=1e-4
    )
    # pooled: 78/240 against 60/240; Wilson [0.26890, 0.38661] and [0.19945, 0.30843];
    # Newcombe: 0.075 ∓ √(0.05610² + 0.05843²) / √(0.06161² + 0.05055²)
    pooled = change["pooled_episodes"]
    assert pooled["d"] == pytest.approx(0.075)
    assert pooled["lo"] == pytest.approx(-0.00600, abs=1e-4) and pooled["hi"] == pytest.approx(0.15470, abs=1e-4)
    one = stats.change_over_start(pairs[:1])["across_seeds"]
    assert one["d"] == pytest.approx(0.05) and one["lo"] is None and one["seeds"] == 1


def test_paired_difference_by_hand():
    seed = {0: (0.40, 120), 1: (0.30, 120), 2: (0.50, 120), 4: (0.20, 120)}
    grpo = {0: (0.30, 120), 1: (0.30, 120), 2: (0.35, 120), 3: (0.90, 120)}
    paired = stats.paired_difference(seed, grpo)
    # seeds 0-2 only: differences 0.10, 0.00, 0.15; mean 0.08333, sd 0.076376, se 0.044096, t(2) = 4.303, half 0.18975
    assert paired["seeds"] == [0, 1, 2] and paired["d"] == pytest.approx(0.083333, abs=1e-5)
    assert paired["lo"] == pytest.approx(0.083333 - 0.18975, abs=1e-4) and paired["hi"] == pytest.approx(
        0.083333 + 0.18975, abs=1e-4
    )
    one = stats.paired_difference({0: (0.4, 120)}, grpo)
    assert one["d"] == pytest.approx(0.1) and one["lo"] is None and one["seeds"] == [0]
    assert stats.paired_difference({4: (0.2, 120)}, grpo) == {"d": None, "lo": None, "hi": None, "seeds": []}


def test_paired_by_task_by_hand():
    final, start = {"tasks": "a" * 16, "success": "1101"}, {"tasks": "a" * 16, "success": "0101"}
    other_tasks = {"tasks": "b" * 16, "success": "1111"}
    paired = stats.paired_by_task([(final, start), (other_tasks, start), (None, start)])
    # only the first pair plays the same tasks: differences 1, 0, 0, 0; mean 0.25, sd 0.5, se 0.25, t(3) = 3.182
    assert paired["episodes"] == 4 and paired["d"] == pytest.approx(0.25)
    assert paired["lo"] == pytest.approx(0.25 - 0.7955, abs=1e-3) and paired["hi"] == pytest.approx(
        0.25 + 0.7955, abs=1e-3
    )
    assert stats.paired_by_task([(other_tasks, start)]) == {"d": None, "lo": None, "hi": None, "episodes": 0}


def test_eval_outcomes_keep_the_task_order_and_a_fingerprint_of_it(tmp_path):
    (tmp_path / "eval").mkdir()
    episodes = [{"task": {"id": f"household-dev-{i}-pick_and_place"}, "success": i % 2 == 0} for i in range(3)]
    (tmp_path / "eval" / "dev.json").write_text(json.dumps({"episodes": episodes}), encoding="utf-8")
    outcomes = runs.eval_outcomes(tmp_path, "dev")
    assert outcomes["success"] == "101" and re.fullmatch(r"[0-9a-f]{16}", outcomes["tasks"])
    episodes.reverse()  # the same tasks in another order: another fingerprint, so never paired
    (tmp_path / "eval" / "dev.json").write_text(json.dumps({"episodes": episodes}), encoding="utf-8")
    assert runs.eval_outcomes(tmp_path, "dev")["tasks"] != outcomes["tasks"]
    assert runs.eval_outcomes(tmp_path, "valid_seen") is None


def _parsed(learning, tmp_path: Path, *extra: str):
    return learning.parser().parse_args(
        ["--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "learning.json"), *extra]
    )


def test_seeds_of_gives_one_algorithm_more_seeds(learning, tmp_path):
    args = _parsed(
        learning,
        tmp_path,
        "--algorithms",
        "grpo",
        "seed",
        "sdar",
        "--seeds",
        "0",
        "1",
        "2",
        "--seeds-of",
        "grpo=0-4",
        "seed=0,1,2,5",
    )
    assert algorithms.seeds_of(args) == {"grpo": [0, 1, 2, 3, 4], "seed": [0, 1, 2, 5], "sdar": [0, 1, 2]}
    bad = _parsed(learning, tmp_path, "--algorithms", "grpo", "--seeds-of", "seed=0-4")
    with pytest.raises(SystemExit, match="--seeds-of 'seed=0-4'"):
        algorithms.seeds_of(bad)


def test_only_picks_which_of_the_runs_still_to_make_are_made(learning, tmp_path):
    full = ["--algorithms", "grpo", "seed", "sdar", "--seeds", "0", "1", "--seeds-of", "grpo=0-3"]
    done = {("grpo", 0): {}, ("seed", 0): {}, ("sdar", 0): {}, ("grpo", 1): {}}
    args = _parsed(learning, tmp_path, *full)
    # seed-major, and the completed ones left out
    assert algorithms.runs_to_make(args, done) == [("seed", 1), ("sdar", 1), ("grpo", 2), ("grpo", 3)]
    only = _parsed(learning, tmp_path, *full, "--only", "grpo=1-3", "seed=1")
    assert algorithms.runs_to_make(only, done) == [("seed", 1), ("grpo", 2), ("grpo", 3)]  # grpo 1 is done already
    assert algorithms.seeds_of(only) == algorithms.seeds_of(args)  # the report still covers every seed
    with pytest.raises(SystemExit, match="--only 'opsd=1'"):
        algorithms.runs_to_make(_parsed(learning, tmp_path, *full, "--only", "opsd=1"), done)
    with pytest.raises(SystemExit, match=r"seeds \[4\] are not the report's"):
        algorithms.runs_to_make(_parsed(learning, tmp_path, *full, "--only", "grpo=3-4"), done)


def test_the_committed_report_keeps_completed_runs_made_with_the_same_settings(learning, tmp_path):
    args = _parsed(learning, tmp_path, "--algorithms", "grpo", "seed", "--updates", "100", "--lr", "1e-4")
    entry = {
        "status": "completed",
        "updates_done": 100,
        "curve": {"valid_seen": [[0, 0.25], [100, 0.4]], "valid_unseen": [[0, 0.2], [100, 0.3]]},
        "final": {"valid_seen": [0.4, 120], "valid_unseen": [0.3, 120]},
        "start": {"valid_seen": [0.25, 120], "valid_unseen": [0.2, 120]},
        "invalid_action_rate_eval_final": 0.1,
        "start_outcomes": {"valid_seen": {"tasks": "a" * 16, "success": "0011"}},
        "final_outcomes": {"valid_seen": {"tasks": "a" * 16, "success": "0111"}},
    }
    unfinished = {**entry, "status": "running", "updates_done": 40}
    report = {
        "settings": {**reports.report_settings(args), "seeds": [0, 1]},
        "algorithms": {
            "grpo": {"0": entry, "1": unfinished},
            "seed": {
                "0": {
                    **entry,
                    "final": {"valid_seen": [0.5, 120], "valid_unseen": [0.3, 120]},
                    "final_outcomes": {"valid_seen": {"tasks": "a" * 16, "success": "1111"}},
                }
            },
        },
    }
    out = tmp_path / "learning.json"
    out.write_text(json.dumps(report), encoding="utf-8")
    previous = reports.previous_entries(out, args)
    assert list(previous) == [("grpo", 0), ("seed", 0)]  # the unfinished run is made again
    rebuilt = reports.report(args, tmp_path / "runs", previous)
    assert list(rebuilt["algorithms"]["grpo"]) == ["0"]
    assert rebuilt["algorithms"]["grpo"]["0"]["curve"] == entry["curve"]
    assert rebuilt["summary"]["grpo"]["valid_seen"]["final_across_seeds"]["mean"] == pytest.approx(0.4)
    assert "against_grpo" not in rebuilt["summary"]["grpo"]["valid_seen"]
    against = rebuilt["summary"]["seed"]["valid_seen"]["against_grpo"]  # against the completed GRPO run only
    assert against["across_seeds"]["d"] == pytest.approx(0.1) and against["pooled_episodes"]["episodes"] == [120, 120]
    assert against["paired_seeds"]["d"] == pytest.approx(0.1) and against["paired_seeds"]["seeds"] == [0]
    assert against["paired_tasks"]["d"] == pytest.approx(0.25) and against["paired_tasks"]["episodes"] == 4
    grown = rebuilt["summary"]["grpo"]["valid_seen"]["over_start"]  # 0.25 → 0.4, the completed run only
    assert grown["across_seeds"]["d"] == pytest.approx(0.15) and grown["across_seeds"]["seeds"] == 1
    assert grown["paired_tasks"]["d"] == pytest.approx(0.25) and grown["paired_tasks"]["episodes"] == 4
    # a report written before the outcomes were kept pairs nothing by task
    assert rebuilt["summary"]["grpo"]["valid_unseen"]["over_start"]["paired_tasks"]["episodes"] == 0
    # a run in progress that is in the report (its folder is there) is drawn but kept out of every summary figure
    running = {
        **unfinished,
        "start": {"valid_seen": [0.45, 120], "valid_unseen": [0.4, 120]},
        "invalid_action_rate_eval_final": 0.9,
    }
    mixed = reports.report(args, tmp_path / "runs", {("grpo", 0): entry, ("grpo", 1): running})
    assert list(mixed["algorithms"]["grpo"]) == ["0", "1"]
    assert mixed["summary"]["grpo"]["valid_seen"]["start_mean"] == pytest.approx(0.25)
    assert mixed["summary"]["grpo"]["invalid_action_rate_eval_final"] == pytest.approx(0.1)
    assert mixed["summary"]["grpo"]["valid_seen"]["over_start"]["across_seeds"]["seeds"] == 1
    # the same report made at another learning rate keeps nothing
    other = _parsed(learning, tmp_path, "--algorithms", "grpo", "seed", "--updates", "100", "--lr", "3e-4")
    assert reports.previous_entries(out, other) == {}
    # nor one made from other weights in the same folder (a re-bootstrapped policy)
    assert re.fullmatch(r"[0-9a-f]{16}", report["settings"]["weights"])
    out.write_text(json.dumps({**report, "settings": {**report["settings"], "weights": "0" * 16}}), encoding="utf-8")
    assert reports.previous_entries(out, args) == {}


def test_a_run_folder_is_reported_with_the_commit_and_device_it_was_made_with(learning, tmp_path):
    """A run as the trainer writes it (the `valid` run-format fixture, stopped) in a benchmark's folder: its entry
    names the commit, versions and device from its run.json (before the fix, reading them crashed the report after
    every run was made)."""
    fixture = Path(__file__).resolve().parents[3] / "test" / "fixtures" / "runs" / "valid"
    shutil.copytree(fixture, tmp_path / "runs" / "seed-0" / "grpo")
    manifest = json.loads((fixture / "run.json").read_text(encoding="utf-8"))
    args = _parsed(learning, tmp_path, "--algorithms", "grpo", "--seeds", "0")
    entry = reports.report(args, tmp_path / "runs")["algorithms"]["grpo"]["0"]
    assert entry["status"] == manifest["status"] == "stopped"
    assert entry["made_with"] == {k: manifest.get(k) for k in ("git_commit", "git_dirty", "versions", "device")}
    assert entry["made_with"]["git_commit"] == "0123456789abcdef0123456789abcdef01234567"
    # and the report names the benchmark's own checkout (a git checkout here: a 40-hex commit)
    assert re.fullmatch(r"[0-9a-f]{40}", reports.report(args, tmp_path / "runs")["bench_code"]["git_commit"])


def test_textworld_has_its_own_defaults_and_household_settings_stay_as_they_were(learning, tmp_path):
    household = learning.parser().parse_args([])
    assert vars(learning.parser("household").parse_args([])) == vars(household)
    settings = reports.report_settings(household)
    # the household report's settings (what decides whether its completed runs are kept) have no trace of --env
    assert settings["environment"] == {"name": "household", "options": {"max_steps": 20}}
    assert "env" not in settings and settings["model"] == "trainer/seed_trainer/assets/household-tiny"
    textworld = learning.parser("textworld").parse_args(["--env", "textworld"])
    assert (textworld.max_steps, textworld.eval_tasks, textworld.algorithms) == (
        12,
        42,
        ["grpo", "seed", "seed_oracle"],
    )
    assert textworld.out.endswith("learning-textworld.json") and textworld.runs.endswith("runs-textworld")
    environment = reports.report_settings(textworld)["environment"]
    assert environment["name"] == "textworld" and environment["options"]["max_steps"] == 12
    assert set(environment["options"]["variants"]) == {"take", "cook", "cut"}
    with pytest.raises(SystemExit, match="household only"):
        learning.main(
            [
                "--env",
                "textworld",
                "--algorithms",
                "sdar",
                "--runs",
                str(tmp_path / "r"),
                "--out",
                str(tmp_path / "o.json"),
            ]
        )


def test_the_docs_tables_are_rendered_from_the_report(tmp_path):
    tables = bench_module("learning_tables")
    entry = {
        "status": "completed",
        "updates_done": 20,
        "train_success_first10": 0.15,
        "train_success_last10": 0.2875,
        "curve": {"valid_seen": [[0, 0.25], [20, 0.3]], "valid_unseen": [[0, 0.2], [20, 0.175]]},
    }
    running = {
        **entry,
        "status": "running",
        "updates_done": 7,
        "curve": {"valid_seen": [[0, 0.25]], "valid_unseen": [[0, 0.2]]},
    }
    one_seed = {"final_across_seeds": {"n": 1}, "over_start": {}}
    summary = {
        "grpo": {
            "valid_seen": {
                "final_across_seeds": {"n": 2},
                "over_start": {
                    "across_seeds": {"d": -0.01, "lo": -0.088, "hi": 0.068},
                    "paired_tasks": {"d": 0.08, "lo": 0.003, "hi": 0.157},
                },
            },
            "valid_unseen": {"final_across_seeds": {"n": 2}, "over_start": {}},
        },
        "seed": {
            "valid_seen": {
                **one_seed,
                "against_grpo": {
                    "across_seeds": {"d": 0.045, "lo": None, "hi": None},
                    "paired_seeds": {"d": 0.033, "lo": None, "hi": None, "seeds": [0]},
                    "pooled_episodes": {"d": 0.045, "lo": -0.039, "hi": 0.139},
                },
            },
            "valid_unseen": one_seed,
        },
        "sdar": {"invalid_action_rate_eval_final": None},
    }  # no completed run yet: no row
    report = {
        "settings": {"splits": ["valid_seen", "valid_unseen"]},
        "summary": summary,
        "algorithms": {"grpo": {"0": entry, "1": entry}, "seed": {"0": running}},
    }
    runs = tables.runs_table(report, ["valid_seen", "valid_unseen"])
    assert runs[0] == "| run | split | u0 | u20 | train success, first 10 → last 10 updates |"
    assert runs[2] == "| GRPO seed 0 | valid_seen | 25.0 | 30.0 | 0.15 → 0.29 |"
    assert runs[3] == "|  | valid_unseen | 20.0 | 17.5 |  |"
    assert runs[6] == "| SEED seed 0 (at update 7) | valid_seen | 25.0 |  | 0.15 → 0.29 |"
    rows = tables.summary_table(report, ["valid_seen", "valid_unseen"])
    assert rows[2] == "| GRPO − its start | 2 | −1.0 [−8.8, +6.8] | — | — | +8.0 [+0.3, +15.7] | — | — | — | — |"
    assert rows[4] == "| SEED − GRPO | 1 against 2 | — | +3.3 (seed 0) | +4.5 [−3.9, +13.9] | — | — | — | — | — |"
    assert len(rows) == 5


def test_runs_made_from_other_weights_are_neither_resumed_nor_reported(learning, tmp_path, capsys):
    folder = tmp_path / "runs" / "seed-0"
    folder.mkdir(parents=True)
    runs.record_start_weights(folder, "a" * 16)
    runs.record_start_weights(folder, "a" * 16)  # the same weights: the next run of the seed goes on
    assert runs.started_from(folder) == "a" * 16
    with pytest.raises(SystemExit, match=f"started from weights {'a' * 16}, but --model now holds {'b' * 16}"):
        runs.record_start_weights(folder, "b" * 16)
    # a completed run in that folder is left out of a report on the current weights (the committed asset's)
    (folder / "grpo").mkdir()
    (folder / "grpo" / "run.json").write_text(json.dumps({"status": "completed", "config": {}}), encoding="utf-8")
    args = _parsed(learning, tmp_path, "--algorithms", "grpo", "--seeds", "0")
    assert reports.report(args, tmp_path / "runs")["algorithms"]["grpo"] == {}
    assert f"grpo seed 0: left out, its runs started from weights {'a' * 16}" in capsys.readouterr().out


def test_final_eval_pools_seeds_and_pairs_task_by_task():
    final_eval = bench_module("final_eval")
    o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731
    outcomes = {
        ("start", 0, "valid_seen"): o("0011"),
        ("grpo", 0, "valid_seen"): o("0111"),
        ("seed", 0, "valid_seen"): o("1111"),
        ("start", 1, "valid_seen"): o("0001"),
        ("grpo", 1, "valid_seen"): o("0001"),
    }
    table = final_eval.summary(outcomes, ["grpo", "seed"], ["valid_seen"])
    grpo = table["grpo"]["valid_seen"]
    assert table["grpo"]["seeds"] == [0, 1] and grpo["final"]["n"] == 8
    assert grpo["final"]["p"] == pytest.approx(4 / 8) and grpo["start"]["p"] == pytest.approx(3 / 8)
    assert grpo["over_start"]["d"] == pytest.approx(1 / 8) and grpo["over_start"]["episodes"] == 8
    assert grpo["over_start_by_seed"] == [pytest.approx(1 / 4), pytest.approx(0.0)]
    spread = grpo["over_start_across_seeds"]  # t(1) = 12.706 times the standard error of {1/4, 0}, which is 1/8
    assert spread["mean"] == pytest.approx(1 / 8) and spread["hi"] == pytest.approx(1 / 8 + 12.706 / 8)
    seed = table["seed"]["valid_seen"]  # seed 0 only: 1111 against GRPO's 0111 on the same four tasks
    assert seed["against_grpo"]["d"] == pytest.approx(1 / 4) and seed["against_grpo"]["seeds"] == [0]
    assert seed["over_start"]["d"] == pytest.approx(2 / 4)


def test_final_eval_experiment_swaps_weights_tasks_and_only_a_given_temperature(tmp_path):
    final_eval = bench_module("final_eval")
    source = tmp_path / "grpo-s0.seed.yaml"
    source.write_text(
        yaml.safe_dump(
            {
                "name": "grpo-s0",
                "model": {"path": "start", "device": "cpu"},
                "eval": {"tasks": 120, "temperature": 0.4, "every": 20},
            }
        ),
        encoding="utf-8",
    )
    kept = yaml.safe_load(
        final_eval.eval_experiment(source, tmp_path / "ckpt", 500, tmp_path / "a.seed.yaml").read_text(encoding="utf-8")
    )
    assert kept["name"] == "a" and kept["model"] == {"path": str(tmp_path / "ckpt"), "device": "cpu"}
    assert kept["eval"] == {"tasks": 500, "temperature": 0.4, "every": 20}
    hot = yaml.safe_load(
        final_eval.eval_experiment(source, tmp_path / "ckpt", 500, tmp_path / "b.seed.yaml", 1.0).read_text(
            encoding="utf-8"
        )
    )
    assert hot["eval"]["temperature"] == 1.0 and hot["eval"]["tasks"] == 500
    greedy = yaml.safe_load(
        final_eval.eval_experiment(source, tmp_path / "ckpt", 500, tmp_path / "c.seed.yaml", greedy=True).read_text(
            encoding="utf-8"
        )
    )
    assert greedy["eval"] == {"tasks": 500, "temperature": 0.4, "every": 20, "greedy": True}
    assert "greedy" not in kept["eval"]
    assert final_eval.decoding_tag(SimpleNamespace(tasks=500, temperature=None, greedy=True)) == "500-greedy"
    assert final_eval.decoding_tag(SimpleNamespace(tasks=500, temperature=1.0, greedy=False)) == "500-t1"


def test_final_eval_table_rows_read_the_report():
    final_eval, tables = bench_module("final_eval"), bench_module("learning_tables")
    o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731
    outcomes = {
        ("start", 0, "valid_seen"): o("0011"),
        ("grpo", 0, "valid_seen"): o("0111"),
        ("seed", 0, "valid_seen"): o("1111"),
    }
    report = {"benchmark": "final_eval", "algorithms": final_eval.summary(outcomes, ["grpo", "seed"], ["valid_seen"])}
    header, _rule, grpo, seed = tables.final_eval_table(report)
    assert "valid_seen: start → final" in header and "valid_unseen" not in header
    cells = [c.strip() for c in seed.strip("|").split("|")]
    assert cells[:3] == ["SEED", "0", "50.0 → 100.0"] and cells[5].startswith("+25.0 [")  # 1111 against 0111
    assert [c.strip() for c in grpo.strip("|").split("|")][5] == "—"


def test_final_eval_pairs_its_finals_with_a_reference_report_on_the_same_tasks(tmp_path):
    # runs of another estimator (this report: SEED only) against a reference report's GRPO and SEED, task by task
    final_eval, tables = bench_module("final_eval"), bench_module("learning_tables")
    o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731
    ours = {
        ("start", 0, "valid_seen"): o("0011"),
        ("seed", 0, "valid_seen"): o("1111"),
        ("start", 1, "valid_seen"): o("0001"),
        ("seed", 1, "valid_seen"): o("0011"),
    }
    theirs = {
        "start/0": "0011",
        "grpo/0": "0111",
        "seed/0": "0011",
        "start/1": "0001",
        "grpo/1": "0001",
        "seed/1": "0001",
    }
    reference_report = {
        "benchmark": "final_eval",
        "weights": "w" * 16,
        "tasks_per_split": 4,
        "temperature": None,
        "outcomes": {f"{key}/valid_seen": o(success) for key, success in theirs.items()},
    }
    path = tmp_path / "final_eval.json"
    path.write_text(json.dumps(reference_report), encoding="utf-8")
    args = SimpleNamespace(tasks=4, temperature=None, greedy=False)
    reference = final_eval.reference_outcomes([path], "w" * 16, args, ours)
    seed = final_eval.summary(ours, ["seed"], ["valid_seen"], reference)["seed"]["valid_seen"]
    # against GRPO: 1111 − 0111 and 0011 − 0001, +1/4 on each seed, so no spread between seeds
    assert seed["against_grpo"]["d"] == pytest.approx(2 / 8) and seed["against_grpo"]["seeds"] == [0, 1]
    assert seed["against_grpo"]["by_seed"] == [pytest.approx(1 / 4)] * 2
    assert seed["against_grpo"]["across_seeds"]["lo"] == pytest.approx(1 / 4)
    assert seed["against_reference"]["seed"]["d"] == pytest.approx(3 / 8)  # 1111 − 0011, 0011 − 0001
    assert seed["against_reference"]["grpo"] == seed["against_grpo"]
    report = {
        "benchmark": "final_eval",
        "reference": "bench/results/final_eval.json",
        "algorithms": {"seed": {"seeds": [0, 1], "valid_seen": seed}},
    }
    header, _rule, row = tables.final_eval_table(report)
    assert "the same algorithm in final_eval.json" in header
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[-1].startswith("+37.5 [") and "; seeds +25.0 [+25.0, +25.0]" in cells[-2]
    # refused: other weights, or a start evaluation that played other tasks
    with pytest.raises(SystemExit, match="do not pair"):
        final_eval.reference_outcomes([path], "x" * 16, args, ours)
    with pytest.raises(SystemExit, match="greedy False; .* True: their outcomes do not pair"):
        final_eval.reference_outcomes([path], "w" * 16, SimpleNamespace(tasks=4, temperature=None, greedy=True), ours)
    other_start = {**ours, ("start", 0, "valid_seen"): {"tasks": "u" * 16, "success": "0011"}}
    with pytest.raises(SystemExit, match="start evaluation start/0/valid_seen differs"):
        final_eval.reference_outcomes([path], "w" * 16, args, other_start)
    # two references: each algorithm under `<report stem>:<name>`, GRPO from the first that has one
    second = tmp_path / "final_eval-expected.json"
    second.write_text(
        json.dumps({**reference_report, "outcomes": {"start/0/valid_seen": o("0011"), "seed/0/valid_seen": o("0111")}}),
        encoding="utf-8",
    )
    both = final_eval.reference_outcomes([path, second], "w" * 16, args, ours)
    assert ("final_eval:grpo", 0, "valid_seen") in both and ("final_eval-expected:seed", 0, "valid_seen") in both
    paired = final_eval.summary(ours, ["seed"], ["valid_seen"], both)["seed"]["valid_seen"]
    assert paired["against_grpo"] == seed["against_grpo"]
    assert paired["against_reference"]["final_eval-expected:seed"]["d"] == pytest.approx(1 / 4)  # 1111 − 0111
    # outside the repository a reference is named by its last three parts (reports are committed)
    tail = lambda p: "…/" + "/".join(p.resolve().parts[-3:])  # noqa: E731
    assert final_eval.reference_names([path, second]) == [tail(path), tail(second)]


def test_an_experiment_file_rewritten_by_another_job_is_never_read_half_written(learning, tmp_path):
    # Two jobs of one seed write the same base-evaluation file while a third compares a finished run's settings to it.
    import threading

    args = _parsed(learning, tmp_path)
    model = tmp_path / "model"
    stop, torn = threading.Event(), []

    def write():
        while not stop.is_set():
            experiments.write_experiment(tmp_path, "base-eval-s0", "grpo", 0, model, args)

    path = experiments.write_experiment(tmp_path, "base-eval-s0", "grpo", 0, model, args)
    writers = [threading.Thread(target=write) for _ in range(2)]
    for thread in writers:
        thread.start()
    try:
        for _ in range(2000):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("eval", {}).get("splits") is None:
                torn.append(data)
    finally:
        stop.set()
        for thread in writers:
            thread.join()
    assert torn == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base-eval-s0.seed.yaml"]  # no temporary file left behind


def test_final_eval_keeps_only_matching_evaluations_it_does_not_make_again():
    final_eval = bench_module("final_eval")
    o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731
    previous = {
        "weights": "w" * 16,
        "tasks_per_split": 500,
        "temperature": None,
        "outcomes": {"start/0/valid_seen": o("0011"), "grpo/0/valid_seen": o("0111"), "grpo/4/valid_seen": o("0000")},
    }
    have = {("grpo", 4, "valid_seen"), ("start", 4, "valid_seen")}
    settings = lambda tasks=500, temperature=None, greedy=False: SimpleNamespace(  # noqa: E731
        tasks=tasks, temperature=temperature, greedy=greedy
    )
    kept = final_eval.kept_outcomes(previous, "w" * 16, settings(), have)
    assert kept == {("start", 0, "valid_seen"): o("0011"), ("grpo", 0, "valid_seen"): o("0111")}
    # another task count, start weights, temperature or decoding pairs with nothing here
    assert final_eval.kept_outcomes(previous, "w" * 16, settings(tasks=120), have) == {}
    assert final_eval.kept_outcomes(previous, "x" * 16, settings(), have) == {}
    assert final_eval.kept_outcomes(previous, "w" * 16, settings(temperature=1.0), have) == {}
    assert final_eval.kept_outcomes(previous, "w" * 16, settings(greedy=True), have) == {}
    assert final_eval.kept_outcomes(None, "w" * 16, settings(), have) == {}
    assert final_eval.outcome_key("grpo", 4, "valid_seen") == "grpo/4/valid_seen"


def test_control_variants_are_trainer_settings(learning, tmp_path):
    from seed_trainer.experiment.loading import load_experiment

    args = _parsed(
        learning,
        tmp_path,
        "--algorithms",
        *algorithms.CONTROL_ALGORITHMS,
        "--opd-estimator",
        "expected",
        "--opd-lambda",
        "0.1",
    )
    assert not set(algorithms.CONTROL_ALGORITHMS) & set(_parsed(learning, tmp_path).algorithms)  # not by default
    want = {
        "seed_other_task": ("seed", "other_task", 0.001),
        "seed_unrelated": ("seed", "unrelated", 0.001),
        "empty": ("grpo_opsd", "none", 0.001),
        "grpo_ent0": ("grpo", "none", 0.0),
        "grpo_entneg": ("grpo", "none", -0.001),
    }
    for name, (algorithm, control, entropy) in want.items():
        config = load_experiment(
            experiments.write_experiment(tmp_path, f"{name}-s0", name, 0, tmp_path / "model", args)
        )
        assert (config.algorithm, config.opd.skill_control, config.rl.entropy_coef) == (algorithm, control, entropy)
        assert config.opd.estimator == "expected" and config.opd.lambda_ == 0.1


def test_oracle_variants_are_trainer_algorithms_with_the_oracle_in_the_teacher_slot(learning, tmp_path):
    from seed_trainer.experiment.loading import load_experiment

    args = _parsed(learning, tmp_path, "--algorithms", "opsd_oracle", "seed_oracle", "--opd-lambda", "1")
    assert "opsd_oracle" not in _parsed(learning, tmp_path).algorithms  # a diagnostic, not in the default benchmark
    for name, trainer_algorithm in (("opsd_oracle", "opsd"), ("seed_oracle", "seed")):
        config = load_experiment(
            experiments.write_experiment(tmp_path, f"{name}-s0", name, 0, tmp_path / "model", args)
        )
        assert config.algorithm == trainer_algorithm
        assert config.opd.skill_source == "oracle" and config.opd.lambda_ == 1.0


def test_final_eval_an_unreadable_earlier_report_keeps_nothing_and_says_so(tmp_path, capsys):
    final_eval = bench_module("final_eval")
    report = tmp_path / "final_eval.json"
    assert final_eval.earlier_report(report) is None  # none yet
    report.write_text('{"weights": "w', encoding="utf-8")  # cut off mid-write
    assert final_eval.earlier_report(report) is None
    assert f"{report}: not read" in capsys.readouterr().out
    report.write_text('{"weights": "w"}', encoding="utf-8")
    assert final_eval.earlier_report(report) == {"weights": "w"}


def test_an_opd_estimator_other_than_the_papers_reaches_the_trainer_and_the_default_leaves_settings_as_they_were(
    learning, tmp_path
):
    from seed_trainer.experiment.loading import load_experiment

    assert "estimator" not in reports.report_settings(_parsed(learning, tmp_path))["opd"]
    args = _parsed(learning, tmp_path, "--algorithms", "seed_oracle", "--opd-estimator", "expected")
    assert reports.report_settings(args)["opd"]["estimator"] == "expected"
    config = load_experiment(
        experiments.write_experiment(tmp_path, "seed_oracle-s0", "seed_oracle", 0, tmp_path / "m", args)
    )
    assert config.opd.estimator == "expected" and config.opd.skill_source == "oracle"


def test_a_gpu_run_names_its_device_dtype_and_engine_and_the_cpu_defaults_stay_as_before(learning, tmp_path):
    from seed_trainer.experiment.loading import load_experiment

    default = _parsed(learning, tmp_path)
    config = load_experiment(experiments.write_experiment(tmp_path, "grpo-s0", "grpo", 0, tmp_path / "model", default))
    assert (config.model.device, config.rollout.engine) == ("cpu", "hf")
    assert "model_settings" not in reports.report_settings(default)  # earlier CPU reports still compare equal
    assert "engine" not in experiments.shared_settings(default)["rollout"]
    gpu = _parsed(learning, tmp_path, "--device", "cuda", "--dtype", "bfloat16", "--engine", "vllm")
    config = load_experiment(experiments.write_experiment(tmp_path, "seed-s0", "seed", 0, tmp_path / "model", gpu))
    assert (config.model.device, config.model.dtype, config.rollout.engine) == ("cuda", "bfloat16", "vllm")
    assert reports.report_settings(gpu)["model_settings"] == {"device": "cuda", "dtype": "bfloat16"}
    assert reports.report_settings(gpu)["rollout"]["engine"] == "vllm"


def test_controls_verdict_contrasts_holm_and_the_three_verdicts():
    verdict = bench_module("controls_verdict")
    o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731
    # seed 0: valid_seen 1100 − 0100, valid_unseen 1010 − 1000: +2 over 8 tasks = +25 points
    a = {0: {"valid_seen": o("1100"), "valid_unseen": o("1010")}}
    b = {
        0: {"valid_seen": o("0100"), "valid_unseen": o("1000")},
        1: {"valid_seen": o("1111"), "valid_unseen": o("1111")},
    }
    assert verdict.seed_differences(a, b) == {0: 25.0}
    with pytest.raises(SystemExit, match="do not pair"):
        verdict.seed_differences(
            a, {0: {"valid_seen": {"tasks": "u" * 16, "success": "0100"}, "valid_unseen": o("1000")}}
        )
    # three seeds +1, +2, +3: mean 2, sd 1, half-width t(.975, 2)·1/√3 = 4.303/1.732 = 2.484; t = 3.464, p = .0742
    entry = verdict.t_contrast({0: 1.0, 1: 2.0, 2: 3.0})
    assert entry["d"] == 2.0 and entry["hi"] - 2.0 == pytest.approx(4.303 / 3**0.5, abs=1e-3)
    assert entry["p"] == pytest.approx(0.0742, abs=1e-3)
    assert verdict.t_contrast({0: 1.0})["p"] is None
    # Holm over four present p-values: .01·4, max(.04, .03·3), max(.09, .04·2), max(.09, .20)
    assert verdict.holm([0.01, 0.04, 0.03, None, 0.20]) == [
        pytest.approx(0.04),
        pytest.approx(0.09),
        pytest.approx(0.09),
        None,
        pytest.approx(0.20),
    ]
    same = {"d": 0.1, "lo": -1.5, "hi": 1.7, "p": 0.9, "p_holm": 1.0}
    positive = {"d": 5.0, "lo": 2.0, "hi": 8.0, "p": 0.001, "p_holm": 0.004}
    wide = {"d": 2.0, "lo": -1.0, "hi": 5.0, "p": 0.2, "p_holm": 0.6}
    assert [verdict.classify(e) for e in (same, positive, wide)] == ["the same", "resolved positive", "unresolved"]
    assert verdict.classify({**positive, "d": -5.0, "lo": -8.0, "hi": -2.0}) == "resolved negative"

    def table(other, empty, seeds=5):
        labels = [label for label, *_ in verdict.FAMILY]
        rows = {label: {"seeds": list(range(seeds)), "class": "unresolved"} for label in labels}
        rows["own − other_task"]["class"], rows["own − empty"]["class"] = other, empty
        return rows

    assert verdict.verdict(table("resolved positive", "resolved positive")) == "attributable to this trajectory's skill"
    assert verdict.verdict(table("the same", "resolved positive")).startswith(
        "not attributable"
    ) and "another task" in (verdict.verdict(table("the same", "resolved positive")))
    assert "changes nothing" in verdict.verdict(table("resolved positive", "resolved negative"))
    assert verdict.verdict(table("unresolved", "resolved positive")) == "inconclusive"
    assert verdict.verdict(table("resolved positive", "resolved positive", seeds=3)).startswith("not yet")


def test_checkpoint_summary_says_when_an_algorithm_first_reaches_grpo_final():
    final_eval = bench_module("final_eval")
    o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731
    outcomes = {
        ("grpo", 0, "valid_seen"): o("0111"),  # GRPO's final: 3 of 4
        ("seed@20", 0, "valid_seen"): o("0011"),
        ("seed@40", 0, "valid_seen"): o("1011"),  # 3 of 4: reaches it
        ("seed", 0, "valid_seen"): o("1111"),
        ("grpo@20", 0, "valid_seen"): o("0001"),
    }
    table = final_eval.checkpoint_summary(outcomes, ["seed", "grpo"], ["valid_seen"])
    assert table["seed"]["reaches_grpo_final"] == "40" and table["seed"]["success"]["20"]["p"] == 0.5
    assert table["grpo"]["reaches_grpo_final"] == "final" and list(table["grpo"]["success"]) == ["20", "final"]
    # a seed whose checkpoints were not evaluated stays out of every row, the finals' and GRPO's included
    outcomes[("seed", 1, "valid_seen")], outcomes[("grpo", 1, "valid_seen")] = o("0000"), o("0000")
    table = final_eval.checkpoint_summary(outcomes, ["seed"], ["valid_seen"])
    assert table["seed"]["seeds"] == [0] and table["seed"]["success"]["final"]["p"] == 1.0
    assert table["seed"]["grpo_final"]["p"] == 0.75
    # no GRPO final for these seeds: nothing to reach
    del outcomes[("grpo", 0, "valid_seen")]
    assert final_eval.checkpoint_summary(outcomes, ["seed"], ["valid_seen"])["seed"]["reaches_grpo_final"] is None


def test_difference_of_differences_pairs_greedy_with_sampled_task_by_task():
    verdict = bench_module("controls_verdict")

    def report(seed_seen, grpo_seen):
        o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731
        return {
            "outcomes": {
                "seed/0/valid_seen": o(seed_seen),
                "seed/0/valid_unseen": o("0000"),
                "grpo/0/valid_seen": o(grpo_seen),
                "grpo/0/valid_unseen": o("0000"),
            }
        }

    # sampled: seed − grpo = +2 of 8 = +25 points; greedy: +1 of 8 = +12.5 points; the gain shrinks by 12.5
    entry = verdict.difference_of_differences(report("1100", "1000"), report("1100", "0000"))
    assert entry["by_seed"] == [pytest.approx(-12.5)] and entry["seeds"] == [0]


def test_keep_checkpoints_keeps_one_per_evaluation_and_nothing_else_changes(learning, tmp_path):
    default, kept = _parsed(learning, tmp_path), _parsed(learning, tmp_path, "--keep-checkpoints", "5")
    assert experiments.shared_settings(default)["checkpoint"] == {"every": 4, "keep_last": 1}
    assert experiments.shared_settings(kept)["checkpoint"] == {"every": 4, "keep_last": 5}
    rest = lambda args: {k: v for k, v in experiments.shared_settings(args).items() if k != "checkpoint"}  # noqa: E731
    assert rest(default) == rest(kept)


def test_a_report_names_a_run_outside_the_repository_by_its_last_three_parts_only(tmp_path):
    # reports are committed: a folder of the machine that made them must not be in them
    run = tmp_path / "bench-runs" / "seed-0" / "grpo"
    assert reports.shown_path(run) == "…/bench-runs/seed-0/grpo"
    assert reports.shown_path(reports.REPO / "bench" / "results") == "bench/results"


def test_second_reading_pools_seeds_0_9_and_holms_with_the_first_readings_p(tmp_path):
    second = bench_module("second_reading")
    o = lambda s: {"tasks": "t" * 16, "success": s}  # noqa: E731

    def outcome_rows(name, seeds_seen):
        # valid_unseen all lost, so a seed's difference is (wins on valid_seen) / 8 tasks
        rows = {}
        for seed, seen in seeds_seen.items():
            rows[f"{name}/{seed}/valid_seen"] = o(seen)
            rows[f"{name}/{seed}/valid_unseen"] = o("0000")
        return rows

    meta = {"weights": "w", "tasks_per_split": 4, "temperature": 0.4}
    own = {**meta, "outcomes": outcome_rows("seed", {0: "1100", 1: "1000"})}
    first = {
        label: {"p": p, "class": "unresolved"} for (label, *_), p in zip(second.FAMILY, (0.8, 0.5, 0.04, 0.04, 0.01))
    }
    controls = {
        **meta,
        "outcomes": outcome_rows("seed_other_task", {0: "1000", 1: "1000"})
        | outcome_rows("empty", {0: "0000", 1: "0000"}),
        "contrasts": first,
    }
    new = {**meta, "outcomes": outcome_rows("seed", {5: "1110"}) | outcome_rows("seed_other_task", {5: "1000"})}
    # own − other_task per seed: 0: +1/8 = 12.5, 1: 0, 5: +2/8 = 25 → mean 12.5, sd 12.5, t = 1.732 (2 df), p = .2254
    table = second.ten_seed_contrasts(own, controls, new)
    ten = table["own − other_task (seeds 0–9)"]
    assert ten["seeds"] == [0, 1, 5] and ten["d"] == pytest.approx(12.5)
    assert ten["p"] == pytest.approx(0.2254, abs=1e-3)
    # Holm over (.2254, .5, .04, .04, .01): sorted .01·5 = .05, .04·4 = .16, .04·3 → .16, .2254·2 = .4508, .5
    assert ten["p_holm"] == pytest.approx(2 * ten["p"])
    assert table["own − other_task (new seeds only)"]["seeds"] == [5]
    assert second.second_verdict(ten, "unresolved") == "inconclusive"
    assert second.second_verdict({**ten, "class": "the same"}, "unresolved").startswith("not attributable")
    assert second.second_verdict({**ten, "class": "resolved positive"}, "resolved positive") == (
        "attributable to this trajectory's skill"
    )
    unrelated = {**meta, "outcomes": outcome_rows("seed_unrelated", {0: "1000", 1: "0000"})}
    pair = second.unrelated_contrasts(own, controls, unrelated)
    # own − unrelated: 0: +12.5, 1: +12.5 (no spread: no p); unrelated − empty: 0: +12.5, 1: 0
    assert pair["own − unrelated"]["by_seed"] == [12.5, 12.5] and pair["own − unrelated"]["p"] is None
    assert pair["unrelated − empty"]["by_seed"] == [12.5, 0.0]
    # the command writes both reports' contrasts and the verdict
    paths = {}
    for name, report in (("own", own), ("controls", controls), ("unrelated", unrelated), ("new", new)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(report), encoding="utf-8")
    second.main(
        [
            "--own", str(paths["own"]), "--controls", str(paths["controls"]), "--unrelated", str(paths["unrelated"]),
            "--seeds5-9", str(paths["new"]), "--learning-unrelated", str(tmp_path / "none.json"),
            "--learning-seeds5-9", str(tmp_path / "none.json"),
        ]
    )  # fmt: skip
    written = json.loads(paths["new"].read_text(encoding="utf-8"))
    assert written["verdict"] == "inconclusive" and "own − other_task (seeds 0–9)" in written["contrasts"]
    assert "own − unrelated" in json.loads(paths["unrelated"].read_text(encoding="utf-8"))["contrasts"]
