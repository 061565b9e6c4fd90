"""bench/learning/decoding_check.py: SEED − GRPO at 0.4 and greedy and their difference, per seed over both splits'
paired tasks, against hand-computed numbers; a re-evaluated final reproduces the stored one task for task or says not."""

from __future__ import annotations

import json

import decoding_check
import pytest


def _report(outcomes: dict[str, str], **fields) -> dict:
    """A final_eval report: `algorithm/seed/split` → the success string of two tasks."""
    return {
        "weights": "w",
        "tasks_per_split": 2,
        **fields,
        "outcomes": {key: {"tasks": "t", "success": s} for key, s in outcomes.items()},
    }


SAMPLED_GRPO = {
    "grpo/0/valid_seen": "10",
    "grpo/0/valid_unseen": "00",
    "grpo/1/valid_seen": "11",
    "grpo/1/valid_unseen": "01",
}
SAMPLED_SEED = {
    "seed/0/valid_seen": "11",
    "seed/0/valid_unseen": "10",
    "seed/1/valid_seen": "11",
    "seed/1/valid_unseen": "11",
}
GREEDY = {
    "grpo/0/valid_seen": "11", "grpo/0/valid_unseen": "00", "grpo/1/valid_seen": "11", "grpo/1/valid_unseen": "11",
    "seed/0/valid_seen": "11", "seed/0/valid_unseen": "10", "seed/1/valid_seen": "11", "seed/1/valid_unseen": "11",
}  # fmt: skip


def test_the_gain_at_each_decoding_and_its_change(tmp_path):
    paths = {}
    for name, report in {
        "grpo": _report(SAMPLED_GRPO | {"seed/0/valid_seen": "00"}),  # another algorithm's rows are not read from it
        "own": _report(SAMPLED_SEED),
        "greedy": _report(GREEDY, greedy=True),
        "reproduced": _report({"grpo/0/valid_seen": "10", "seed/0/valid_unseen": "11"}),
    }.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(report), encoding="utf-8")
    out = tmp_path / "out.json"
    argv = ["--greedy", str(paths["greedy"]), "--grpo", str(paths["grpo"]), "--own", str(paths["own"])]
    decoding_check.main([*argv, "--reproduced", str(paths["reproduced"]), "--out", str(out)])
    result = json.loads(out.read_text(encoding="utf-8"))
    # seed 0: SEED 3/4 vs GRPO 1/4 sampled (+50), 3/4 vs 2/4 greedy (+25); seed 1: 4/4 vs 3/4 (+25), 4/4 vs 4/4 (0)
    assert result["seed_minus_grpo"]["sampled 0.4"]["by_seed"] == pytest.approx([50.0, 25.0])
    assert result["seed_minus_grpo"]["greedy"]["by_seed"] == pytest.approx([25.0, 0.0])
    assert result["greedy_minus_sampled"]["by_seed"] == pytest.approx([-25.0, -25.0])
    assert result["greedy_minus_sampled"]["d"] == pytest.approx(-25.0)
    # per task: seed 0 valid_seen task 2 and seed 1 valid_unseen task 1 lose their SEED − GRPO edge under greedy
    assert result["greedy_minus_sampled_task_level"]["tasks"] == 8
    assert result["greedy_minus_sampled_task_level"]["d"] == pytest.approx(-25.0)
    assert result["success"]["greedy"]["grpo"]["p"] == pytest.approx(6 / 8)
    assert result["reproduced"] == {"grpo/0/valid_seen": True, "seed/0/valid_unseen": False}


def test_a_sampled_report_is_refused_as_the_greedy_one(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_report(GREEDY)), encoding="utf-8")
    with pytest.raises(SystemExit, match="not a greedy report"):
        decoding_check.main(["--greedy", str(path), "--out", str(tmp_path / "o.json")])


def test_the_re_runs_own_sampled_finals_replace_the_stored_ones(tmp_path):
    # --sampled: the re-runs did not reproduce the stored finals, so the comparison stays within the re-runs
    paths = {}
    for name, report in {
        "greedy": _report(GREEDY, greedy=True),
        "sampled": _report(GREEDY),  # the same outcomes at 0.4 as greedy: the gain does not change
        "grpo": _report(SAMPLED_GRPO),
        "own": _report(SAMPLED_SEED),
    }.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(report), encoding="utf-8")
    out = tmp_path / "out.json"
    decoding_check.main([*(f"--{k}={paths[k]}" for k in ("greedy", "sampled", "grpo", "own")), "--out", str(out)])
    result = json.loads(out.read_text(encoding="utf-8"))
    # outside the repository the report names it by its last three parts (reports are committed)
    assert result["sampled_from"] == "…/" + "/".join(paths["sampled"].resolve().parts[-3:])
    assert result["greedy_minus_sampled"]["by_seed"] == pytest.approx([0.0, 0.0])
