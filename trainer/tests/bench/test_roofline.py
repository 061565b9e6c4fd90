"""bench/speed/roofline_model.py's counting against numbers worked by hand on a toy shape, its weight count against a
real model's linear layers, and bench/speed/roofline.py --quick end to end on the tiny household policy."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from testenv import BENCH, subprocess_env

sys.path.insert(0, str(BENCH / "speed"))

from roofline_model import (
    Shape,
    Work,
    causal_pairs,
    forward_flops,
    generation_work,
    scoring_work,
    update_work,
    verdict,
)

# 1 layer, hidden 4, MLP 8, 2 query heads and 1 KV head of width 2, vocabulary 10
TOY = Shape(layers=1, hidden=4, intermediate=8, heads=2, kv_heads=1, head_dim=2, vocab=10)


def test_the_toy_shape_s_weights():
    # q and o: 4·(2·2) each = 16 + 16; k and v: 4·(1·2) each = 8 + 8; gate, up, down: 3·4·8 = 96
    assert TOY.linear_weights == 144
    assert TOY.output_weights == 40
    assert TOY.kv_bytes_per_token == 16  # K and V, 1 head of 2, fp32


def test_a_forward_pass_counts_linear_output_and_attention_flops():
    assert causal_pairs(3) == 6
    # 3 tokens: 2·144·3 = 864; logits at 2 positions: 2·40·2 = 160; 6 pairs: 4·1 layer·2 heads·2 wide·6 = 96
    assert forward_flops(TOY, tokens=3, logit_positions=2, pairs=6) == 864 + 160 + 96


def test_scoring_and_the_update_count_real_tokens_and_padding():
    rows = [(2, 1), (3, 2)]  # (prompt, response) tokens
    work = scoring_work(TOY, rows, [[0, 1]], weight_bytes=4)
    # row 1: 3 tokens, 1 logit, 6 pairs = 864 + 80 + 96; row 2: 5 tokens, 2 logits, 15 pairs = 1440 + 160 + 240
    assert work.flops == 1040 + 1840
    assert (work.tokens, work.padded_tokens, work.passes) == (8, 2, 1)  # 2 rows padded to 5
    assert work.bytes == (144 + 40) * 4  # one pass reads every weight once
    update = update_work(TOY, rows, [[0, 1]], optimizer_steps=1, weight_bytes=4)
    assert update.flops == 3 * 2880  # forward + backward (2 × forward)
    assert update.bytes == 3 * 736 + 184 * 28  # three weight reads, and AdamW's 28 bytes per weight


def test_generation_counts_the_prefill_and_each_decoding_step():
    # row A: prompt 2, 3 tokens generated (the prefill samples the first, 2 decoding steps): 4 tokens through the
    # decoder, 3 logits, pairs 3 (prefill) + 2·2 (decoded tokens see the prompt) + 3 (and each other) = 10
    # row B: prompt 3, 1 token: 3 tokens, 1 logit, 6 pairs
    work = generation_work(TOY, [[(2, 3), (3, 1)]], weight_bytes=4)
    assert work.flops == (2 * 144 * 4 + 2 * 40 * 3 + 16 * 10) + (864 + 80 + 96)
    # both rows stepped 1 + 2 times over width 3: 10 computed, 7 useful
    assert (work.tokens, work.padded_tokens, work.passes) == (7, 3, 3)
    # 3 passes over 184 weights, and the KV cache: step j reads 3 + j positions of 2 rows, 16 bytes each
    assert work.bytes == 3 * 184 * 4 + 2 * 16 * (4 + 5)
    # the decoding part: all but the prefills (row A: 2 tokens, 1 logit, 3 pairs = 576 + 80 + 48; row B: 944 + 96),
    # and the 2 decoding steps' weight reads with the whole KV traffic
    assert work.decoding_flops == work.flops - (704 + 1040)
    assert work.decoding_bytes == 2 * 184 * 4 + 2 * 16 * (4 + 5)


def test_the_roofline_bound_takes_decoding_at_its_own_limit():
    # rest: 6e9 FLOPs, 1e8 bytes; decoding: 2e9 FLOPs, 4e9 bytes; peak 1e9 FLOP/s, bandwidth 1e9 B/s
    work = Work(flops=8e9, bytes=4.1e9, tokens=10, passes=3, decoding_flops=2e9, decoding_bytes=4e9)
    assert work.bound_seconds(peak_flops=1e9, bandwidth=1e9) == 6.0 + 4.0  # compute, then memory
    entry = verdict(work, seconds=20.0, peak_flops=1e9, balance=1.0, bandwidth=1e9)
    assert (entry["roofline_seconds"], entry["share_of_roofline"], entry["decoding_share_of_flops"]) == (
        10.0,
        0.5,
        0.25,
    )


def test_compute_bound_means_intensity_above_the_balance():
    work = Work(flops=8e9, bytes=1e8, tokens=90, padded_tokens=10, passes=1)  # intensity 80
    entry = verdict(work, seconds=2.0, peak_flops=8e9, balance=20.0, bandwidth=1e9)
    assert entry["achieved_gflops"] == 4.0 and entry["share_of_peak"] == 0.5
    assert entry["compute_bound"] and entry["arithmetic_intensity"] == 80.0 and entry["padding_share"] == 0.1
    assert not verdict(work, seconds=2.0, peak_flops=8e9, balance=100.0, bandwidth=1e9)["compute_bound"]


def test_the_weight_count_is_a_real_model_s_linear_layers():
    torch = pytest.importorskip("torch")
    from transformers import AutoConfig, AutoModelForCausalLM

    from seed_trainer.models.builtin import builtin_dir

    folder = builtin_dir("household-tiny")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(folder))
    linear = sum(
        m.weight.numel() for n, m in model.named_modules() if isinstance(m, torch.nn.Linear) and n != "lm_head"
    )
    assert Shape.from_config(config).linear_weights == linear


def test_the_quick_run_reports_every_phase_against_the_peaks(tmp_path):
    out = tmp_path / "roofline.json"
    command = [sys.executable, str(BENCH / "speed" / "roofline.py"), "--quick", "--model", "builtin:household-tiny"]
    done = subprocess.run(
        [*command, "--threads", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    limits = report["limits_by_threads"]["1"]
    assert limits["fp32"]["peak_gflops"] > 0 and limits["bf16"]["peak_gflops"] > 0 and limits["bandwidth_gbs"] > 0
    assert set(report["phases"]) == {"generation", "logprobs", "teacher", "update"}
    for name, phase in report["phases"].items():
        assert phase["gflop"] > 0 and phase["tokens"] > 0, name
        assert phase["compute_bound"] == (phase["arithmetic_intensity"] > phase["machine_balance"]), name
    assert report["run"]["teacher_steps"] == report["run"]["steps"]  # oracle skills: the teacher scores every step
