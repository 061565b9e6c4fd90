"""One rule for the weights a what-if rescoring uses when the checkpoint that scored the trajectory was pruned: the
trainer's `nearest_kept` against the cases the extension's `nearestKept` is checked on too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seed_trainer.runlog.layout import nearest_kept

CASES = Path(__file__).resolve().parents[3] / "test" / "fixtures" / "whatif" / "weights-rule.json"


@pytest.mark.parametrize("case", json.loads(CASES.read_text(encoding="utf-8"))["cases"], ids=str)
def test_the_kept_weights_nearest_to_the_wanted_step(case):
    assert nearest_kept(case["kept"], case["wanted"]) == case["chosen"]
