"""Writes the run-format fixtures in test/fixtures/runs/ (committed; both test suites read them).

`valid/` is written through RunWriter with schema validation on, so it is what the trainer really writes. Each broken
run is a copy of a few of its files with one problem put in by hand, and expectations.json says, for every fixture,
what a checker must report (kind, file, line, field) — the Python and TypeScript tests read the same file.

    .venv/bin/python trainer/tests/support/make_run_fixtures.py            # rewrite test/fixtures/runs/
    .venv/bin/python trainer/tests/support/make_run_fixtures.py OUT_DIR    # write elsewhere (the up-to-date test does)

Deterministic: fixed clock, pid, host and versions, seeded random numbers.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import torch

from seed_trainer.algo.token_quantiles import token_quantiles
from seed_trainer.runlog import RunEnvironment, RunReader, RunWriter, SchemaSet, TokenArrays
from seed_trainer.runlog.atomic import write_json_atomic
from seed_trainer.runlog.jsonl import Appended
from seed_trainer.runlog.quantiles import QUANTILE_LEVELS
from seed_trainer.runlog.tokens import encode_float32
from seed_trainer.runlog.trajectory_index import index_row

REPO = Path(__file__).resolve().parents[3]
DEFAULT_OUT = REPO / "test" / "fixtures" / "runs"
BETA = 5.0


class FakeClock:
    """Instants 1.5 s apart from 2026-03-01T12:00:00Z."""

    def __init__(self) -> None:
        self.tick = 0

    def __call__(self) -> str:
        millis = 1500 * self.tick
        self.tick += 1
        seconds, ms = divmod(millis, 1000)
        minutes, s = divmod(seconds, 60)
        hours, m = divmod(minutes, 60)
        return f"2026-03-01T{12 + hours:02d}:{m:02d}:{s:02d}.{ms:03d}Z"


ENVIRONMENT = RunEnvironment(
    pid=4242,
    host="fixture-host",
    versions={"trainer": "0.1.0", "python": "3.11.7", "torch": "2.13.0+cpu", "transformers": "4.57.1"},
    device={"kind": "cpu", "name": "cpu", "count": 0},
    git_commit="0123456789abcdef0123456789abcdef01234567",
    git_dirty=False,
)

CONFIG = {
    "name": "household-seed",
    "seed": 0,
    "runs_dir": "runs",
    "algorithm": "seed",
    "updates": 2,
    "model": {"path": "tiny-policy", "dtype": "float32", "device": "cpu"},
    "rollout": {"tasks_per_update": 2, "group_size": 2, "max_steps": 4, "history": 2, "max_response_tokens": 64},
    "opd": {"lambda": 0.01, "beta": BETA},
}

# A tiny pretend tokenizer: tag brackets on their own, words with their leading space; "é" is two byte-level tokens
# (the first decodes to nothing on its own), as a byte-level BPE splits it.
_PIECE_IDS: dict[str, int] = {}
_PIECES = re.compile(r"</|<|>|\s?[^\s<>]+|\s+")


def tokenize(text: str) -> tuple[list[int], list[str]]:
    ids, pieces = [], []
    for match in _PIECES.finditer(text):
        piece = match.group(0)
        parts = [piece]
        if "é" in piece:
            before, _, after = piece.partition("é")
            parts = [before, "\x00", "é" + after]
        for part in parts:
            if not part:
                continue
            if part == "\x00":
                ids.append(50100)
                pieces.append("")
                continue
            if part not in _PIECE_IDS:
                _PIECE_IDS[part] = 1000 + 37 * len(_PIECE_IDS)
            ids.append(_PIECE_IDS[part])
            pieces.append(part)
    return ids, pieces


def token_arrays(rng: random.Random, text: str, teacher: bool, baseline: bool = False) -> TokenArrays:
    """`baseline`: also b(s) = Σ_v π_old(v|s)·g(v) (`opd.estimator: baseline`), as if the vocabulary were the sampled
    token (probability exp(ℓ)) and one other token holding the rest of the mass with a gate drawn at random."""
    ids, pieces = tokenize(text)
    logp, teacher_logp = [], []
    for piece in pieces:
        confident = piece.strip() in ("<", ">", "</", "action", "think", "") or rng.random() < 0.6
        lp = -rng.uniform(0.001, 0.08) if confident else -rng.uniform(0.3, 4.5)
        logp.append(lp)
        teacher_logp.append(min(-1e-4, lp + rng.gauss(0.0, 0.9 if not confident else 0.05)))
    if not teacher:
        return TokenArrays(ids=ids, text=pieces, logp=logp)
    delta = [t - s for t, s in zip(teacher_logp, logp)]
    gate = [1.0 / (1.0 + math.exp(-BETA * d)) for d in delta]
    gate_baseline = None
    if baseline:
        gate_baseline = [math.exp(lp) * g + (1 - math.exp(lp)) * rng.uniform(0.2, 0.8) for lp, g in zip(logp, gate)]
    return TokenArrays(
        ids=ids,
        text=pieces,
        logp=logp,
        teacher_logp=teacher_logp,
        delta=delta,
        gate=gate,
        gate_baseline=gate_baseline,
    )


TASKS = [
    {
        "id": "household/heat-mug-3",
        "type": "heat",
        "description": "heat some mug and put it in the coffeemachine.",
        "split": "train",
    },
    {
        "id": "household/clean-knife-1",
        "type": "clean",
        "description": "clean some knife and put it in the drawer.",
        "split": "train",
    },
]

EPISODES = {
    # (task index, success): list of (observation, response, action or None)
    (0, True): [
        (
            "You are in the middle of a room. Looking around you, you see a countertop 1, a microwave 1 and a coffeemachine 1.",
            "<think>A mug is usually on the countertop.</think><action>go to countertop 1</action>",
            "go to countertop 1",
        ),
        (
            "On the countertop 1, you see a mug 1 and a café menu.",
            "<think>Take the mug, not the café menu.</think><action>take mug 1 from countertop 1</action>",
            "take mug 1 from countertop 1",
        ),
        (
            "You pick up the mug 1 from the countertop 1.",
            "<think>Heat it in the microwave.</think><action>heat mug 1 with microwave 1</action>",
            "heat mug 1 with microwave 1",
        ),
    ],
    (0, False): [
        (
            "You are in the middle of a room. Looking around you, you see a countertop 1, a microwave 1 and a coffeemachine 1.",
            "<think>Maybe the mug is in the microwave.</think><action>open microwave 1</action>",
            "open microwave 1",
        ),
        (
            "You open the microwave 1. The microwave 1 is open. In it, you see nothing.",
            "<think>Nothing here, I will look elsewhere</think> go to countertop",
            None,
        ),
        (
            "Nothing happens.",
            "<think>Try the coffeemachine.</think><action>go to coffeemachine 1</action>",
            "go to coffeemachine 1",
        ),
        ("On the coffeemachine 1, you see nothing.", "<think>Still no mug.</think><action>look</action>", "look"),
    ],
    # An evaluation episode that loops on an action the environment ignores (valid-eval-pair's "why it failed").
    (1, False): [
        (
            "You are in the middle of a room. Looking around you, you see a drawer 1, a sinkbasin 1 and a diningtable 1.",
            "<think>The knife may be in the drawer.</think><action>open drawer 1</action>",
            "open drawer 1",
        ),
        (
            "You open the drawer 1. The drawer 1 is open. In it, you see a spoon 1.",
            "<think>Take the knife from the drawer.</think><action>take knife 1 from drawer 1</action>",
            "take knife 1 from drawer 1",
        ),
        (
            "Nothing happens.",
            "<think>Try again.</think><action>take knife 1 from drawer 1</action>",
            "take knife 1 from drawer 1",
        ),
        (
            "Nothing happens.",
            "<think>Once more.</think><action>take knife 1 from drawer 1</action>",
            "take knife 1 from drawer 1",
        ),
    ],
    (1, True): [
        (
            "You are in the middle of a room. Looking around you, you see a drawer 1, a sinkbasin 1 and a diningtable 1.",
            "<think>Knives are kept on the dining table.</think><action>go to diningtable 1</action>",
            "go to diningtable 1",
        ),
        (
            "On the diningtable 1, you see a knife 1.",
            "<think>Take it and clean it.</think><action>take knife 1 from diningtable 1</action>",
            "take knife 1 from diningtable 1",
        ),
    ],
}

# The environment's reply to an episode's last action, where a fixture needs it (the trajectory's final_observation).
FINAL_OBSERVATIONS = {(1, False): "Nothing happens."}

SKILLS = {
    (0, True): (
        "Found the mug on the countertop and heated it.",
        "For heat tasks, take the object first, then heat it with the microwave before placing it.",
    ),
    (0, False): (
        "Searched appliances instead of surfaces and wrote one action without tags.",
        "Search countertops before appliances, and always wrap the command in <action> tags.",
    ),
    (1, True): (
        "Took the knife from the dining table.",
        "For clean tasks, go to the sinkbasin right after picking the object up.",
    ),
}


def episode(
    rng: random.Random,
    update: int | None,
    phase: str,
    task_index: int,
    success: bool,
    group: int | None,
    sample: int | None,
    advantage: float | None,
    teacher: bool,
    skill_valid: bool | None,
    baseline: bool = False,
    split: str = "test_seen",
) -> dict[str, Any]:
    steps = []
    for t, (observation, response, action) in enumerate(EPISODES[(task_index, success)]):
        step: dict[str, Any] = {
            "t": t,
            "observation": observation,
            "response": response,
            "action": action,
            "valid": action is not None,
        }
        if advantage is not None:
            step["score"] = (10.0 if success else 0.0) - (0.1 if action is None else 0.0)
            step["advantage"] = round(advantage - (0.05 if action is None else 0.0), 4)
        step["tokens"] = token_arrays(rng, response, teacher and skill_valid is True, baseline)
        steps.append(step)
    record: dict[str, Any] = {
        "phase": phase,
        "update": update,
        "task": TASKS[task_index] if phase != "eval" else {**TASKS[task_index], "split": split},
    }
    if group is not None:
        record.update(group=group, sample=sample)
    record.update(success=success, reward=1.0 if success else 0.0, length=len(steps))
    if skill_valid is not None:
        summary, text = SKILLS[(task_index, success)]
        record["skill"] = (
            {"text": text, "summary": summary, "valid": True, "source": "self", "reason": None}
            if skill_valid
            else {
                "text": None,
                "summary": None,
                "valid": False,
                "source": "self",
                "reason": "no JSON object in the reply",
                "raw": "I think the agent should look around more.",
            }
        )
    record["steps"] = steps
    if (task_index, success) in FINAL_OBSERVATIONS:
        record["final_observation"] = FINAL_OBSERVATIONS[(task_index, success)]
    return record


def write_valid(out: Path) -> dict[str, Any]:
    rng = random.Random(7)
    clock = FakeClock()
    writer = RunWriter.create(
        out,
        name="household-seed",
        stage="train",
        algorithm="seed",
        config=CONFIG,
        experiment_path=out.parent / "household.seed.yaml",
        experiment_sha256="5" * 64,
        run_id="valid",
        environment=ENVIRONMENT,
        progress_total=2,
        progress_unit="update",
        clock=clock,
        schemas=SchemaSet(),
        lock=False,  # the lock file names this process: not a fixture
    )
    plans = {
        1: [(0, True, 0, 0, 0.9, True), (0, False, 0, 1, -0.9, True), (1, True, 1, 0, 0.0, False)],
        2: [(1, True, 0, 0, 0.7, True), (0, True, 1, 0, 0.5, True)],
    }
    for update, plan in plans.items():
        writer.event("progress", f"update {update}: rollout", step=update, phase="rollout", done=0, total=len(plan))
        successes = 0
        distilled: dict[str, list[float]] = {"gate": [], "delta": []}
        for task_index, success, group, sample, advantage, skill_valid in plan:
            record = episode(rng, update, "train", task_index, success, group, sample, advantage, True, skill_valid)
            writer.trajectory(record)
            successes += success
            for step in record["steps"]:
                if step["tokens"].gate is not None:
                    distilled["gate"] += step["tokens"].gate
                    distilled["delta"] += step["tokens"].delta
        # the quantiles of the distilled tokens' g and Δ, from float32 values as the trainer holds (and writes) them
        quantiles = {
            key: value
            for family, values in distilled.items()
            for key, value in token_quantiles(
                torch.tensor(values, dtype=torch.float32), family, QUANTILE_LEVELS
            ).items()
        }
        rate = successes / len(plan)
        writer.metrics(
            update,
            "update",
            {
                "success/overall": rate,
                "success/heat": 0.5 if update == 1 else 1.0,
                "success/clean": 1.0,
                "episode/length": 3.0,
                "episode/valid_action_ratio": 0.889 if update == 1 else 1.0,
                "loss/pg": -0.0123 * update,
                "loss/kl": 0.0004 * update,
                "loss/entropy": 0.82,
                "loss/opd": 0.024,
                "ppo/clip_frac": 0.012,
                "gate/mean": 0.41,
                "gate/frac_gt_half": 0.33,
                "delta/mean": -0.07,
                "opd/active_ratio": 0.61 if update == 1 else 1.0,
                "skill/parse_rate": 0.667 if update == 1 else 1.0,
                "optim/grad_norm": 0.42,
                "optim/lr": 1e-6,
                "time/rollout": 12.5,
                "time/analysis": 4.25,
                "time/teacher": 1.5,
                "time/update": 3.75,
                **quantiles,
            },
        )
        writer.set_progress(update)
        writer.event("iteration", f"update {update} of 2: success {rate:.2f}", step=update, total=2, success=rate)
    writer.begin_stop("control")
    with writer.checkpoint(2) as directory:
        (directory / "trainer_state.json").write_text('{"update": 2}\n', encoding="utf-8")
    eval_record = episode(rng, None, "eval", 0, True, None, None, None, False, None)
    row = writer.trajectory(eval_record)
    # No clean task in this split: its success rate is undefined (null).
    writer.metrics(2, "eval", {"success/overall": 1.0, "success/heat": 1.0, "success/clean": None}, split="test_seen")
    writer.write_eval(
        {
            "split": "test_seen",
            "step": 2,
            "checkpoint": "checkpoints/step-000002",
            "overall": {"success": 1.0, "n": 1, "mean_length": 3.0},
            "by_task_type": {"heat": {"success": 1.0, "n": 1, "mean_length": 3.0}},
            "episodes": [
                {
                    "task": {"id": TASKS[0]["id"], "type": "heat"},
                    "success": True,
                    "reward": 1.0,
                    "length": 3,
                    "trajectory": row["id"],
                }
            ],
        }
    )
    writer.event(
        "eval",
        "test_seen: success 1.00 (1 episode)",
        step=2,
        split="test_seen",
        path="eval/test_seen.json",
        success=1.0,
    )
    writer.event("warning", "2 tasks of type heat were sampled twice", code="task_resampled")
    reviews = [
        {"state": "pending"},
        {"state": "accepted", "time": clock()},
        {"state": "rejected", "time": clock(), "note": "no rule in the reply"},
        {
            "state": "edited",
            "text": "Heat tasks: take the object, heat it in the microwave, then place it.",
            "time": clock(),
        },
    ]
    sources = [
        ("self", 0, True, True),
        ("external", 1, True, True),
        ("self", 0, False, False),
        ("oracle", 0, True, True),
    ]
    for number, ((source, task_index, success, valid), review) in enumerate(zip(sources, reviews), start=1):
        summary, text = SKILLS[(task_index, success)]
        writer.skill(
            {
                "id": f"collect-000001-{number:04d}",
                "trajectory": {"id": f"collect-000001-{number:04d}", "file": "collect-000001.jsonl"}
                if number != 4
                else None,
                "task": TASKS[task_index],
                "success": success,
                "reward": 1.0 if success else 0.0,
                "length": len(EPISODES[(task_index, success)]),
                "source": source,
                "model": {"self": "tiny-policy", "external": "analyzer-model", "oracle": None}[source],
                "summary": summary if valid else None,
                "skill": text if valid else None,
                "valid": valid,
                "reason": None if valid else "episode_skill empty",
                **({} if valid else {"raw": '{"episode_summary": "", "episode_skill": "  "}'}),
                "review": review,
            }
        )
    write_json_atomic(writer.paths.control, {"request": "stop", "time": clock(), "source": "vscode"})
    # The user's tags, as the extension's runs table writes them (the trainer never does).
    write_json_atomic(writer.paths.tags, {"tags": ["baseline", "β = 5 sweep"], "time": clock(), "source": "vscode"})
    writer.finish("stopped", "stopped after update 2 (control file)")
    return json.loads((out / "valid" / "run.json").read_text(encoding="utf-8"))


def _copy(src: Path, dst: Path, *names: str) -> None:
    for name in names:
        target = dst / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / name, target)


def _manifest(valid: dict[str, Any], run_id: str, **changes: Any) -> dict[str, Any]:
    return {**valid, "id": run_id, **changes}


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def write_broken(out: Path, valid: dict[str, Any]) -> dict[str, Any]:
    """Each broken run, and what a checker must report for it."""
    src = out / "valid"
    expected: dict[str, Any] = {}

    def new(name: str, **changes: Any) -> Path:
        run = out / name
        run.mkdir()
        write_json_atomic(run / "run.json", _manifest(valid, name, **changes))
        return run

    # A writer was mid-append: the last line has no newline. Tolerated, reported as a warning.
    run = new("torn-last-line", status="running", ended=None)
    metrics = _lines(src / "metrics.jsonl")
    (run / "metrics.jsonl").write_bytes(metrics[0] + metrics[1] + metrics[2][: len(metrics[2]) // 2])
    expected["torn-last-line"] = {
        "errors": [],
        "warnings": [{"kind": "torn_line", "file": "metrics.jsonl", "line": 3}],
        "counts": {"metrics": 2},
    }

    # A newer trainer: readers refuse the directory with a message naming the version.
    new("unknown-format-version", format_version=2)
    expected["unknown-format-version"] = {
        "errors": [
            {
                "kind": "unsupported_version",
                "file": "run.json",
                "line": None,
                "field": "format_version",
                "message_includes": "format_version 2",
            }
        ],
        "warnings": [],
    }

    # A skill record whose review lacks its state.
    run = new("missing-required-field")
    skills = _lines(src / "skills.jsonl")
    second = json.loads(skills[1])
    second["review"] = {"time": second["review"]["time"]}
    (run / "skills.jsonl").write_bytes(
        skills[0] + (json.dumps(second, ensure_ascii=False, separators=(",", ":")) + "\n").encode() + skills[2]
    )
    expected["missing-required-field"] = {
        "errors": [{"kind": "schema", "file": "skills.jsonl", "line": 2, "field": "review.state"}],
        "warnings": [],
    }

    # Wrong JSON types: a metric given as a string; a step's `valid` given as a string.
    run = new("wrong-type")
    metrics = _lines(src / "metrics.jsonl")
    row = json.loads(metrics[1])
    row["loss/pg"] = str(row["loss/pg"])
    (run / "metrics.jsonl").write_bytes(
        metrics[0] + (json.dumps(row, separators=(",", ":")) + "\n").encode() + metrics[2]
    )
    trajectories = _lines(src / "trajectories" / "it-000001.jsonl")
    bad = json.loads(trajectories[1])
    bad["steps"][1]["valid"] = "yes"
    (run / "trajectories").mkdir()
    (run / "trajectories" / "it-000001.jsonl").write_bytes(
        trajectories[0] + (json.dumps(bad, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    )
    expected["wrong-type"] = {
        "errors": [
            {"kind": "schema", "file": "metrics.jsonl", "line": 2, "field": "loss/pg"},
            {"kind": "schema", "file": "trajectories/it-000001.jsonl", "line": 2, "field": "steps[1].valid"},
        ],
        "warnings": [],
    }

    # A gate array one float short of its count (the index still points at whole lines: same byte length).
    run = new("token-array-length")
    trajectories = _lines(src / "trajectories" / "it-000001.jsonl")
    first = json.loads(trajectories[0])
    tokens = first["steps"][0]["tokens"]
    short = TokenArrays.decode(tokens).gate[:-1]
    tokens["gate"] = encode_float32(short)
    (run / "trajectories").mkdir()
    (run / "trajectories" / "it-000001.jsonl").write_bytes(
        (json.dumps(first, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    )
    expected["token-array-length"] = {
        "errors": [
            {"kind": "token_array", "file": "trajectories/it-000001.jsonl", "line": 1, "field": "steps[0].tokens.gate"}
        ],
        "warnings": [],
    }

    # Teacher arrays must come together: a step with teacher_logp and gate but no delta.
    run = new("teacher-arrays-incomplete")
    trajectories = _lines(src / "trajectories" / "it-000002.jsonl")
    first = json.loads(trajectories[0])
    del first["steps"][1]["tokens"]["delta"]
    (run / "trajectories").mkdir()
    (run / "trajectories" / "it-000002.jsonl").write_bytes(
        (json.dumps(first, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    )
    expected["teacher-arrays-incomplete"] = {
        "errors": [
            {"kind": "schema", "file": "trajectories/it-000002.jsonl", "line": 1, "field": "steps[1].tokens.delta"}
        ],
        "warnings": [],
    }

    # A complete line in the middle of events.jsonl that is not JSON.
    run = new("malformed-line")
    events = _lines(src / "events.jsonl")
    (run / "events.jsonl").write_bytes(events[0] + events[1].rstrip(b"\n")[:-1] + b"\n" + events[2])
    expected["malformed-line"] = {
        "errors": [{"kind": "invalid_json", "file": "events.jsonl", "line": 2, "field": None}],
        "warnings": [],
    }

    # An index row whose byte range is off by one.
    run = new("bad-index")
    _copy(src, run, "trajectories/it-000001.jsonl")
    index = [line for line in _lines(src / "trajectories" / "index.jsonl") if b'"it-000001.jsonl"' in line]
    second = json.loads(index[1])
    second["offset"] += 1
    (run / "trajectories" / "index.jsonl").write_bytes(
        index[0] + (json.dumps(second, separators=(",", ":")) + "\n").encode() + b"".join(index[2:])
    )
    expected["bad-index"] = {
        "errors": [{"kind": "index", "file": "trajectories/index.jsonl", "line": 2, "field": "offset"}],
        "warnings": [],
    }

    # What two trainers writing one run at once leave: update 2's metrics row twice.
    run = new("duplicate-update")
    metrics = _lines(src / "metrics.jsonl")
    (run / "metrics.jsonl").write_bytes(metrics[0] + metrics[1] + metrics[1] + metrics[2])
    expected["duplicate-update"] = {
        "errors": [
            {
                "kind": "sequence",
                "file": "metrics.jsonl",
                "line": 3,
                "field": "step",
                "message_includes": "update step 2 repeats",
            }
        ],
        "warnings": [],
    }

    # A lost metrics row: update 1, then update 3.
    run = new("update-gap")
    row = json.loads(metrics[1])
    row["step"] = 3
    (run / "metrics.jsonl").write_bytes(metrics[0] + (json.dumps(row, separators=(",", ":")) + "\n").encode())
    expected["update-gap"] = {
        "errors": [
            {
                "kind": "sequence",
                "file": "metrics.jsonl",
                "line": 2,
                "field": "step",
                "message_includes": "update step 3 skips (expected 2)",
            }
        ],
        "warnings": [],
    }

    # The same trajectory listed twice in the index (its byte range is whole and right both times).
    run = new("duplicate-trajectory")
    _copy(src, run, "metrics.jsonl", "trajectories/it-000001.jsonl")
    index = _lines(src / "trajectories" / "index.jsonl")
    (run / "trajectories" / "index.jsonl").write_bytes(index[0] + index[1] + index[0])
    expected["duplicate-trajectory"] = {
        "errors": [{"kind": "sequence", "file": "trajectories/index.jsonl", "line": 3, "field": "id"}],
        "warnings": [],
    }

    # Trajectories of update 2 while metrics.jsonl ends at update 1 (resume would train update 2 again).
    run = new("trajectories-without-metrics")
    _copy(src, run, "trajectories/it-000001.jsonl", "trajectories/it-000002.jsonl")
    (run / "metrics.jsonl").write_bytes(metrics[0])
    updates = [json.loads(line)["update"] for line in index]
    (run / "trajectories" / "index.jsonl").write_bytes(
        b"".join(line for line, u in zip(index, updates) if u is not None)
    )
    expected["trajectories-without-metrics"] = {
        "errors": [
            {
                "kind": "consistency",
                "file": "trajectories/index.jsonl",
                "line": updates.index(2) + 1,
                "field": "update",
                "message_includes": "update 2, which metrics.jsonl has no row of",
            }
        ],
        "warnings": [],
    }

    # The index emptied while the trajectory files remain (a stopped run): every reader going through it sees none.
    run = new("emptied-index")
    _copy(src, run, "metrics.jsonl", "trajectories/it-000001.jsonl", "trajectories/it-000002.jsonl")
    (run / "trajectories" / "index.jsonl").write_bytes(b"")
    held = len(_lines(src / "trajectories" / "it-000001.jsonl")) + len(_lines(src / "trajectories" / "it-000002.jsonl"))
    expected["emptied-index"] = {
        "errors": [
            {
                "kind": "index",
                "file": "trajectories/index.jsonl",
                "line": None,
                "field": None,
                "message_includes": f"lists 0 trajectories; the trajectory files hold {held}",
            }
        ],
        "warnings": [],
        "counts": {"trajectory_index": 0, "trajectories": held},
    }

    # The index jumps from update 1 to update 3: update 2's trajectories are gone (the metrics have rows 1 to 3).
    run = new("trajectory-update-gap")
    _copy(src, run, "trajectories/it-000001.jsonl")
    third = json.loads(metrics[1])
    third["step"] = 3
    (run / "metrics.jsonl").write_bytes(
        metrics[0] + metrics[1] + (json.dumps(third, separators=(",", ":")) + "\n").encode()
    )
    rows = [json.loads(line) for line in index if json.loads(line)["update"] == 1]
    lines, offset = [], 0
    for number, line in enumerate(_lines(src / "trajectories" / "it-000002.jsonl"), start=1):
        record = {**json.loads(line), "id": f"it-000003-{number:04d}", "update": 3}
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        rows.append(index_row(record, "it-000003.jsonl", Appended(line=number, offset=offset, size=len(data))))
        lines.append(data)
        offset += len(data)
    (run / "trajectories" / "it-000003.jsonl").write_bytes(b"".join(lines))
    (run / "trajectories" / "index.jsonl").write_bytes(
        b"".join((json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode() for row in rows)
    )
    gap_line = sum(1 for row in rows if row["update"] == 1) + 1
    expected["trajectory-update-gap"] = {
        "errors": [
            {
                "kind": "sequence",
                "file": "trajectories/index.jsonl",
                "line": gap_line,
                "field": "update",
                "message_includes": "update 3 after update 1 (update 2 has no trajectories)",
            }
        ],
        "warnings": [],
    }

    # A checkpoint whose manifest lists an optimizer state that is not there.
    run = new("incomplete-checkpoint")
    _copy(src, run, "checkpoints/step-000002/trainer_state.json")
    checkpoint = run / "checkpoints" / "step-000002"
    listed = json.loads((src / "checkpoints" / "step-000002" / "manifest.json").read_text(encoding="utf-8"))
    listed["files"]["optimizer.pt"] = 1024
    (checkpoint / "manifest.json").write_text(json.dumps(listed, indent=2) + "\n", encoding="utf-8")
    expected["incomplete-checkpoint"] = {
        "errors": [
            {
                "kind": "checkpoint",
                "file": "checkpoints/step-000002",
                "line": None,
                "field": None,
                "message_includes": "optimizer.pt is missing",
            }
        ],
        "warnings": [],
    }

    # What a killed writer leaves: a run.json replacement never renamed, a checkpoint never finished.
    run = new("stale-temp-file")
    (run / ".run.json.tmp-4242").write_bytes(b'{"format_version": 1, "id": "stale-temp-')
    (run / "checkpoints" / ".tmp-step-000003").mkdir(parents=True)
    (run / "checkpoints" / ".tmp-step-000003" / "config.json").write_bytes(b"{}\n")
    expected["stale-temp-file"] = {
        "errors": [],
        "warnings": [
            {"kind": "stale_temp", "file": ".run.json.tmp-4242", "line": None},
            {"kind": "stale_temp", "file": "checkpoints/.tmp-step-000003", "line": None},
        ],
    }

    # Tags written by hand with a padded label: the schema refuses it (the runs table never writes one).
    run = new("bad-tags")
    write_json_atomic(run / "tags.json", {"tags": ["ok", " padded "]})
    expected["bad-tags"] = {
        "errors": [{"kind": "schema", "file": "tags.json", "line": None, "field": "tags[1]"}],
        "warnings": [],
    }

    # A gate quantile above 1 (g = σ(β·Δ) never is): the schema bounds the gate's quantiles to [0, 1].
    rows = [json.loads(line) for line in _lines(src / "metrics.jsonl")]
    rows[0]["gate/p95"] = 1.25
    _write_metrics(new("quantile-out-of-range"), rows)
    expected["quantile-out-of-range"] = {
        "errors": [{"kind": "schema", "file": "metrics.jsonl", "line": 1, "field": "gate/p95"}],
        "warnings": [],
    }

    # A metric name schemas/metric.schema.json does not list (a newer trainer's, or a typo of loss/pg): it is read, and
    # checkers warn at its first line, since a new metric name keeps the format version (docs/run-format.md §1, §6).
    rows = [json.loads(line) for line in _lines(src / "metrics.jsonl")]
    rows[1]["loss/pg_loss"] = rows[1].pop("loss/pg")
    _write_metrics(new("unknown-metric"), rows)
    expected["unknown-metric"] = {
        "errors": [],
        "warnings": [{"kind": "unknown_metric", "file": "metrics.jsonl", "line": 2}],
        "counts": {"metrics": len(rows)},
    }

    # Quantiles of Δ that go down from p25 to p50: each is a valid number, together they cannot be quantiles.
    rows = [json.loads(line) for line in _lines(src / "metrics.jsonl")]
    rows[1]["delta/p25"] = rows[1]["delta/p75"]
    _write_metrics(new("quantiles-out-of-order"), rows)
    expected["quantiles-out-of-order"] = {
        "errors": [
            {
                "kind": "consistency",
                "file": "metrics.jsonl",
                "line": 2,
                "field": "delta/p50",
                "message_includes": "is below delta/p25",
            }
        ],
        "warnings": [],
    }
    return expected


BASELINE_CONFIG = {
    **CONFIG,
    "name": "household-seed-baseline",
    "updates": 1,
    "opd": {**CONFIG["opd"], "estimator": "baseline"},
}


def write_valid_baseline(out: Path) -> dict[str, Any]:
    """A completed one-update run with `opd.estimator: baseline`: its teacher steps carry `gate_baseline` (b(s)) and
    its metrics `opd/gate_baseline_mean`, as the trainer writes them."""
    rng = random.Random(11)
    writer = RunWriter.create(
        out,
        name="household-seed-baseline",
        stage="train",
        algorithm="seed",
        config=BASELINE_CONFIG,
        experiment_path=out.parent / "household-baseline.seed.yaml",
        experiment_sha256="6" * 64,
        run_id="valid-baseline",
        environment=ENVIRONMENT,
        progress_total=1,
        progress_unit="update",
        clock=FakeClock(),
        schemas=SchemaSet(),
        lock=False,
    )
    baselines: list[float] = []
    for task_index, success, group, advantage, skill_valid in [(0, True, 0, 0.9, True), (0, False, 0, -0.9, False)]:
        record = episode(rng, 1, "train", task_index, success, group, 0, advantage, True, skill_valid, baseline=True)
        writer.trajectory(record)
        for step in record["steps"]:
            baselines += step["tokens"].gate_baseline or []
    writer.metrics(
        1,
        "update",
        {
            "success/overall": 0.5,
            "loss/opd": 0.0031,
            "gate/mean": 0.47,
            "opd/gate_baseline_mean": round(sum(baselines) / len(baselines), 6),
            "opd/active_ratio": 0.43,
        },
    )
    writer.set_progress(1)
    writer.event("iteration", "update 1 of 1: success 0.50", step=1, total=1, success=0.5)
    writer.finish("completed", "1 update")
    return json.loads((out / "valid-baseline" / "run.json").read_text(encoding="utf-8"))


PAIR_CONFIG = {**CONFIG, "name": "household-pair", "updates": 1}
PAIR_SPLIT = "valid_unseen"
# The same four tasks evaluated before and after training, in the same order: one task gained, one lost, one failed
# and one won both times (the evaluation samples' paired comparison; the Runs tree's before → after row).
PAIR_TASKS = [0, 1, 0, 1]
PAIR_OUTCOMES = {"valid-eval-base": [False, True, False, True], "valid-eval-trained": [True, False, False, True]}


def _write_pair_eval(writer: RunWriter, rng: random.Random, run_id: str, step: int | None, checkpoint: str) -> None:
    """The evaluation of PAIR_SPLIT as the trainer's evaluate_policy writes it: the trajectories, the report, the
    metrics row and the event."""
    episodes = []
    for task_index, success in zip(PAIR_TASKS, PAIR_OUTCOMES[run_id]):
        record = episode(rng, step, "eval", task_index, success, None, None, None, False, None, split=PAIR_SPLIT)
        row = writer.trajectory(record, file=f"eval-{PAIR_SPLIT}.jsonl")
        task = TASKS[task_index]
        episodes.append(
            {
                "task": {"id": task["id"], "type": task["type"], "split": PAIR_SPLIT},
                "success": success,
                "reward": 1.0 if success else 0.0,
                "length": record["length"],
                "trajectory": row["id"],
            }
        )

    def summary(chosen: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "success": sum(e["success"] for e in chosen) / len(chosen),
            "n": len(chosen),
            "mean_length": sum(e["length"] for e in chosen) / len(chosen),
        }

    types = sorted({e["task"]["type"] for e in episodes})
    by_type = {t: summary([e for e in episodes if e["task"]["type"] == t]) for t in types}
    overall = summary(episodes)
    values = {"success/overall": overall["success"], **{f"success/{t}": by_type[t]["success"] for t in types}}
    writer.metrics(step or 0, "eval", values, split=PAIR_SPLIT)
    report = {"split": PAIR_SPLIT, "step": step, "checkpoint": checkpoint, "overall": overall}
    writer.write_eval({**report, "by_task_type": by_type, "episodes": episodes})
    message = f"{PAIR_SPLIT}: success {overall['success']:.3f} over {len(episodes)} episodes"
    where = {"split": PAIR_SPLIT, "path": f"eval/{PAIR_SPLIT}.json", **({"step": step} if step is not None else {})}
    writer.event("eval", message, **where, success=overall["success"])


def write_eval_pair(out: Path) -> None:
    """An evaluation of the starting policy (`valid-eval-base`, stage eval) and a one-update train run whose final
    evaluation plays the same tasks (`valid-eval-trained`), linked to it by run.json's `baseline_evals` as
    `train --baseline-eval` links them. Their failed episodes keep their trajectories, one of them looping."""
    rng = random.Random(13)

    def create(run_id: str, stage: str, **fields: Any) -> RunWriter:
        return RunWriter.create(
            out,
            name="household-pair",
            stage=stage,
            algorithm="seed",
            config=PAIR_CONFIG,
            experiment_path=out.parent / "household-pair.seed.yaml",
            experiment_sha256="7" * 64,
            run_id=run_id,
            environment=ENVIRONMENT,
            clock=FakeClock(),
            schemas=SchemaSet(),
            lock=False,
            **fields,
        )

    base = create("valid-eval-base", "eval", progress_total=1, progress_unit="split")
    _write_pair_eval(base, rng, "valid-eval-base", None, PAIR_CONFIG["model"]["path"])
    base.set_progress(1)
    base.finish("completed", f"{PAIR_SPLIT}: success 0.500 (n = 4)")

    trained = create(
        "valid-eval-trained",
        "train",
        baseline_evals={PAIR_SPLIT: out / "valid-eval-base"},
        progress_total=1,
        progress_unit="update",
    )
    for task_index, success, advantage in [(0, True, 0.9), (0, False, -0.9)]:
        trained.trajectory(episode(rng, 1, "train", task_index, success, 0, int(not success), advantage, True, True))
    trained.metrics(1, "update", {"success/overall": 0.5, "loss/opd": 0.0028, "gate/mean": 0.44})
    trained.set_progress(1)
    trained.event("iteration", "update 1 of 1: success 0.50", step=1, total=1, success=0.5)
    with trained.checkpoint(1) as directory:
        (directory / "trainer_state.json").write_text('{"update": 1}\n', encoding="utf-8")
    _write_pair_eval(trained, rng, "valid-eval-trained", 1, "checkpoints/step-000001")
    trained.finish("completed", "1 update")


def pair_expectations(out: Path, name: str) -> dict[str, Any]:
    reader = RunReader(out / name)
    return {
        "errors": [],
        "warnings": [],
        "counts": {
            "metrics": len(reader.metrics()),
            "trajectory_index": len(reader.trajectory_index()),
            "eval": reader.eval_splits(),
            "checkpoints": len(reader.checkpoints()),
        },
        "manifest": {key: reader.manifest()[key] for key in ("id", "stage", "algorithm", "status", "format_version")},
    }


def _bad_padding(text: str) -> str:
    """The same number of characters and still the schema's alphabet, but a byte count that is not a multiple of 4:
    one padding character more or fewer."""
    if text.endswith("=="):
        return text[:-2] + "A="
    if text.endswith("="):
        return text[:-2] + "=="
    return text[:-1] + "="


def write_broken_baseline(out: Path, valid: dict[str, Any]) -> dict[str, Any]:
    """Runs whose `gate_baseline` is wrong in one way each; both readers must name steps[0].tokens.gate_baseline."""
    src = out / "valid-baseline"
    trajectories = _lines(src / "trajectories" / "it-000001.jsonl")
    expected: dict[str, Any] = {}

    def broken(name: str, change) -> None:
        run = out / name
        (run / "trajectories").mkdir(parents=True)
        write_json_atomic(run / "run.json", _manifest(valid, name))
        first = json.loads(trajectories[0])
        change(first["steps"][0]["tokens"])
        (run / "trajectories" / "it-000001.jsonl").write_bytes(
            (json.dumps(first, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        )

    def located(kind: str, field: str, includes: str) -> dict[str, Any]:
        error = {"kind": kind, "file": "trajectories/it-000001.jsonl", "line": 1, "field": field}
        return {"errors": [{**error, "message_includes": includes}], "warnings": []}

    def short(tokens: dict[str, Any]) -> None:
        tokens["gate_baseline"] = encode_float32(TokenArrays.decode(tokens).gate_baseline[:-1])

    broken("gate-baseline-length", short)
    expected["gate-baseline-length"] = located("token_array", "steps[0].tokens.gate_baseline", "base64 characters")

    def not_finite(tokens: dict[str, Any]) -> None:
        values = TokenArrays.decode(tokens).gate_baseline
        tokens["gate_baseline"] = encode_float32([*values[:2], math.nan, *values[3:]])

    broken("gate-baseline-not-finite", not_finite)
    expected["gate-baseline-not-finite"] = located(
        "token_array", "steps[0].tokens.gate_baseline", "item 2 is NaN, not a finite number"
    )

    def bad_base64(tokens: dict[str, Any]) -> None:
        tokens["gate_baseline"] = _bad_padding(tokens["gate_baseline"])

    broken("gate-baseline-bad-base64", bad_base64)
    expected["gate-baseline-bad-base64"] = located(
        "token_array", "steps[0].tokens.gate_baseline", "not a whole number of 4-byte items"
    )

    def without_gate(tokens: dict[str, Any]) -> None:
        for name in ("teacher_logp", "delta", "gate"):
            del tokens[name]

    broken("gate-baseline-without-gate", without_gate)
    expected["gate-baseline-without-gate"] = located("schema", "steps[0].tokens.gate", "")
    return expected


def baseline_expectations(out: Path) -> dict[str, Any]:
    reader = RunReader(out / "valid-baseline")
    index = reader.trajectory_index()
    entry = index[0]
    arrays = reader.tokens(reader.trajectory(entry)["steps"][0])
    assert arrays is not None and arrays.gate is not None and arrays.gate_baseline is not None
    return {
        "errors": [],
        "warnings": [],
        "counts": {"metrics": len(reader.metrics()), "trajectory_index": len(index)},
        "manifest": {key: reader.manifest()[key] for key in ("id", "stage", "algorithm", "status", "format_version")},
        "decoded": {
            "trajectory": entry["id"],
            "step": 0,
            "count": arrays.count,
            "gate_head": arrays.gate[:6],
            "gate_baseline_head": arrays.gate_baseline[:6],
            "estimator": reader.manifest()["config"]["opd"]["estimator"],
        },
    }


def _write_metrics(run: Path, rows: list[dict[str, Any]]) -> None:
    (run / "metrics.jsonl").write_bytes(b"".join((json.dumps(r, separators=(",", ":")) + "\n").encode() for r in rows))


def valid_expectations(out: Path) -> dict[str, Any]:
    reader = RunReader(out / "valid")
    index = reader.trajectory_index()
    entry = index[0]
    step = reader.trajectory(entry)["steps"][1]
    arrays = reader.tokens(step)
    assert arrays is not None and arrays.gate is not None
    heads = 6
    return {
        "errors": [],
        "warnings": [],
        "counts": {
            "events": len(reader.events()),
            "metrics": len(reader.metrics()),
            "skills": len(reader.skills()),
            "trajectory_index": len(index),
            "trajectories": len(index),
            "eval": reader.eval_splits(),
            "checkpoints": len(reader.checkpoints()),
        },
        "manifest": {key: reader.manifest()[key] for key in ("id", "stage", "algorithm", "status", "format_version")},
        "review_states": [skill["review"]["state"] for skill in reader.skills()],
        "tags": reader.tags(),
        "quantiles": distilled_quantiles(reader),
        "decoded": {
            "trajectory": entry["id"],
            "step": 1,
            "count": arrays.count,
            "text": arrays.text,
            "ids_head": arrays.ids[:heads],
            "logp_head": arrays.logp[:heads] if arrays.logp else None,
            "teacher_logp_head": arrays.teacher_logp[:heads],
            "delta_head": arrays.delta[:heads],
            "gate_head": arrays.gate[:heads],
            "beta": BETA,
        },
    }


def distilled_quantiles(reader: RunReader) -> dict[str, list[dict[str, Any]]]:
    """Per family and update, the quantiles of the g and Δ that the update's trajectories hold: what its metrics row
    must say (both readers' tests compare)."""
    values: dict[int, dict[str, list[float]]] = {}
    for row in reader.trajectory_index():
        if row["phase"] != "train":
            continue
        for step in reader.trajectory(row)["steps"]:
            arrays = reader.tokens(step)
            if arrays is not None and arrays.gate is not None:
                update = values.setdefault(row["update"], {"gate": [], "delta": []})
                update["gate"] += arrays.gate
                update["delta"] += arrays.delta
    out: dict[str, list[dict[str, Any]]] = {"gate": [], "delta": []}
    for update, families in sorted(values.items()):
        for family, found in families.items():
            summary = token_quantiles(torch.tensor(found, dtype=torch.float64), family, QUANTILE_LEVELS)
            out[family].append({"step": update, **{k.split("/")[1]: v for k, v in summary.items()}})
    return out


def generate(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for child in out.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
    _PIECE_IDS.clear()
    valid = write_valid(out)
    broken = write_broken(out, valid)
    valid_baseline = write_valid_baseline(out)
    broken_baseline = write_broken_baseline(out, valid_baseline)
    write_eval_pair(out)
    expectations = {
        "$comment": "Written by trainer/tests/support/make_run_fixtures.py. For each run directory here: the errors "
        "(kind, file relative to the run, 1-based line or null, field path or null) and torn-line warnings a full "
        "check must report, and record counts. Read by trainer/tests/runlog/test_run_format.py and "
        "test/unit/runs/runFormat.test.ts.",
        "runs": {
            "valid": valid_expectations(out),
            **broken,
            "valid-baseline": baseline_expectations(out),
            **broken_baseline,
            **{name: pair_expectations(out, name) for name in PAIR_OUTCOMES},
        },
    }
    (out / "expectations.json").write_text(
        json.dumps(expectations, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
