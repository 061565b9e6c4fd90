"""bench/speed/gpu_check.py at its tiny shape (on the CPU here, on the GPU where there is one), so the GPU check cannot rot.
Its pytest step is left out: this suite is that step."""

import json
import subprocess
import sys
from pathlib import Path

from testenv import subprocess_env

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "speed" / "gpu_check.py"


def test_gpu_check_runs_at_the_tiny_shape_and_reports_every_figure(tmp_path):
    out = tmp_path / "gpu.json"
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--shape",
            "tiny",
            "--skip-tests",
            "--updates",
            "2",
            "--tasks",
            "2",
            "--group",
            "2",
            "--steps",
            "2",
            "--response-tokens",
            "8",
            "--decode-tokens",
            "8",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=subprocess_env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["device"]["torch"] and result["device"]["device"] in ("cpu", "cuda")
    tiny = result["shapes"]["tiny"]
    assert tiny["parameters"] > 0 and tiny["all_finite"] is True
    for algorithm in ("grpo", "seed"):
        run = tiny[algorithm]
        assert run["weights_finite_after_every_update"] == [True, True] and run["skipped_steps"] == 0
        assert run["seconds_per_update"] > 0
        assert {"rollout", "logprobs", "analysis", "teacher", "update", "total"} <= set(run["phases"])
    assert tiny["seed"]["phases"]["teacher"] > 0.0  # the teacher pass ran (skills marked valid)
    assert tiny["seed_over_grpo"] > 0 and set(tiny["decode_ms_per_step"]) == {"1", "128"}
