"""What-if rescoring of runs whose OPD estimator subtracts from g: the rescoring recomputes `gate_baseline` as the
trainer records it — hand-computed numbers through a two-token stand-in policy, then a real tiny `baseline` run whose
recorded b(s) the rescoring gives back with the recorded skill."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from make_whatif_run import make_run

from seed_trainer.algo.estimators import gate_targets
from seed_trainer.export.rescore import StepInput, rescore, rescore_run_trajectory
from seed_trainer.runlog import RunReader, SchemaSet
from seed_trainer.runlog.tokens import decode_float32

SKILL = "take the mug first"
# π_old(·|s) at each of the two response positions under the student prompt and under the teacher prompt (the skill
# inserted); the response samples token 1, then token 0.
STUDENT = [(0.5, 0.5), (0.8, 0.2)]
TEACHER = [(0.25, 0.75), (0.4, 0.6)]
RESPONSE = [1, 0]
# β = 1: g(v) = σ(ln(π_teacher(v) / π_student(v))) = π_t / (π_t + π_s)
#   position 0: g = (1/3, 3/5), b = ½·⅓ + ½·⅗ = 7/15; the sampled token 1 has g = 3/5, g − b = 2/15
#   position 1: g = (1/3, 3/4), b = 0.8·⅓ + 0.2·¾ = 5/12; the sampled token 0 has g = 1/3, g − b = −1/12
HAND_GATE = [3 / 5, 1 / 3]
HAND_BASELINE = [7 / 15, 5 / 12]


class TwoTokenPolicy:
    """Stands in for `Policy` where rescoring touches it: a prompt is one id, 1 when it holds the skill block."""

    def encode_chat(self, text: str, max_prompt_tokens: int) -> list[int]:
        return [1 if SKILL in text else 0]

    @staticmethod
    def _logits(prompt: list[int], n: int) -> torch.Tensor:
        table = TEACHER if prompt == [1] else STUDENT
        return torch.tensor(table[:n], dtype=torch.float64).log()

    def score(self, prompts, responses, temperature=1.0, micro_batch_size=8, max_tokens=None):
        out = []
        for prompt, response in zip(prompts, responses):
            logp = self._logits(prompt, len(response))
            out.append(logp.gather(-1, torch.tensor(response).unsqueeze(-1)).squeeze(-1).float())
        return out

    def score_gate_targets(self, student_prompts, teacher_prompts, responses, *, beta, keep, **_):
        assert keep == "baseline"  # b(s) only: rescoring keeps no soft targets
        return [
            gate_targets(self._logits(s, len(r)), self._logits(t, len(r)), torch.tensor(r), beta=beta, keep=keep)
            for s, t, r in zip(student_prompts, teacher_prompts, responses)
        ]


def _rescore(estimator: str) -> dict:
    steps = [StepInput(t=0, prompt="Your task is to: heat some mug.", response_ids=RESPONSE, response="ab")]
    (result,) = rescore(
        TwoTokenPolicy(), steps, [SKILL], max_prompt_tokens=64, temperature=1.0, beta=1.0, estimator=estimator
    )
    return result["steps"][0]


def test_baseline_rescoring_gives_the_hand_computed_b():
    row = _rescore("baseline")
    assert row["gate"] == pytest.approx(HAND_GATE, abs=1e-6)
    assert row["gate_baseline"] == pytest.approx(HAND_BASELINE, abs=1e-6)
    weight = [g - b for g, b in zip(row["gate"], row["gate_baseline"])]
    assert weight == pytest.approx([2 / 15, -1 / 12], abs=1e-6)
    assert row["delta"] == pytest.approx([math.log(1.5), math.log(0.5)], abs=1e-6)
    # `expected` records the same b(s): the sum of its soft-target weights at each position
    assert _rescore("expected")["gate_baseline"] == row["gate_baseline"]


def test_centred_records_one_half_and_sample_nothing():
    assert _rescore("centred")["gate_baseline"] == [0.5, 0.5]
    sample = _rescore("sample")
    assert "gate_baseline" not in sample and sample["gate"] == pytest.approx(HAND_GATE, abs=1e-6)


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory) -> Path:
    run_dir, _ = make_run(tmp_path_factory.mktemp("rescore-baseline"), onnx=False, estimator="baseline", updates=1)
    return run_dir


def test_recorded_skill_gives_back_the_recorded_b(baseline_run):
    """Update 1 was scored by the starting model: rescored with its recorded skill, b(s) is the recorded one (both
    float32 PyTorch on the CPU, other batch shapes)."""
    reader = RunReader(baseline_run)
    rows = [row for row in reader.trajectory_index() if row["teacher"]]
    assert rows
    worst, tokens = 0.0, 0
    for row in rows:
        trajectory = reader.trajectory(row)
        content = rescore_run_trajectory(baseline_run, trajectory["id"], [trajectory["skill"]["text"]])
        SchemaSet().validate("whatif", content, "rescore output")
        for mine, step in zip(content["results"][0]["steps"], trajectory["steps"], strict=True):
            recorded = decode_float32(step["tokens"]["gate_baseline"])
            assert len(mine["gate_baseline"]) == len(recorded)
            worst = max(worst, *(abs(a - b) for a, b in zip(mine["gate_baseline"], recorded)))
            tokens += len(recorded)
    print(f"{tokens} tokens, worst |b(s) − recorded| {worst:.1e}")
    assert tokens > 0 and worst <= 1e-5
